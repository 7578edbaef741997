"""The SPI over mutual TLS (``pixnet.server.settlement``): payments accepted, refused or left
unanswered, returns, repeats, and the settlement's books proved after each."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from datetime import timedelta

import asyncpg
import pytest

from pixwire import xml
from pixwire.spi.documents import document
from pixwire.spi.model import (
    PaymentReturn,
    Reason,
    Status,
    StatusReport,
)
from tests.integration.network.spi import (
    Inbox,
    answer_of,
    balances,
    funded,
    payment,
    report,
    returning,
    send,
)
from tests.integration.network.support import BANK_A, BANK_B, Network, client, problem, signed


@pytest.fixture(scope="module")
def payee_timeout() -> timedelta:
    """Longer than the module runs: a payment a test leaves unanswered never expires into another
    test's inbox (the deadline has a module of its own, test_spi_deadline.py)."""
    return timedelta(minutes=10)


async def test_a_payment_the_payee_accepts_settles_and_both_are_told(
    network: Network, books: asyncpg.Connection
) -> None:
    await funded(books, BANK_A, 10_000)
    a, b = Inbox(network, BANK_A), Inbox(network, BANK_B)
    await a.drain()
    await b.drain()
    before = await balances(books)
    paid = payment(1_050, key="maria@example.com")

    sent = report(network, await send(network, BANK_A, paid))
    assert (sent.end_to_end_id, sent.status) == (paid.end_to_end_id, Status.PDNG)
    (arrived,) = await b.take(wait=5)
    assert arrived == paid  # the payee reads the payment as it was sent

    outcome = report(network, await send(network, BANK_B, answer_of(paid, Status.ACSP)))
    assert (outcome.status, outcome.reason) == (Status.ACSC, None)
    assert outcome.settled_at is not None
    after = await balances(books)
    assert (after[BANK_A] - before[BANK_A], after[BANK_B] - before[BANK_B]) == (-1_050, 1_050)
    told_a, told_b = await a.take(), await b.take()
    assert [(m.end_to_end_id, m.status) for m in told_a if isinstance(m, StatusReport)] == [
        (paid.end_to_end_id, Status.ACSC)
    ]
    assert [(m.end_to_end_id, m.status) for m in told_b if isinstance(m, StatusReport)] == [
        (paid.end_to_end_id, Status.ACSC)
    ]
    counted = await books.fetchval(
        "SELECT count(*) FROM directory_events WHERE kind = 'SETTLEMENTS' AND key = 'maria@example.com'"
    )
    assert counted >= 1


async def test_a_payer_whose_settlement_account_does_not_cover_it_is_refused(
    network: Network, books: asyncpg.Connection
) -> None:
    a, b = Inbox(network, BANK_A), Inbox(network, BANK_B)
    await a.drain()
    await b.drain()
    before = await balances(books)
    paid = payment(before[BANK_A] + 1)
    assert report(network, await send(network, BANK_A, paid)).status is Status.PDNG
    await b.take(wait=5)
    outcome = report(network, await send(network, BANK_B, answer_of(paid, Status.ACSP)))
    assert (outcome.status, outcome.reason) == (Status.RJCT, Reason.AM04)
    assert await balances(books) == before
    for inbox in (a, b):
        told = [m for m in await inbox.take() if isinstance(m, StatusReport)]
        assert [(m.status, m.reason) for m in told] == [(Status.RJCT, Reason.AM04)]


async def test_a_payment_the_payee_refuses_moves_nothing(network: Network, books: asyncpg.Connection) -> None:
    a = Inbox(network, BANK_A)
    await a.drain()
    before = await balances(books)
    paid = payment(100)
    report(network, await send(network, BANK_A, paid))
    outcome = report(network, await send(network, BANK_B, answer_of(paid, Status.RJCT, Reason.AC03)))
    assert (outcome.status, outcome.reason) == (Status.RJCT, Reason.AC03)
    assert await balances(books) == before
    told = [m for m in await a.take() if isinstance(m, StatusReport)]
    assert [(m.end_to_end_id, m.reason) for m in told] == [(paid.end_to_end_id, Reason.AC03)]


async def test_a_repeated_payment_is_one_payment_and_other_content_under_its_id_is_refused(
    network: Network, books: asyncpg.Connection
) -> None:
    b = Inbox(network, BANK_B)
    await b.drain()
    paid = payment(300)
    first, again = await asyncio.gather(send(network, BANK_A, paid), send(network, BANK_A, paid))
    assert {report(network, r).status for r in (first, again)} == {Status.PDNG}
    arrived = await b.take(wait=5)
    assert [m.end_to_end_id for m in arrived] == [paid.end_to_end_id]  # queued once
    changed = await send(network, BANK_A, replace(paid, amount=301))
    assert problem(network, changed)[:2] == (400, "RequestIdAlreadyUsed")
    assert (
        await books.fetchval("SELECT count(*) FROM payments WHERE end_to_end_id = $1", paid.end_to_end_id)
        == 1
    )


