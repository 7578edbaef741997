"""Group commit of charge payments on the fakes: one receiving account's charges paid at once, in one
unit of work, each payment answered as it would have been alone."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from pixcore.accounts.rules import Balance, Counterpart
from pixcore.business_days import next_business_day
from pixcore.charges.cob import (
    CalendarFields,
    CashInRequest,
    ChargeFields,
    ChargeKind,
    ChargeRequest,
    DebtorFields,
    ValueFields,
)
from pixcore.charges.cob_service import (
    DUE_KINDS,
    IMMEDIATE_KINDS,
    ChargePayment,
    create_cash_in,
    create_charge,
    pay_charge,
)
from pixcore.charges.cobv import (
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    RateFields,
    amount_breakdown,
    payer_day,
)
from pixcore.charges.cobv_requests import DueChargeFields, DueChargeRequest
from pixcore.charges.cobv_service import create_due_charge
from pixcore.clock import ManualClock
from pixcore.group_commit.charge_payments import ChargePaymentGroupCommit
from pixcore.money import format_amount_string
from pixcore.records import TransactionStatus
from pixcore.testing import InMemoryStore, InMemoryTransactions, PlainHasher, StaticResolver, ledger_check
from pixcore.webhooks.key_webhook_service import parse_key_webhook, set_key_webhook
from pixinfra.event_payloads import payload, standard_components
from tests.unit.usecase_helpers import OTHER_CNPJ, OTHER_CPF, open_test_account

PREFIX = "pix.example.com/qr/v2/"
PAYER = Counterpart("Outside Payer", OTHER_CPF, "12345678")
FIXED_TXIDS = frozenset(letter * 30 for letter in "ABCD")


@dataclass(frozen=True)
class Scene:
    store: InMemoryStore
    holder: int
    other: int
    locations: list[str]
    """Paid in this order: payable, already paid, wrong amount, another account's, a cash-in, the
    first again."""
    amounts: list[int | None]


def _request(original: str) -> ChargeRequest:
    return ChargeRequest.parse(ChargeFields(calendar=CalendarFields(3600), value=ValueFields(original)))


async def _scene(clock: ManualClock, *, hooked: bool = False) -> Scene:
    """``hooked``: the holder's key has a webhook of the standard (a PIX event per payment)."""
    store, hasher = InMemoryStore(clock=clock), PlainHasher()
    holder = (await open_test_account(store, hasher, keys=("holder@example.com",))).account.id
    if hooked:
        await set_key_webhook(
            store.unit_of_work,
            clock,
            StaticResolver({"hooks.example.com": ["203.0.114.10"]}),
            account_id=holder,
            request=parse_key_webhook(key="holder@example.com", webhook_url="https://hooks.example.com/a"),
            allow_private=False,
        )
    other = (
        await open_test_account(store, hasher, name="Outra", document=OTHER_CNPJ, keys=("outra@example.com",))
    ).account.id

    async def charge(account_id: int, txid: str, original: str) -> str:
        created = await create_charge(
            store.unit_of_work,
            clock,
            account_id=account_id,
            txid=txid,
            request=_request(original),
            location_prefix=PREFIX,
        )
        return created.location_id

    payable = await charge(holder, "A" * 30, "10.00")
    paid = await charge(holder, "B" * 30, "20.00")
    await pay_charge(store.unit_of_work, clock, location_id=paid, payer=PAYER)
    mismatch = await charge(holder, "C" * 30, "30.00")
    foreign = await charge(other, "D" * 30, "40.00")
    cash_in = await create_cash_in(
        store.unit_of_work,
        clock,
        account_id=holder,
        request=CashInRequest.parse(
            amount=25,
            description="Pedido",
            external_id="order-1",
            expiration=300,
            generate_qr_code=False,
            payer_name="Ana",
            payer_document=OTHER_CPF,
            additional_info={},
        ),
        location_prefix=PREFIX,
    )
    return Scene(
        store,
        holder,
        other,
        [payable, paid, mismatch, foreign, cash_in.location_id, payable],
        [None, None, 1, None, None, None],
    )


def _outcome(result: ChargePayment | BaseException) -> tuple[object, ...]:
    if isinstance(result, ChargePayment):
        charge = result.charge
        txid = "random" if charge.kind is ChargeKind.CASH_IN else charge.txid  # a cash-in's is new
        return ("paid", txid, result.amount, charge.status, charge.kind)
    return (type(result).__name__, str(result))


