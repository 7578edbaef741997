"""The header's search: an end-to-end id, a txid or an amount as typed ("42,90" or "42.90"),
the signed-in account's transactions and charges only; a text it cannot read (a NUL byte, too
long, neither an id nor an amount) is refused with a message on the console's page."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, receive, sign_in, transaction_of
from tests.support import Client, new_client


async def charge(http: httpx.AsyncClient, amount: str, txid: str) -> str:
    form = await http.get("/console/charges")
    made = await http.post("/console/charges", data={"csrf": csrf_of(form), "amount": amount, "txid": txid})
    assert made.status_code == 303, made.text
    return txid


def found_transactions(html: str) -> set[str]:
    section = html.split('id="found-transactions"', 1)[1].split("</section>", 1)[0]
    return set(re.findall(r'href="/console/transactions/(\d+)"', section))


def found_charges(html: str) -> set[str]:
    section = html.split('id="found-charges"', 1)[1].split("</section>", 1)[0]
    return set(re.findall(r'href="/console/charges/(\w+)"', section))


def other_browser(api: Api) -> httpx.AsyncClient:
    assert api.app is not None
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=api.app), base_url="http://127.0.0.1:8000")


async def setup(
    pg_uow: UnitOfWorkFactory, api: Api, second: httpx.AsyncClient
) -> tuple[Client, dict[str, str]]:
    """Each account receives 42.90 and has a charge of 42.90; the owner also 10.00 of each."""
    owner, other = await new_client(pg_uow), await new_client(pg_uow)
    await sign_in(api.client, owner)
    await sign_in(second, other)
    ids = {
        "e2e": await receive(api.client, owner, "42.90"),
        "small_e2e": await receive(api.client, owner, "10.00"),
        "txid": await charge(api.client, "42.90", "ownercharge" + "0" * 20),
        "small_txid": await charge(api.client, "10.00", "ownersmall" + "0" * 20),
        "other_e2e": await receive(second, other, "42.90"),
        "other_txid": await charge(second, "42.90", "othercharge" + "0" * 20),
    }
    ids["transaction"] = await transaction_of(api.client, ids["e2e"])
    ids["small_transaction"] = await transaction_of(api.client, ids["small_e2e"])
    ids["other_transaction"] = await transaction_of(second, ids["other_e2e"])
    return owner, ids


@pytest.mark.parametrize("typed", ["42,90", "42.90", "R$ 42,90", " 42.9 "])
async def test_an_amount_as_typed_finds_the_accounts_records_of_that_amount(
    pg_uow: UnitOfWorkFactory, api: Api, typed: str
) -> None:
    async with other_browser(api) as second:
        _, ids = await setup(pg_uow, api, second)
        answer = await api.client.get("/console/search", params={"q": typed})
    assert answer.status_code == 200, answer.text
    assert "R$42.90" in answer.text.split('id="read-as"', 1)[1].split("</section>", 1)[0]  # in English
    assert found_transactions(answer.text) == {ids["transaction"]}
    assert found_charges(answer.text) == {ids["txid"]}  # not the other account's, not 10.00


async def test_an_end_to_end_id_or_a_txid_finds_the_accounts_record_only(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    async with other_browser(api) as second:
        _, ids = await setup(pg_uow, api, second)
        by_e2e = await api.client.get("/console/search", params={"q": ids["e2e"]})
        assert found_transactions(by_e2e.text) == {ids["transaction"]}
        by_txid = await api.client.get("/console/search", params={"q": ids["txid"]})
        assert found_charges(by_txid.text) == {ids["txid"]}
        assert found_transactions(by_txid.text) == set()
        for theirs in (ids["other_e2e"], ids["other_txid"]):  # another account's ids find nothing
            answer = await api.client.get("/console/search", params={"q": theirs})
            assert answer.status_code == 200
            assert found_transactions(answer.text) == set()
            assert found_charges(answer.text) == set()
            assert ids["other_transaction"] not in answer.text.split('id="found-transactions"', 1)[1]
        # and the other account finds its own
        mine = await second.get("/console/search", params={"q": ids["other_e2e"]})
        assert found_transactions(mine.text) == {ids["other_transaction"]}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("q=" + quote("E1234\x00"), "cannot hold control characters"),
        ("q=%00", "cannot hold control characters"),
        ("q=" + "9" * 50_000, "at most 100 characters"),
        ("q=hello", "Not an end-to-end id"),
        ("q=4%2C29%2C0", "Not an end-to-end id"),
        ("q=+", "Type an end-to-end id"),
    ],
)
async def test_what_the_search_cannot_read_is_refused_with_a_message(
    pg_uow: UnitOfWorkFactory, api: Api, query: str, message: str
) -> None:
    await sign_in(api.client, await new_client(pg_uow))
    answer = await api.client.get("/console/search?" + query)
    assert answer.status_code == 400, answer.text[:300]
    assert answer.headers["content-type"].startswith("text/html")
    assert re.search(rf'<p class="error" id="e-q" role="alert">[^<]*{re.escape(message)}', answer.text)
    assert "\x00" not in answer.text
    assert "9" * 200 not in answer.text


async def test_the_header_has_the_search_box_and_the_page_reads_without_a_query(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    await sign_in(api.client, await new_client(pg_uow))
    overview = await api.client.get("/console")
    assert '<form class="search" method="get" action="/console/search" role="search">' in overview.text
    empty = await api.client.get("/console/search")
    assert empty.status_code == 200
    assert 'id="found-transactions"' not in empty.text