async def test_a_return_goes_back_once_and_never_beyond_its_payment(
    network: Network, books: asyncpg.Connection
) -> None:
    await funded(books, BANK_A, 2_000)
    a = Inbox(network, BANK_A)
    paid = payment(1_000)
    report(network, await send(network, BANK_A, paid))
    assert report(network, await send(network, BANK_B, answer_of(paid, Status.ACSP))).status is Status.ACSC
    await a.drain()
    before = await balances(books)

    part = returning(paid, 400)
    first, again = await asyncio.gather(send(network, BANK_B, part), send(network, BANK_B, part))
    outcomes = {(report(network, r).status, report(network, r).return_id) for r in (first, again)}
    assert outcomes == {(Status.ACSC, part.return_id)}
    after = await balances(books)
    assert (after[BANK_A] - before[BANK_A], after[BANK_B] - before[BANK_B]) == (400, -400)
    returned = [m for m in await a.take() if isinstance(m, PaymentReturn)]
    assert [(m.return_id, m.amount) for m in returned] == [(part.return_id, 400)]

    too_much = report(network, await send(network, BANK_B, returning(paid, 601)))
    assert (too_much.status, too_much.reason) == (Status.RJCT, Reason.AM09)
    by_payer = await send(network, BANK_A, returning(paid, 10, sender=BANK_A))
    assert problem(network, by_payer)[:2] == (403, "Forbidden")
    rest = report(network, await send(network, BANK_B, returning(paid, 600)))
    assert rest.status is Status.ACSC
    assert (
        await books.fetchval("SELECT returned FROM payments WHERE end_to_end_id = $1", paid.end_to_end_id)
        == 1_000
    )


async def test_a_participant_sends_and_answers_only_for_itself(
    network: Network, books: asyncpg.Connection
) -> None:
    as_other = await send(network, BANK_B, payment(100, payer=BANK_A, payee=BANK_B))
    assert problem(network, as_other)[:2] == (403, "Forbidden")
    paid = payment(100)
    report(network, await send(network, BANK_A, paid))
    own_answer = await send(network, BANK_A, answer_of(paid, Status.ACSP))
    assert problem(network, own_answer)[:2] == (403, "Forbidden")
    to_self = await send(network, BANK_A, payment(100, payer=BANK_A, payee=BANK_A))
    assert problem(network, to_self)[:2] == (400, "BadRequest")
    to_nobody = await send(network, BANK_A, payment(100, payer=BANK_A, payee="99999999"))
    assert problem(network, to_nobody)[:2] == (404, "NotFound")


async def test_a_message_the_schema_refuses_or_nobody_signed_is_refused(network: Network) -> None:
    body = xml.serialize(document(payment(100))).replace(b">1.00<", b">1.0<")
    async with client(network, BANK_A) as http:
        bad = await http.post("/spi/v1/messages", content=signed(network, BANK_A, body))
        unsigned = await http.post("/spi/v1/messages", content=xml.serialize(document(payment(100))))
        bad_cursor = await http.get("/spi/v1/messages", params={"after": "x"})
    status, type_, detail = problem(network, bad)
    assert (status, type_) == (400, "BadRequest")
    assert "not a valid SPI message" in detail
    assert problem(network, unsigned)[:2] == (400, "RequestSignatureInvalid")
    assert problem(network, bad_cursor)[:2] == (400, "BadRequest")


async def test_payments_crossing_both_ways_at_once_settle_without_deadlock_and_conserve_money(
    network: Network, books: asyncpg.Connection
) -> None:
    await funded(books, BANK_A, 50_000)
    await funded(books, BANK_B, 50_000)
    before = await balances(books)
    there = [payment(100 + i, BANK_A, BANK_B) for i in range(15)]
    back = [payment(200 + i, BANK_B, BANK_A) for i in range(15)]
    await asyncio.gather(*(send(network, p.debtor.ispb, p) for p in there + back))
    outcomes = await asyncio.gather(
        *(send(network, p.creditor.ispb, answer_of(p, Status.ACSP)) for p in there + back)
    )
    assert {(report(network, r).status, report(network, r).reason) for r in outcomes} == {(Status.ACSC, None)}
    after = await balances(books)
    moved = sum(p.amount for p in back) - sum(p.amount for p in there)
    assert (after[BANK_A] - before[BANK_A], after[BANK_B] - before[BANK_B]) == (moved, -moved)


async def test_a_poll_waits_for_a_message_and_answers_when_it_comes(network: Network) -> None:
    b = Inbox(network, BANK_B)
    await b.drain()
    paid = payment(100)

    async def later() -> None:
        await asyncio.sleep(0.5)
        await send(network, BANK_A, paid)

    started = time.monotonic()
    sender = asyncio.create_task(later())
    seen: list[str] = []
    while paid.end_to_end_id not in seen and time.monotonic() - started < 10:
        seen += [m.end_to_end_id for m in await b.take(wait=10)]
    await sender
    assert paid.end_to_end_id in seen
    assert time.monotonic() - started < 5  # answered when the message came, not at the end of the wait