def _event(account_id: int, event: dict[str, Any]) -> tuple[object, ...]:
    """What an outbox event says, its new ids and times aside."""
    data = event.get("data", {})
    if "pix" in data:
        pix = data["pix"][0]
        return (account_id, "PIX", pix["valor"], _stable(pix.get("txid")), pix["chave"])
    return (account_id, event["type"], data["payment"]["amount"], _stable(data.get("txId")))


def _stable(txid: str | None) -> str | None:
    """A txid the scene chose, or the cash-in's (new on every run) by its kind."""
    return txid if txid is None or txid in FIXED_TXIDS else "cash-in"


def _books(scene: Scene) -> tuple[object, ...]:
    store = scene.store
    events = sorted(_event(item.account_id, payload(item.event)) for item in store.outbox)
    records = sorted((r.account_id, r.amount, r.status) for r in store.transactions.values())
    charges = sorted((c.kind, c.amount, c.status) for c in store.charges.values())
    return (dict(store.balances), events, records, charges)


async def _grouped(scene: Scene, clock: ManualClock, size: int = 16) -> list[ChargePayment | BaseException]:
    group_commit = ChargePaymentGroupCommit(
        scene.store.unit_of_work, clock, size=size, window=timedelta(milliseconds=50)
    )
    return list(
        await asyncio.gather(
            *(
                group_commit.pay(
                    location_id=location,
                    payer=PAYER,
                    amount=amount,
                    only_for=scene.holder,
                    kinds=IMMEDIATE_KINDS,
                )
                for location, amount in zip(scene.locations, scene.amounts, strict=True)
            ),
            return_exceptions=True,
        )
    )


async def _alone(scene: Scene, clock: ManualClock) -> list[ChargePayment | BaseException]:
    outcomes: list[ChargePayment | BaseException] = []
    for location, amount in zip(scene.locations, scene.amounts, strict=True):
        try:
            outcomes.append(
                await pay_charge(
                    scene.store.unit_of_work,
                    clock,
                    location_id=location,
                    payer=PAYER,
                    amount=amount,
                    only_for=scene.holder,
                    kinds=IMMEDIATE_KINDS,
                )
            )
        except Exception as error:  # noqa: BLE001 - compared with the group's answer
            outcomes.append(error)
    return outcomes


async def test_a_mixed_group_answers_and_books_as_one_by_one(clock: ManualClock) -> None:
    grouped, alone = await _scene(clock), await _scene(clock)
    commits = grouped.store.commits
    got = await _grouped(grouped, clock)
    expected = await _alone(alone, clock)
    assert [_outcome(r) for r in got] == [_outcome(r) for r in expected]
    assert [o[0] for o in map(_outcome, got)] == [
        "paid",
        "InvalidTransition",
        "AmountMismatch",
        "ChargeNotFound",
        "paid",
        "InvalidTransition",
    ]
    assert grouped.store.commits == commits + 1  # the group; the repeat was refused alone
    assert _books(grouped) == _books(alone)
    assert grouped.store.balances[grouped.holder] == Balance(20_00 + 10_00 + 25_00, 0)
    assert grouped.store.balances[grouped.other] == Balance(0, 0)
    paid = [r for r in got if isinstance(r, ChargePayment)]
    cash_in = next(p for p in paid if p.charge.kind is ChargeKind.CASH_IN)
    record = grouped.store.transactions[cash_in.transaction_id]
    assert (record.status, record.end_to_end_id) == (TransactionStatus.CONFIRMED, cash_in.end_to_end_id)
    assert cash_in.transaction_id == cash_in.charge.transaction_id  # its PENDING record, confirmed
    assert len({p.end_to_end_id for p in paid}) == len(paid)
    assert ledger_check(grouped.store) == []


async def test_a_hooked_key_gets_its_pix_event_per_payment_as_alone(clock: ManualClock) -> None:
    grouped, alone = await _scene(clock, hooked=True), await _scene(clock, hooked=True)
    got = await _grouped(grouped, clock)
    expected = await _alone(alone, clock)
    assert [_outcome(r) for r in got] == [_outcome(r) for r in expected]
    assert _books(grouped) == _books(alone)
    pix = [
        payload(item.event) for item in grouped.store.outbox if "pix" in payload(item.event).get("data", {})
    ]
    paid = [r for r in got if isinstance(r, ChargePayment)]
    assert len(pix) == 1 + len(paid)  # the charge paid while setting up, then this group's
    sent = {event["data"]["pix"][0]["endToEndId"] for event in pix}
    assert {p.end_to_end_id for p in paid} <= sent


