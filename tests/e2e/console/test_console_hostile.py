"""Hostile input on the console's second-slice pages: every form and every id in a path gets the
error shape (400/403/404/413), never a 500 or a stack trace."""

from __future__ import annotations

import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.support import new_client

FORMS = {
    "/console/webhooks": ("url", "event_type", "headers"),
    "/console/refunds": ("end_to_end_id", "amount", "nature", "description", "refund_id"),
    "/console/cash-in": (
        "amount",
        "description",
        "external_id",
        "expiration",
        "payer_name",
        "payer_document",
    ),
    "/console/sandbox/dict": ("pix_key", "behavior", "name", "document", "ispb", "branch", "account_number"),
    "/console/sandbox/med": ("end_to_end_id", "reason"),
    "/console/sandbox/clock": ("advance_seconds",),
}
LONG = "9" * 60_000  # long text under the body limit


@pytest.mark.parametrize("path", sorted(FORMS))
async def test_long_and_odd_form_values_are_refused_with_the_error_shape(
    pg_uow: UnitOfWorkFactory, api: Api, path: str
) -> None:
    await sign_in(api.client, await new_client(pg_uow, sandbox_admin=True))
    token = csrf_of(await api.client.get("/console/webhooks"))
    for value in (LONG, "²³", "\u202e" + "x" * 40, " ", "-1", "1e309"):
        answer = await api.client.post(path, data={"csrf": token} | dict.fromkeys(FORMS[path], value))
        assert 400 <= answer.status_code < 500, (path, value[:10], answer.status_code)
        assert "Traceback" not in answer.text
    raw = b"csrf=" + token.encode() + b"&" + FORMS[path][0].encode() + b"=%ff%fe"
    not_utf8 = await api.client.post(
        path, content=raw, headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert not_utf8.status_code == 400


async def test_odd_ids_in_paths_are_refused_or_not_found(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    await sign_in(api.client, await new_client(pg_uow))
    token = csrf_of(await api.client.get("/console/webhooks"))
    big = str(2**70)
    for path in (
        f"/console/webhooks/deliveries/{big}",
        "/console/webhooks/deliveries/-1",
        "/console/webhooks/deliveries/0",
        "/console/refunds/" + "E" * 32 + "/%F0%9F%92%A5",
        "/console/refunds/x/y",
    ):
        answer = await api.client.get(path)
        assert answer.status_code in (400, 404), path
        assert "Traceback" not in answer.text
    for path in (
        f"/console/webhooks/{big}/deactivate",
        f"/console/webhooks/{big}/test",
        "/console/webhooks/-5/deactivate",
        f"/console/webhooks/deliveries/{big}/replay",
        f"/console/sandbox/med/{big}/accept",
        "/console/sandbox/med/-1/reject",
        "/console/sandbox/med/1/explode",
    ):
        answer = await api.client.post(path, data={"csrf": token})
        assert answer.status_code in (400, 404), path
        assert "Traceback" not in answer.text
