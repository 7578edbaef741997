"""The contract of ``ChargeRepository``: charges and cash-ins, by txid, location and external id.

Whether ``lock`` waits for another writer is PostgreSQL's alone (the fake runs one unit at a time
on a row): the charge payment races of tests/e2e/charges/test_charges.py cover it.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta

import pytest

from pixcore.amount_parts import CashPart, DueAmount
from pixcore.charges.cob import Charge, ChargeKind, ChargeStatus, Debtor, NewCharge
from pixcore.charges.cobv import (
    DiscountDateFields,
    DiscountFields,
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    RateFields,
    parse_due_terms,
    payer_day,
)
from pixcore.charges.withdrawal import AgentModality, Withdrawal, WithdrawalKind
from pixcore.documents import DocumentKind
from pixcore.errors import DuplicateCharge, DuplicateExternalId
from pixcore.queries.standard import parse_charge_query
from tests.contract.conftest import Backend
from tests.contract.rows import FAR, T0, add_account, e2e, receipt
from tests.support import random_cpf


def _new_charge(
    account_id: int, *, created_at: datetime = FAR, expiration: int = 3600, **changes: object
) -> NewCharge:
    """A charge created at ``created_at``: by default one that no expiry worker of the run reaches,
    for tests that commit it."""
    location_id = uuid.uuid4().hex
    charge = NewCharge(
        account_id=account_id,
        txid=uuid.uuid4().hex,
        kind=ChargeKind.COB,
        created_at=created_at,
        expiration=expiration,
        amount=12_345,
        modality=0,
        pix_key="shop@example.com",
        location_id=location_id,
        location=f"pix.example.com/qr/v2/{location_id}",
        br_code="000201010212",
        payer_request="Order 42",
        debtor=Debtor("Fulano de Tal", random_cpf(), DocumentKind.CPF),
        info=(("Order", "42"), ("Table", "7")),
        correlation_id=uuid.uuid4(),
    )
    return dataclasses.replace(charge, **changes)  # type: ignore[arg-type]


def _stored(new: NewCharge, charge_id: int, loc_id: int | None) -> Charge:
    """``new`` as stored: a charge that named no location is at a new one (its own ``loc_id``)."""
    assert loc_id is not None
    if new.loc_id is not None:
        assert loc_id == new.loc_id
    fields = {f.name: getattr(new, f.name) for f in dataclasses.fields(new)} | {"loc_id": loc_id}
    return Charge(**fields, id=charge_id, updated_at=new.created_at)


async def test_a_charge_reads_back_the_same_by_txid_location_and_lock(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        new = _new_charge(account.id)
        charge = await tx.charges.add(new)
        assert charge == _stored(new, charge.id, charge.loc_id)
        assert (charge.status, charge.revision, charge.paid_at) == (ChargeStatus.ATIVA, 0, None)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.charges.get(account.id, new.txid) == charge
        assert await tx.charges.get_by_location(new.location_id) == charge
        assert await tx.charges.lock(account.id, new.txid) == charge
        assert await tx.charges.lock_by_location(new.location_id) == charge


async def test_a_charge_without_debtor_or_info_reads_back_the_same(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        new = _new_charge(account.id, debtor=None, info=(), payer_request=None, correlation_id=None)
        charge = await tx.charges.add(new)
        assert await tx.charges.get(account.id, new.txid) == charge == _stored(new, charge.id, charge.loc_id)


async def test_unknown_charges_are_none(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        new = _new_charge(account.id)
        await tx.charges.add(new)
        assert await tx.charges.get(other.id, new.txid) is None  # another account's txid
        assert await tx.charges.lock(other.id, new.txid) is None
        assert await tx.charges.get(account.id, uuid.uuid4().hex) is None
        assert await tx.charges.get_by_location(uuid.uuid4().hex) is None
        assert await tx.charges.lock_by_location(uuid.uuid4().hex) is None
        assert await tx.charges.get_by_external_id(account.id, "nothing") is None


async def test_recent_gives_the_accounts_own_charges_newest_first_up_to_the_limit(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        made = [await tx.charges.add(_new_charge(account.id)) for _ in range(3)]
        foreign = await tx.charges.add(_new_charge(other.id))
        assert await tx.charges.recent(account.id, 10) == [charge.line for charge in made[::-1]]
        assert await tx.charges.recent(account.id, 2) == [made[2].line, made[1].line]
        assert await tx.charges.recent(other.id, 10) == [foreign.line]
        priced = await tx.charges.add(_new_charge(account.id, amount=4_290))
        assert await tx.charges.recent(account.id, 10, amount=4_290) == [priced.line]  # the search's
        assert await tx.charges.recent(other.id, 10, amount=4_290) == []
        assert len(await tx.charges.recent(account.id, 10, amount=12_345)) == 3
        line = made[0].line
        assert (line.txid, line.kind, line.status, line.amount) == (
            made[0].txid,
            made[0].kind,
            made[0].status,
            made[0].amount,
        )
        assert (line.created_at, line.expires_at) == (made[0].created_at, made[0].expires_at)


async def test_a_txid_is_unique_per_account(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        first = await tx.charges.add(_new_charge(account.id))
        await tx.commit()

    async with backend.uow() as tx:
        with pytest.raises(DuplicateCharge):
            await tx.charges.add(_new_charge(account.id, txid=first.txid))
        # The refusal left the unit usable; the same txid is free for another account.
        theirs = await tx.charges.add(_new_charge(other.id, txid=first.txid))
        assert await tx.charges.get(other.id, first.txid) == theirs
        assert await tx.charges.get(account.id, first.txid) == first


async def test_a_cash_in_is_found_by_its_external_id_which_is_unique_per_account(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        transaction_id = await tx.transactions.add(receipt(account.id))
        new = _new_charge(
            account.id, kind=ChargeKind.CASH_IN, external_id="order-1", transaction_id=transaction_id
        )
        cash_in = await tx.charges.add(new)
        assert cash_in == _stored(new, cash_in.id, cash_in.loc_id)
        assert await tx.charges.get_by_external_id(account.id, "order-1") == cash_in
        assert await tx.charges.get_by_external_id(other.id, "order-1") is None

        with pytest.raises(DuplicateExternalId):
            await tx.charges.add(
                dataclasses.replace(new, txid=uuid.uuid4().hex, location_id=uuid.uuid4().hex)
            )
        other_transaction = await tx.transactions.add(receipt(other.id))
        theirs = dataclasses.replace(
            new, account_id=other.id, location_id=uuid.uuid4().hex, transaction_id=other_transaction
        )
        assert (await tx.charges.add(theirs)).account_id == other.id


async def test_a_charge_of_a_missing_account_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.charges.add(_new_charge(-1))


async def test_an_update_stores_the_status_and_when_paid_the_payment(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        charge = await tx.charges.add(_new_charge(account.id))
        later = T0 + timedelta(minutes=5)
        await tx.charges.update(charge.id, status=ChargeStatus.ATIVA, revision=1, at=later)
        revised = await tx.charges.get(account.id, charge.txid)
        assert revised == dataclasses.replace(charge, revision=1, updated_at=later)

        paid_at = T0 + timedelta(minutes=9)
        transaction_id = await tx.transactions.add(receipt(account.id))
        end_to_end_id = e2e()
        await tx.charges.update(
            charge.id,
            status=ChargeStatus.CONCLUIDA,
            revision=1,
            at=paid_at,
            transaction_id=transaction_id,
            paid_end_to_end_id=end_to_end_id,
        )
        paid = dataclasses.replace(
            revised,
            status=ChargeStatus.CONCLUIDA,
            updated_at=paid_at,
            transaction_id=transaction_id,
            paid_end_to_end_id=end_to_end_id,
            paid_at=paid_at,
        )
        assert await tx.charges.get(account.id, charge.txid) == paid
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.charges.lock_by_location(charge.location_id) == paid


async def test_an_update_without_payment_keeps_the_one_stored(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        transaction_id = await tx.transactions.add(receipt(account.id))
        new = _new_charge(
            account.id, kind=ChargeKind.CASH_IN, external_id="order-2", transaction_id=transaction_id
        )
        charge = await tx.charges.add(new)
        at = T0 + timedelta(minutes=1)
        await tx.charges.update(charge.id, status=ChargeStatus.REMOVIDA_PELO_PSP, revision=0, at=at)
        assert await tx.charges.get(account.id, charge.txid) == dataclasses.replace(
            charge, status=ChargeStatus.REMOVIDA_PELO_PSP, updated_at=at
        )


async def test_lock_expired_gives_the_active_charges_past_their_expiry_oldest_expiry_first(
    backend: Backend,
) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        late = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=300))
        early = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=60))
        middle = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=120))
        not_yet = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=3600))
        paid = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=30))
        await tx.charges.update(
            paid.id, status=ChargeStatus.CONCLUIDA, revision=0, at=T0 + timedelta(seconds=10)
        )

        now = T0 + timedelta(seconds=300)  # ``late`` expires exactly now: it is included
        expired = await tx.charges.lock_expired(now, 10)
        assert [c.id for c in expired] == [early.id, middle.id, late.id]
        assert expired[0] == early
        assert [c.id for c in await tx.charges.lock_expired(now, 2)] == [early.id, middle.id]
        assert not_yet.id not in [
            c.id for c in await tx.charges.lock_expired(T0 + timedelta(seconds=3599), 10)
        ]
        assert await tx.charges.lock_expired(T0, 10) == []


async def test_lock_expired_skips_the_charges_another_unit_holds(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        first = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=60))
        second = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=120))
        third = await tx.charges.add(_new_charge(account.id, created_at=T0, expiration=180))
        await tx.commit()

    now = T0 + timedelta(seconds=180)
    try:
        async with backend.uow() as one, backend.uow() as other:
            assert [c.id for c in await one.charges.lock_expired(now, 1)] == [first.id]
            assert await one.charges.lock(account.id, third.txid) == third
            # LIMIT counts the rows not skipped: the other unit gets the next one.
            assert [c.id for c in await other.charges.lock_expired(now, 5)] == [second.id]
        async with backend.uow() as later:  # the locks ended with their units
            assert [c.id for c in await later.charges.lock_expired(now, 5)] == [first.id, second.id, third.id]
    finally:  # leave nothing expired behind for the run's workers
        async with backend.uow() as tx:
            for charge in (first, second, third):
                await tx.charges.update(charge.id, status=ChargeStatus.REMOVIDA_PELO_PSP, revision=0, at=now)
            await tx.commit()


# -- the standard API's list and revisions ------------------------------------------


async def test_search_lists_an_accounts_charges_in_its_window_oldest_first_by_page(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        made = [
            await tx.charges.add(_new_charge(account.id, created_at=T0 + timedelta(minutes=n)))
            for n in range(3)
        ]
        plain = await tx.charges.add(
            _new_charge(account.id, created_at=T0 + timedelta(minutes=3), debtor=None)
        )
        await tx.charges.add(_new_charge(other.id, created_at=T0))
        await tx.charges.update(
            made[1].id, status=ChargeStatus.CONCLUIDA, revision=0, at=T0 + timedelta(hours=1)
        )

        async def ids(now: datetime = T0, **params: str) -> tuple[int, list[int]]:
            query = parse_charge_query(
                inicio=T0.isoformat(), fim=(T0 + timedelta(minutes=3)).isoformat(), **params
            )
            total, found = await tx.charges.search(account.id, query, now)
            return total, [c.id for c in found]

        everything = [c.id for c in made] + [plain.id]
        assert await ids() == (4, everything)
        assert await ids(size="3", page="1") == (4, [plain.id])
        assert await ids(size="3", page="2") == (4, [])
        assert await ids(cpf=made[0].debtor.document if made[0].debtor else "") == (1, [made[0].id])
        assert await ids(status="CONCLUIDA") == (1, [made[1].id])
        assert await ids(status="ATIVA") == (3, [made[0].id, made[2].id, plain.id])
        later = T0 + timedelta(minutes=61)  # made[0] (and only it) past its hour
        assert await ids(later, status="ATIVA") == (2, [made[2].id, plain.id])
        assert await ids(later, status="REMOVIDA_PELO_PSP") == (1, [made[0].id])
        assert await ids(location_present="false") == (0, [])


async def test_a_revised_charge_reads_back_with_its_new_fields(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        charge = await tx.charges.add(_new_charge(account.id))
        revised = dataclasses.replace(
            charge,
            expiration=7200,
            amount=999,
            modality=1,
            pix_key="other@example.com",
            payer_request=None,
            debtor=Debtor("Empresa", "11222333000181", DocumentKind.CNPJ),
            info=(("a", "b"),),
            br_code="000201010212X",
            revision=1,
            updated_at=charge.created_at + timedelta(seconds=5),
        )
        await tx.charges.revise(revised)
        assert await tx.charges.get(account.id, charge.txid) == revised
        assert revised.expires_at == charge.created_at + timedelta(seconds=7200)


def _due_terms(created_at: datetime, original: int = 12_345) -> DueTerms:
    calendar = DueCalendarFields((created_at.date() + timedelta(days=5)).isoformat(), 10)
    value = DueValueFields(
        original=f"{original // 100}.{original % 100:02d}",
        fine=RateFields(2, "2.00"),
        interest=RateFields(1, "0.33"),
        discount=DiscountFields(1, dates=(DiscountDateFields(created_at.date().isoformat(), "1.00"),)),
    )
    return parse_due_terms(calendar, value, today=payer_day(created_at))


async def test_a_cobv_reads_back_with_its_terms_and_is_listed_apart(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        terms = _due_terms(T0)
        new = _new_charge(account.id, created_at=T0, kind=ChargeKind.COBV, due=terms, amount=terms.original)
        cobv = await tx.charges.add(new)
        cob = await tx.charges.add(_new_charge(account.id, created_at=T0))
        assert cobv == _stored(new, cobv.id, cobv.loc_id)
        assert await tx.charges.get(account.id, new.txid) == cobv
        assert await tx.charges.lock_by_location(new.location_id) == cobv

        query = parse_charge_query(inicio=T0.isoformat(), fim=(T0 + timedelta(minutes=1)).isoformat())
        assert [c.id for c in (await tx.charges.search(account.id, query, T0))[1]] == [cob.id]
        assert [c.id for c in (await tx.charges.search(account.id, query, T0, due=True))[1]] == [cobv.id]

        revised_terms = _due_terms(T0, 50_00)
        revised = dataclasses.replace(cobv, due=revised_terms, amount=50_00, revision=1, updated_at=T0)
        await tx.charges.revise(revised)
        assert await tx.charges.get(account.id, new.txid) == revised

        assert await tx.charges.revision(cobv.id, 0) == cobv
        assert await tx.charges.revision(cobv.id, 1) == revised


def _as_kept(charge: Charge) -> Charge:
    """A revision as kept: its fields and status, without payment."""
    return dataclasses.replace(charge, transaction_id=None, paid_end_to_end_id=None, paid_at=None)


async def test_each_revision_of_a_charge_is_kept_as_it_was_written(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        charge = await tx.charges.add(_new_charge(account.id))
        other = await tx.charges.add(_new_charge(account.id))
        await tx.commit()

    revised = dataclasses.replace(
        charge,
        amount=999,
        pix_key="other@example.com",
        payer_request="Order 43",
        info=(),
        br_code="000201010212X",
        revision=1,
        updated_at=charge.created_at + timedelta(seconds=5),
    )
    cancelled_at = charge.created_at + timedelta(seconds=9)
    async with backend.uow() as tx:
        await tx.charges.revise(revised)
        await tx.commit()
    async with backend.uow() as tx:
        status = ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR
        await tx.charges.update(charge.id, status=status, revision=2, at=cancelled_at)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.charges.revision(charge.id, 0) == charge
        assert await tx.charges.revision(charge.id, 1) == revised
        assert await tx.charges.revision(charge.id, 2) == dataclasses.replace(
            revised, status=ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR, revision=2, updated_at=cancelled_at
        )
        assert await tx.charges.revision(charge.id, 3) is None
        assert await tx.charges.revision(other.id, 1) is None
        assert await tx.charges.revision(other.id, 0) == other


async def test_a_payment_or_an_expiry_is_no_revision(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        paid = await tx.charges.add(_new_charge(account.id))
        lapsed = await tx.charges.add(_new_charge(account.id))
        transaction_id = await tx.transactions.add(receipt(account.id))
        at = FAR + timedelta(minutes=1)
        await tx.charges.update(
            paid.id,
            status=ChargeStatus.CONCLUIDA,
            revision=0,
            at=at,
            transaction_id=transaction_id,
            paid_end_to_end_id=e2e(),
        )
        await tx.charges.update(lapsed.id, status=ChargeStatus.REMOVIDA_PELO_PSP, revision=0, at=at)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.charges.revision(paid.id, 0) == _as_kept(paid)
        assert await tx.charges.revision(lapsed.id, 0) == lapsed
        assert await tx.charges.revision(paid.id, 1) is None
        assert await tx.charges.revision(lapsed.id, 1) is None


async def test_a_revision_rolled_back_is_not_kept(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        charge = await tx.charges.add(_new_charge(account.id))
        await tx.commit()
    async with backend.uow() as tx:
        await tx.charges.revise(dataclasses.replace(charge, amount=1, revision=1))
        assert await tx.charges.revision(charge.id, 1) is not None  # the unit sees its own write
    async with backend.uow() as tx:
        assert await tx.charges.get(account.id, charge.txid) == charge
        assert await tx.charges.revision(charge.id, 1) is None


async def test_a_debtors_email_and_address_read_back_and_each_revision_keeps_its_own(
    backend: Backend,
) -> None:
    debtor = Debtor(
        "Fulano de Tal",
        random_cpf(),
        DocumentKind.CPF,
        email="fulano@example.com",
        street="Rua das Flores, 12",
        city="Recife",
        state="PE",
        postal_code="50010000",
    )
    async with backend.uow() as tx:
        account = await add_account(tx)
        new = _new_charge(account.id, debtor=debtor)
        charge = await tx.charges.add(new)
        assert charge == _stored(new, charge.id, charge.loc_id)
        moved = dataclasses.replace(
            debtor, email=None, street="Avenida Boa Viagem, 500", postal_code="51011000"
        )
        revised = dataclasses.replace(charge, debtor=moved, revision=1, updated_at=charge.created_at)
        await tx.charges.revise(revised)
        assert await tx.charges.get(account.id, new.txid) == revised
        assert await tx.charges.revision(charge.id, 0) == charge
        assert await tx.charges.revision(charge.id, 1) == revised


async def test_a_cobvs_payment_keeps_the_parts_of_its_amount_and_its_receipt_carries_them(
    backend: Backend,
) -> None:
    parts = DueAmount(original=12_345, rebate=0, discount=0, fine=247, interest=41)
    async with backend.uow() as tx:
        account = await add_account(tx)
        terms = _due_terms(T0)
        cobv = await tx.charges.add(
            _new_charge(account.id, created_at=T0, kind=ChargeKind.COBV, due=terms, amount=terms.original)
        )
        cob = await tx.charges.add(_new_charge(account.id, created_at=T0))
        transaction_id = await tx.transactions.add(receipt(account.id, parts.final))
        paid_at = T0 + timedelta(minutes=3)
        await tx.charges.update(
            cobv.id,
            status=ChargeStatus.CONCLUIDA,
            revision=0,
            at=paid_at,
            transaction_id=transaction_id,
            paid_end_to_end_id=e2e(),
            paid_parts=parts,
        )
        paid = await tx.charges.get(account.id, cobv.txid)
        assert paid is not None
        assert paid.paid_parts == parts
        assert (await tx.charges.revision(cobv.id, 0)) == _as_kept(cobv)  # a payment is no revision
        original = await tx.refunds.original_of(transaction_id)
        assert original is not None
        assert (original.tx_id, original.amount, original.amount_parts) == (cobv.txid, parts.final, parts)
        found = await tx.refunds.find_received(account.id, original.end_to_end_id)
        assert found is not None
        assert found.amount_parts == parts

        other = await tx.transactions.add(receipt(account.id))
        with pytest.raises(backend.refused):  # only a paid cobv keeps parts
            await tx.charges.update(
                cob.id,
                status=ChargeStatus.CONCLUIDA,
                revision=0,
                at=paid_at,
                transaction_id=other,
                paid_end_to_end_id=e2e(),
                paid_parts=parts,
            )


async def test_a_trocos_payment_keeps_its_purchase_and_cash_and_its_receipt_carries_them(
    backend: Backend,
) -> None:
    withdrawal = Withdrawal(WithdrawalKind.TROCO, 5_00, 1, AgentModality.AGTOT, "1234567A")
    cash = CashPart(kind="troco", amount=7_50, agent="AGTOT", facilitator="1234567A")
    parts = DueAmount(original=10_00, rebate=0, discount=0, fine=0, interest=0, cash=cash)
    async with backend.uow() as tx:
        account = await add_account(tx)
        troco = await tx.charges.add(_new_charge(account.id, amount=10_00, withdrawal=withdrawal))
        transaction_id = await tx.transactions.add(receipt(account.id, parts.final))
        await tx.charges.update(
            troco.id,
            status=ChargeStatus.CONCLUIDA,
            revision=0,
            at=T0,
            transaction_id=transaction_id,
            paid_end_to_end_id=e2e(),
            paid_parts=parts,
        )
        paid = await tx.charges.get(account.id, troco.txid)
        assert paid is not None
        assert paid.paid_parts == parts
        original = await tx.refunds.original_of(transaction_id)
        assert original is not None
        assert (original.amount, original.amount_parts) == (17_50, parts)


async def test_a_receipt_that_paid_no_cobv_has_no_parts(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        charge = await tx.charges.add(_new_charge(account.id))
        transaction_id = await tx.transactions.add(receipt(account.id, charge.amount))
        await tx.charges.update(
            charge.id,
            status=ChargeStatus.CONCLUIDA,
            revision=0,
            at=T0,
            transaction_id=transaction_id,
            paid_end_to_end_id=e2e(),
        )
        by_key = await tx.transactions.add(receipt(account.id))
        paid = await tx.refunds.original_of(transaction_id)
        unpaid = await tx.refunds.original_of(by_key)
        assert paid is not None
        assert unpaid is not None
        assert (paid.tx_id, paid.amount_parts) == (charge.txid, None)
        assert (unpaid.tx_id, unpaid.amount_parts) == (None, None)