async def test_size_one_is_the_ungrouped_path(clock: ManualClock) -> None:
    grouped, alone = await _scene(clock), await _scene(clock)
    commits = grouped.store.commits
    got = await _grouped(grouped, clock, size=1)
    expected = await _alone(alone, clock)
    assert [_outcome(r) for r in got] == [_outcome(r) for r in expected]
    assert grouped.store.commits == commits + 2
    assert _books(grouped) == _books(alone)


async def test_a_failed_group_of_charge_payments_is_paid_one_by_one(
    clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: InMemoryTransactions, records: object) -> list[int]:
        raise RuntimeError("the group statement failed")

    grouped, alone = await _scene(clock), await _scene(clock)
    commits = grouped.store.commits
    expected = await _alone(alone, clock)
    monkeypatch.setattr(InMemoryTransactions, "add_many", broken)
    got = await _grouped(grouped, clock)
    assert [_outcome(r) for r in got] == [_outcome(r) for r in expected]
    assert grouped.store.commits == commits + 2  # each payable charge alone
    assert _books(grouped) == _books(alone)
    assert ledger_check(grouped.store) == []


async def _late_cobv(clock: ManualClock) -> tuple[InMemoryStore, int, str, DueTerms]:
    """A store whose holder has a webhook on its key and a ``cobv`` (fine and interest) two days
    late at ``clock``'s new now: the store, the holder, the charge's location and its terms."""
    store, hasher = InMemoryStore(clock=clock), PlainHasher()
    holder = (await open_test_account(store, hasher, keys=("holder@example.com",))).account.id
    await set_key_webhook(
        store.unit_of_work,
        clock,
        StaticResolver({"hooks.example.com": ["203.0.114.10"]}),
        account_id=holder,
        request=parse_key_webhook(key="holder@example.com", webhook_url="https://hooks.example.com/a"),
        allow_private=False,
    )
    due = next_business_day(payer_day(clock.now()) + timedelta(days=3))
    fields = DueChargeFields(
        calendar=DueCalendarFields(due.isoformat(), 30),
        value=DueValueFields(original="200.00", fine=RateFields(2, "2.00"), interest=RateFields(2, "1.00")),
        debtor=DebtorFields(cpf=OTHER_CPF, name="João Souza"),
    )
    request = DueChargeRequest.parse(fields, now=clock.now())
    charge = await create_due_charge(
        store.unit_of_work, clock, account_id=holder, txid="E" * 30, request=request, location_prefix=PREFIX
    )
    assert charge.location_id is not None
    return store, holder, charge.location_id, request.terms


async def test_a_late_cobv_keeps_the_parts_of_its_amount_grouped_or_alone(clock: ManualClock) -> None:
    grouped, holder, location, terms = await _late_cobv(clock)
    alone, _, alone_location, _ = await _late_cobv(clock)
    clock.advance((terms.effective_due_date() - payer_day(clock.now())).days * 86_400 + 2 * 86_400)
    parts = amount_breakdown(terms, payer_day(clock.now()))
    assert parts.fine > 0
    assert parts.interest > 0

    group_commit = ChargePaymentGroupCommit(
        grouped.unit_of_work, clock, size=4, window=timedelta(milliseconds=5)
    )
    by_group = await group_commit.pay(location_id=location, payer=PAYER, only_for=holder, kinds=DUE_KINDS)
    by_itself = await pay_charge(
        alone.unit_of_work, clock, location_id=alone_location, payer=PAYER, kinds=DUE_KINDS
    )

    for store, paid in ((grouped, by_group), (alone, by_itself)):
        assert (paid.amount, paid.charge.paid_parts) == (parts.final, parts)
        assert store.charges[paid.charge.id].paid_parts == parts
        [pix] = [
            payload(item.event)["data"]["pix"][0]
            for item in store.outbox
            if "pix" in payload(item.event)["data"]
        ]
        assert pix["componentesValor"] == standard_components(parts)
        assert pix["valor"] == format_amount_string(parts.final)
