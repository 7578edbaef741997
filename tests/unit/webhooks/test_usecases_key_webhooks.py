"""Webhooks per key (the standard's ``/webhook``) on the fakes: set, replace, read, list and delete;
another account's key refused; and the PIX event a receipt on the key writes, and only then, and
the one each refund of it writes when it reaches its final status."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from pixcore.accounts.rules import Balance
from pixcore.clock import ManualClock
from pixcore.errors import InvalidQuery, InvalidWebhook, WebhookHostRefused, WebhookNotFound
from pixcore.events import NotificationType
from pixcore.group_commit.receipts import ReceiptGroupCommit
from pixcore.keys import parse_pix_key
from pixcore.queries.standard import Page, WebhookQuery, parse_webhook_query
from pixcore.refunds.refund_service import process_due_refunds, request_refund
from pixcore.refunds.rules import RefundRequest
from pixcore.testing import InMemoryStore, PlainHasher, StaticResolver
from pixcore.transfers.receipt_service import receive_payment
from pixcore.webhooks.key_webhook_service import (
    REPLACED,
    delete_key_webhook,
    list_key_webhooks,
    parse_key_webhook,
    read_key_webhook,
    set_key_webhook,
)
from pixcore.webhooks.rules import EventType, parse_webhook_url, standard_target
from pixinfra.event_payloads import payload
from tests.unit.transfer_world import PAYER
from tests.unit.usecase_helpers import OTHER_CPF, open_test_account
from tests.unit.wire_rendering import wire_details

KEY = "maria@example.com"
OTHER_KEY = "maria.two@example.com"
PUBLIC = StaticResolver({"hooks.example.com": ["203.0.114.10"], "lan.example.com": ["192.168.1.2"]})


async def _accounts(store: InMemoryStore, hasher: PlainHasher) -> tuple[int, int]:
    mine = await open_test_account(store, hasher, keys=(KEY, OTHER_KEY))
    other = await open_test_account(store, hasher, document=OTHER_CPF, keys=("joao@example.com",))
    return mine.account.id, other.account.id


async def _set(store: InMemoryStore, clock: ManualClock, account_id: int, key: str, url: str) -> object:
    return await set_key_webhook(
        store.unit_of_work,
        clock,
        PUBLIC,
        account_id=account_id,
        request=parse_key_webhook(key=key, webhook_url=url),
        allow_private=False,
    )


# -- the target URL and the query --------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "target"),
    [
        ("https://hooks.example.com/api/webhook/", "https://hooks.example.com/api/webhook/pix"),
        ("https://hooks.example.com/api/webhook", "https://hooks.example.com/api/webhook/pix"),
        ("https://hooks.example.com", "https://hooks.example.com/pix"),
        ("https://hooks.example.com/w?t=1&u=2", "https://hooks.example.com/w/pix?t=1&u=2"),
        ("https://HOOKS.example.com:443/a//", "https://hooks.example.com/a/pix"),
    ],
)
def test_the_standard_posts_to_the_url_with_pix_added_to_its_path(given: str, target: str) -> None:
    assert standard_target(parse_webhook_url(given)).url == target


def test_a_url_too_long_once_pix_is_added_is_refused() -> None:
    url = parse_webhook_url("https://hooks.example.com/" + "a" * (2048 - 26))
    with pytest.raises(InvalidWebhook, match="at most 2044 characters"):
        standard_target(url)


def test_the_list_query_takes_each_bound_alone_and_reports_every_broken_rule() -> None:
    assert parse_webhook_query(inicio=None, fim="") == WebhookQuery()
    start = parse_webhook_query(inicio="2026-03-01T00:00:00-03:00", fim=None, page="2", size="10")
    assert start == WebhookQuery(datetime(2026, 3, 1, 3, tzinfo=UTC), None, Page(2, 10))
    with pytest.raises(InvalidQuery) as caught:
        parse_webhook_query(inicio="2026-03-02T00:00:00Z", fim="2026-03-01T00:00:00Z", page="-1", size="0")
    assert [d.split(":")[0] for d in wire_details(caught.value)] == [
        "fim",
        "paginacao.paginaAtual",
        "paginacao.itensPorPagina",
    ]


def test_a_put_reports_the_key_and_the_url_at_once() -> None:
    with pytest.raises(InvalidWebhook) as caught:
        parse_key_webhook(key="no key", webhook_url="http://hooks.example.com/")
    assert [d.split(":")[0] for d in wire_details(caught.value)] == ["chave", "webhookUrl"]


# -- registrations --------------------------------------------------------------------------------


async def test_a_key_webhook_is_set_replaced_read_listed_and_deleted(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher
) -> None:
    mine, _ = await _accounts(store, hasher)
    first = await _set(store, clock, mine, KEY.upper(), "https://hooks.example.com/a")
    same = await _set(store, clock, mine, KEY, "https://hooks.example.com/a")
    assert same == first  # the same URL again changes nothing
    clock.advance(5)
    second = await set_key_webhook(
        store.unit_of_work,
        clock,
        PUBLIC,
        account_id=mine,
        request=parse_key_webhook(key=KEY, webhook_url="https://hooks.example.com/b"),
        allow_private=False,
    )
    assert (second.pix_key, second.webhook_url, second.url) == (
        KEY,
        "https://hooks.example.com/b",
        "https://hooks.example.com/b/pix",
    )
    assert second.event_type is EventType.PIX
    assert await read_key_webhook(store.unit_of_work, account_id=mine, key=KEY) == second
    old = [w for w in store.tables.webhooks.webhooks.values() if w.url == "https://hooks.example.com/a/pix"]
    assert [(w.is_active, w.deactivation_reason) for w in old] == [(False, REPLACED)]

    await _set(store, clock, mine, OTHER_KEY, "https://hooks.example.com/a")  # two keys, one receiver
    listed = await list_key_webhooks(store.unit_of_work, account_id=mine, query=WebhookQuery())
    assert (listed.total, [w.pix_key for w in listed.webhooks]) == (2, [KEY, OTHER_KEY])
    later = WebhookQuery(start=clock.now() + timedelta(seconds=1))
    assert (await list_key_webhooks(store.unit_of_work, account_id=mine, query=later)).total == 0

    await delete_key_webhook(store.unit_of_work, clock, account_id=mine, key=KEY)
    with pytest.raises(WebhookNotFound):
        await read_key_webhook(store.unit_of_work, account_id=mine, key=KEY)
    with pytest.raises(WebhookNotFound):
        await delete_key_webhook(store.unit_of_work, clock, account_id=mine, key=KEY)


async def test_another_accounts_key_is_refused_and_not_found(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher
) -> None:
    mine, other = await _accounts(store, hasher)
    with pytest.raises(InvalidWebhook) as caught:
        await _set(store, clock, other, KEY, "https://hooks.example.com/a")
    assert wire_details(caught.value) == ["chave: not a key of this account"]
    with pytest.raises(InvalidWebhook):  # a key of nobody's
        await _set(store, clock, mine, "nobody@example.com", "https://hooks.example.com/a")
    await _set(store, clock, mine, KEY, "https://hooks.example.com/a")
    for wrong in ("joao@example.com", KEY, "not a key"):
        with pytest.raises(WebhookNotFound):
            await read_key_webhook(store.unit_of_work, account_id=other, key=wrong)
    with pytest.raises(WebhookNotFound):
        await delete_key_webhook(store.unit_of_work, clock, account_id=other, key=KEY)
    assert (await read_key_webhook(store.unit_of_work, account_id=mine, key=KEY)).is_active


async def test_a_private_receiver_is_refused(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher
) -> None:
    mine, _ = await _accounts(store, hasher)
    with pytest.raises(WebhookHostRefused):
        await _set(store, clock, mine, KEY, "https://lan.example.com/")


# -- the event a receipt writes -------------------------------------------------------------------


def _pix_events(store: InMemoryStore) -> list[dict[str, object]]:
    return [payload(item.event) for item in store.outbox if item.webhook_type is EventType.PIX]


async def test_a_receipt_on_a_key_with_a_webhook_writes_the_standard_pix(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher
) -> None:
    mine, _ = await _accounts(store, hasher)
    await receive_payment(store.unit_of_work, clock, key=parse_pix_key(KEY), amount=1_00, payer=PAYER)
    assert _pix_events(store) == []  # no webhook yet
    await _set(store, clock, mine, KEY, "https://hooks.example.com/a")
    receipt = await receive_payment(
        store.unit_of_work, clock, key=parse_pix_key(KEY), amount=37_50, payer=PAYER
    )
    await receive_payment(store.unit_of_work, clock, key=parse_pix_key(OTHER_KEY), amount=2_00, payer=PAYER)
    (event,) = _pix_events(store)
    assert event == {
        "type": NotificationType.PIX.value,
        "data": {
            "pix": [
                {
                    "endToEndId": receipt.end_to_end_id,
                    "valor": "37.50",
                    "componentesValor": {"original": {"valor": "37.50"}},
                    "horario": clock.now().isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                    "devolucoes": [],
                    "chave": KEY,
                }
            ]
        },
    }


async def test_a_group_of_receipts_writes_one_pix_event_each(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher
) -> None:
    mine, _ = await _accounts(store, hasher)
    await _set(store, clock, mine, KEY, "https://hooks.example.com/a")
    group_commit = ReceiptGroupCommit(store.unit_of_work, clock, size=3, window=timedelta(milliseconds=20))
    receipts = await asyncio.gather(
        *(group_commit.receive(key=parse_pix_key(KEY), amount=n * 1_00, payer=PAYER) for n in (1, 2, 3))
    )
    sent = [event["data"]["pix"][0]["endToEndId"] for event in _pix_events(store)]  # type: ignore[index]
    assert sorted(sent) == sorted(r.end_to_end_id for r in receipts)


async def _refund(
    store: InMemoryStore, clock: ManualClock, account_id: int, e2e: str, *, rid: str, cents: int
) -> None:
    await request_refund(
        store.unit_of_work,
        clock,
        account_id=account_id,
        end_to_end_id=e2e,
        refund_id=rid,
        request=RefundRequest(cents),
        ispb="99999999",
        delay=timedelta(seconds=5),
    )


async def test_a_refund_of_a_pix_on_the_key_posts_it_again_at_its_final_status(
    store: InMemoryStore, clock: ManualClock, hasher: PlainHasher
) -> None:
    mine, _ = await _accounts(store, hasher)
    await _set(store, clock, mine, KEY, "https://hooks.example.com/a")
    received_at = clock.now()
    receipt = await receive_payment(
        store.unit_of_work, clock, key=parse_pix_key(KEY), amount=37_50, payer=PAYER
    )
    unhooked = await receive_payment(
        store.unit_of_work, clock, key=parse_pix_key(OTHER_KEY), amount=5_00, payer=PAYER
    )
    e2e = receipt.end_to_end_id
    assert len(_pix_events(store)) == 1  # the receipt's

    await _refund(store, clock, mine, e2e, rid="made", cents=10_00)
    await _refund(store, clock, mine, unhooked.end_to_end_id, rid="elsewhere", cents=1_00)  # no webhook: none
    assert len(_pix_events(store)) == 1  # asked for, not final: nothing yet
    clock.advance(5)
    assert await process_due_refunds(store.unit_of_work, clock) == 2
    # The money is spent elsewhere (seeded: the store's rows are the tests'), so the next refund
    # cannot be reserved and ends NAO_REALIZADO.
    store.balances[mine] = Balance(1_00, 0)
    await _refund(store, clock, mine, e2e, rid="short", cents=2_00)
    clock.advance(5)
    assert await process_due_refunds(store.unit_of_work, clock) == 1

    first, second = (event["data"]["pix"] for event in _pix_events(store)[1:])  # type: ignore[index]
    assert [item["endToEndId"] for item in (*first, *second)] == [e2e, e2e]
    assert {item["horario"] for item in (*first, *second)} == {
        received_at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    }
    (made,) = first[0]["devolucoes"]
    assert (made["id"], made["valor"], made["status"]) == ("made", "10.00", "DEVOLVIDO")
    assert "liquidacao" in made["horario"]
    assert [(r["id"], r["status"]) for r in second[0]["devolucoes"]] == [
        ("made", "DEVOLVIDO"),
        ("short", "NAO_REALIZADO"),
    ]
    assert second[0]["devolucoes"][1]["motivo"]
    assert "liquidacao" not in second[0]["devolucoes"][1]["horario"]
