"""The console's "not found": an unknown ``/console`` path, and a record that is missing or
another account's, answer 404 with the console's own page (its layout, its header), never the
API's JSON and never a word of the other account's record."""

from __future__ import annotations

import httpx
import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, receive, sign_in, transaction_of
from tests.support import new_client


def assert_console_not_found(answer: httpx.Response, holder: str) -> None:
    assert answer.status_code == 404, answer.text
    assert answer.headers["content-type"].startswith("text/html"), answer.headers
    assert any(f"<h1>{title}</h1>" in answer.text for title in ("Not found", "Não encontrado"))
    assert any(f'<nav aria-label="{nav}">' in answer.text for nav in ("Sections", "Seções"))  # the layout
    assert f'<span class="who">{holder}</span>' in answer.text
    assert "statusCode" not in answer.text


@pytest.mark.parametrize(
    "path",
    [
        "/console/nope",
        "/console/transactions/12/extra",
        "/console/charges/abc/def/ghi",
        "/console/webhooks/deliveries/not-a-number",
        "/console/refunds/E00000000000000000000000000000000",
        "/console/static",
    ],
)
async def test_an_unknown_console_path_is_the_consoles_not_found_page(
    pg_uow: UnitOfWorkFactory, api: Api, path: str
) -> None:
    client = await new_client(pg_uow, name="Nina Lost")
    await sign_in(api.client, client)
    assert_console_not_found(await api.client.get(path), "Nina Lost")


async def test_an_unknown_path_asks_the_signed_out_to_sign_in_first(api: Api) -> None:
    answer = await api.client.get("/console/nope")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/console/sign-in?next=%2Fconsole%2Fnope"
    deeper = await api.client.get("/console/transactions/1/more")
    assert deeper.status_code == 303
    assert deeper.headers["location"] == "/console/sign-in?next=%2Fconsole%2Ftransactions%2F1%2Fmore"


async def test_a_form_sent_to_an_unknown_path_is_not_found_too(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow, name="Nina Lost")
    await sign_in(api.client, client)
    token = csrf_of(await api.client.get("/console"))
    assert_console_not_found(await api.client.post("/console/nope", data={"csrf": token}), "Nina Lost")


async def test_another_accounts_records_are_not_found_and_not_shown(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    owner, other = await new_client(pg_uow), await new_client(pg_uow, name="Other Reader")
    await sign_in(api.client, owner)
    e2e = await receive(api.client, owner, "7.00")
    transaction = await transaction_of(api.client, e2e)
    refunds = await api.client.get("/console/refunds")
    refunded = await api.client.post(
        "/console/refunds",
        data={
            "csrf": csrf_of(refunds),
            "end_to_end_id": e2e,
            "refund_id": "r1",
            "amount": "1.00",
            "nature": "ORIGINAL",
        },
    )
    assert refunded.status_code == 303, refunded.text
    owned = [
        f"/console/transactions/{transaction}",
        f"/console/transactions/{transaction}/live",
        refunded.headers["location"],
        refunded.headers["location"] + "/live",
    ]
    for path in owned:
        assert (await api.client.get(path)).status_code == 200, path
    paths = [*owned, "/console/transactions/99999999", "/console/charges/" + "z" * 30]
    assert api.app is not None
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=api.app), base_url="http://127.0.0.1:8000"
    ) as second:
        await sign_in(second, other)
        for path in paths:
            answer = await second.get(path)
            assert_console_not_found(answer, "Other Reader")
            assert e2e not in answer.text, path
