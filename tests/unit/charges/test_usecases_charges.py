"""The charge use cases on the in-memory fakes: create, cancel, expire, pay, read with what paid it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pixcore.accounts.rules import Balance, Counterpart, OpenedAccount
from pixcore.charges.cob import (
    CalendarFields,
    CashInRequest,
    Charge,
    ChargeFields,
    ChargeRequest,
    ChargeStatus,
    ValueFields,
)
from pixcore.charges.cob_service import (
    cancel_charge,
    create_cash_in,
    create_charge,
    expire_charges,
    get_charge,
    pay_charge,
    read_charge,
    sweep_expired_charges,
)
from pixcore.clock import ManualClock
from pixcore.errors import (
    AmountMismatch,
    ChargeNotFound,
    DuplicateCharge,
    DuplicateExternalId,
    InvalidIdentifier,
    InvalidPixKey,
    InvalidTransition,
)
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.refund_service import request_refund
from pixcore.refunds.rules import RefundRequest, RefundStatus
from pixcore.testing import InMemoryStore, PlainHasher, ledger_check
from pixinfra.event_payloads import payload
from tests.unit.usecase_helpers import OTHER_CPF, open_test_account

PREFIX = "pix.example.com/qr/v2/"
TXID = "T" * 30
PAYER = Counterpart("Outside Payer", OTHER_CPF, "12345678")


def request(original: str = "10.00", expiracao: int = 60, chave: str | None = None) -> ChargeRequest:
    return ChargeRequest.parse(
        ChargeFields(calendar=CalendarFields(expiracao), value=ValueFields(original), key=chave)
    )


@pytest.fixture
async def holder(store: InMemoryStore, hasher: PlainHasher) -> OpenedAccount:
    return await open_test_account(store, hasher, keys=("holder@example.com",))


async def _create(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, *, txid: str = TXID, **fields: Any
) -> Charge:
    return await create_charge(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        txid=txid,
        request=request(**fields),
        location_prefix=PREFIX,
    )


async def test_a_new_charge_is_active_and_names_the_first_key(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    charge = await _create(store, clock, holder)
    assert charge.status is ChargeStatus.ATIVA
    assert charge.revision == 0
    assert charge.pix_key == "holder@example.com"
    assert charge.location == PREFIX + charge.location_id
    assert charge.expires_at == clock.now() + timedelta(seconds=60)
    assert await get_charge(store.unit_of_work, account_id=holder.account.id, txid=TXID) == charge
    with pytest.raises(DuplicateCharge):
        await _create(store, clock, holder)
    with pytest.raises(InvalidIdentifier):
        await _create(store, clock, holder, txid="short")


async def test_chave_must_be_a_key_of_the_account(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, hasher: PlainHasher
) -> None:
    await open_test_account(store, hasher, document=OTHER_CPF, keys=("other@example.com",))
    with pytest.raises(InvalidPixKey, match="not a key of your account"):
        await _create(store, clock, holder, chave="other@example.com")
    with pytest.raises(InvalidPixKey):
        await _create(store, clock, holder, chave="not a key")
    assert store.charges == {}


async def test_paying_credits_once_and_writes_record_ledger_and_event(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    charge = await _create(store, clock, holder, original="12.34")
    paid = await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER)
    assert paid.amount == 1234
    assert paid.charge.status is ChargeStatus.CONCLUIDA
    assert store.balances[holder.account.id] == Balance(available=1234, blocked=0)
    record = store.transactions[paid.transaction_id]
    assert (record.type, record.status, record.amount) == (
        TransactionType.PAYMENT,
        TransactionStatus.CONFIRMED,
        1234,
    )
    assert record.counterpart == PAYER
    [event] = [payload(item.event) for item in store.outbox if payload(item.event)["type"] == "RECEIVE"]
    assert event["data"]["txId"] == TXID
    assert event["data"]["endToEndId"] == paid.end_to_end_id
    assert ledger_check(store) == []

    with pytest.raises(InvalidTransition):
        await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER)
    assert store.balances[holder.account.id] == Balance(available=1234, blocked=0)
    assert len(store.outbox) == 1


async def test_a_payment_that_fails_leaves_nothing(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    charge = await _create(store, clock, holder)
    commits = store.commits
    with pytest.raises(AmountMismatch):
        await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER, amount=1)
    with pytest.raises(ChargeNotFound):
        await pay_charge(store.unit_of_work, clock, location_id="f" * 32, payer=PAYER)
    with pytest.raises(ChargeNotFound):  # the sandbox of another account cannot pay it
        await pay_charge(
            store.unit_of_work,
            clock,
            location_id=charge.location_id,
            payer=PAYER,
            only_for=holder.account.id + 1,
        )
    assert store.commits == commits
    assert store.outbox == []
    assert store.charges[charge.id].status is ChargeStatus.ATIVA


async def test_cancel_then_nothing_more(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    charge = await _create(store, clock, holder)
    cancelled = await cancel_charge(store.unit_of_work, clock, account_id=holder.account.id, txid=TXID)
    assert (cancelled.status, cancelled.revision) == (ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR, 1)
    with pytest.raises(InvalidTransition):
        await cancel_charge(store.unit_of_work, clock, account_id=holder.account.id, txid=TXID)
    with pytest.raises(InvalidTransition):
        await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER)
    with pytest.raises(ChargeNotFound):
        await cancel_charge(store.unit_of_work, clock, account_id=holder.account.id + 1, txid=TXID)


async def test_expiry_refuses_payment_and_the_sweep_persists_it(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    charge = await _create(store, clock, holder, expiracao=60)
    clock.advance(59)
    assert await expire_charges(store.unit_of_work, clock) == 0
    clock.advance(1)
    with pytest.raises(InvalidTransition, match="REMOVIDA_PELO_PSP"):
        await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER)
    assert store.charges[charge.id].status is ChargeStatus.ATIVA  # shown expired, not yet written
    assert await expire_charges(store.unit_of_work, clock) == 1
    assert store.charges[charge.id].status is ChargeStatus.REMOVIDA_PELO_PSP
    assert await expire_charges(store.unit_of_work, clock) == 0


@pytest.mark.parametrize("count", [4, 5, 6])
async def test_the_whole_sweep_clears_a_backlog_larger_than_one_batch(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, count: int
) -> None:
    charges = [
        await _create(store, clock, holder, txid=f"{TXID[:-2]}{n:02d}", expiracao=60) for n in range(count)
    ]
    clock.advance(60)
    assert await sweep_expired_charges(store.unit_of_work, clock, limit=2) == count
    assert {store.charges[c.id].status for c in charges} == {ChargeStatus.REMOVIDA_PELO_PSP}
    assert await sweep_expired_charges(store.unit_of_work, clock, limit=2) == 0


def cash_in_request(external_id: str = "order-1", expiration: int = 300) -> CashInRequest:
    return CashInRequest.parse(
        amount=25,
        description="Pedido",
        external_id=external_id,
        expiration=expiration,
        generate_qr_code=False,
        payer_name="Ana",
        payer_document=OTHER_CPF,
        additional_info={"loja": "7"},
    )


async def test_a_cash_in_has_a_pending_record_that_payment_confirms(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    created = await create_cash_in(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        request=cash_in_request(),
        location_prefix=PREFIX,
    )
    assert created.transaction_id is not None
    assert store.transactions[created.transaction_id].status is TransactionStatus.PENDING
    assert store.transactions[created.transaction_id].external_id == "order-1"
    with pytest.raises(DuplicateExternalId):
        await create_cash_in(
            store.unit_of_work,
            clock,
            account_id=holder.account.id,
            request=cash_in_request(),
            location_prefix=PREFIX,
        )
    paid = await pay_charge(store.unit_of_work, clock, location_id=created.location_id, payer=PAYER)
    assert paid.transaction_id == created.transaction_id
    record = store.transactions[created.transaction_id]
    assert (record.status, record.end_to_end_id) == (TransactionStatus.CONFIRMED, paid.end_to_end_id)
    assert store.balances[holder.account.id].available == 2500
    assert ledger_check(store) == []


async def test_an_expired_cash_in_record_becomes_an_error(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    created = await create_cash_in(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        request=cash_in_request("order-2"),
        location_prefix=PREFIX,
    )
    clock.advance(300)
    assert await expire_charges(store.unit_of_work, clock) == 1
    assert created.transaction_id is not None
    assert store.transactions[created.transaction_id].status is TransactionStatus.ERROR


async def _refund(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, e2e: str, rid: str
) -> None:
    await request_refund(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        end_to_end_id=e2e,
        refund_id=rid,
        request=RefundRequest.parse(amount="1.00"),
        ispb="12345678",
        delay=timedelta(seconds=60),
    )


async def test_a_paid_charge_reads_with_its_pix_and_that_pix_s_refunds(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    charge = await _create(store, clock, holder, original="12.34")
    unpaid = await read_charge(store.unit_of_work, account_id=holder.account.id, txid=TXID)
    assert (unpaid.charge, unpaid.pix) == (charge, ())

    clock.advance(5)
    paid = await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER)
    clock.advance(10)
    await _refund(store, clock, holder, paid.end_to_end_id, "first")
    clock.advance(10)
    await _refund(store, clock, holder, paid.end_to_end_id, "second")

    view = await read_charge(store.unit_of_work, account_id=holder.account.id, txid=TXID)
    assert view.charge.status is ChargeStatus.CONCLUIDA
    [pix] = view.pix
    assert (pix.end_to_end_id, pix.tx_id, pix.amount) == (paid.end_to_end_id, TXID, 1234)
    assert pix.received_at == charge.created_at + timedelta(seconds=5)
    assert [(r.refund_id, r.amount, r.status) for r in pix.refunds] == [
        ("first", 100, RefundStatus.EM_PROCESSAMENTO),
        ("second", 100, RefundStatus.EM_PROCESSAMENTO),
    ]
    with pytest.raises(ChargeNotFound):
        await read_charge(store.unit_of_work, account_id=holder.account.id, txid="U" * 30)


async def test_a_paid_cash_in_shows_the_time_it_was_paid_not_the_time_its_record_was_made(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    created = await create_cash_in(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        request=cash_in_request(),
        location_prefix=PREFIX,
    )
    pending = await read_charge(store.unit_of_work, account_id=holder.account.id, txid=created.txid)
    assert pending.pix == ()  # its PENDING record is no PIX yet
    clock.advance(120)
    paid = await pay_charge(store.unit_of_work, clock, location_id=created.location_id, payer=PAYER)
    [pix] = (await read_charge(store.unit_of_work, account_id=holder.account.id, txid=created.txid)).pix
    assert (pix.end_to_end_id, pix.amount, pix.refunds) == (paid.end_to_end_id, 2500, ())
    assert pix.received_at == created.created_at + timedelta(seconds=120)
