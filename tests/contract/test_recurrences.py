"""The contracts of Pix Automático's ports (recurrences, requests, recurring charges with their
attempts, recurrence locations, the payer's bank), on the fake and on PostgreSQL: the unique
indexes become the domain's errors, and a payer's balance never goes below zero."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import date, timedelta

import pytest

from pixcore.errors import DuplicateCharge
from pixcore.recurrences import (
    ActiveRequestExists,
    Attempt,
    AttemptStatus,
    AttemptType,
    ChargeListQuery,
    CycleTaken,
    Debtor,
    DuplicateRecurrence,
    Journey,
    LocationListQuery,
    NewRecurrence,
    NewRecurrenceLocation,
    NewRecurrenceRequest,
    NewRecurringCharge,
    Payer,
    Periodicity,
    Recurrence,
    RecurrenceListQuery,
    RecurrenceLocationTaken,
    RecurrenceStatus,
    RecurringChargeStatus,
    RequestStatus,
    RetryPolicy,
    StatusChange,
)
from pixcore.recurrences.terms import RECEIVER_CANCELLED
from pixcore.unit_of_work import UnitOfWork
from tests.contract.conftest import Backend
from tests.contract.rows import FAR, T0, add_account, e2e
from tests.support import random_cpf

DAY = date(2001, 2, 5)


def _rec_id() -> str:
    return "RN12345678" + "20010203" + uuid.uuid4().hex[:11]


def _new(account_id: int, **changes: object) -> NewRecurrence:
    new = NewRecurrence(
        account_id=account_id,
        rec_id=_rec_id(),
        contract="63100862",
        debtor=Debtor(random_cpf(), "Fulano de Tal"),
        purpose=None,
        start=DAY,
        end=None,
        periodicity=Periodicity.MENSAL,
        fixed_amount=1_000,
        minimum_amount=None,
        retry_policy=RetryPolicy.NAO_PERMITE,
        agreement="Master",
        created_at=T0,
    )
    return dataclasses.replace(new, **changes)  # type: ignore[arg-type]


async def _approved(tx: UnitOfWork) -> Recurrence:
    account = await add_account(tx)
    created = await tx.recurrences.add(_new(account.id))
    approved = dataclasses.replace(
        created.moved(RecurrenceStatus.APROVADA, T0),
        journey=Journey.JORNADA_4,
        payer=Payer(random_cpf(), "12345678"),
    )
    await tx.recurrences.save(approved)
    return approved


def _charge(
    recurrence: Recurrence, *, cycle: int = 0, txid: str | None = None, due: date = DAY
) -> NewRecurringCharge:
    return NewRecurringCharge(
        account_id=recurrence.account_id,
        txid=txid or uuid.uuid4().hex,
        recurrence_id=recurrence.id,
        rec_id=recurrence.rec_id,
        cycle=cycle,
        amount=1_000,
        due_date=due,
        adjust_to_business_day=True,
        retry_policy=RetryPolicy.PERMITE_3R_7D,
        information="Fatura",
        receiver_account="00000001",
        receiver_branch=None,
        receiver_account_type="CORRENTE",
        debtor_email=None,
        debtor_street=None,
        debtor_city=None,
        debtor_state=None,
        debtor_postal_code=None,
        created_at=T0,
        first_attempt=Attempt(
            number=0,
            type=AttemptType.AGND,
            settles_on=due,
            end_to_end_id=e2e(),
            history=(StatusChange(AttemptStatus.SOLICITADA, T0),),
        ),
    )


async def test_a_recurrence_is_stored_read_revised_and_listed(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        location = await tx.recurrence_locations.add(
            NewRecurrenceLocation(account_id=account.id, token=uuid.uuid4().hex, created_at=T0)
        )
        created = await tx.recurrences.add(_new(account.id, loc_id=location.id, end=DAY + timedelta(days=90)))
        assert created.status is RecurrenceStatus.CRIADA
        assert created.history == (StatusChange(RecurrenceStatus.CRIADA, T0),)
        assert await tx.recurrences.get(account.id, created.rec_id) == created
        assert await tx.recurrences.get(account.id + 1, created.rec_id) is None
        assert await tx.recurrences.get_by_location(location.token) == created
        assert (await tx.recurrence_locations.get(account.id, location.id)).rec_id == created.rec_id  # type: ignore[union-attr]
        payer = Payer(random_cpf(), "12345678", "2611606")
        approved = dataclasses.replace(
            created.moved(RecurrenceStatus.APROVADA, T0 + timedelta(hours=1)),
            journey=Journey.JORNADA_2,
            payer=payer,
            closing=RECEIVER_CANCELLED,
            debtor=Debtor(created.debtor.document, "Ciclano"),
        )
        await tx.recurrences.save(approved)
        assert await tx.recurrences.lock(account.id, created.rec_id) == approved
        window = RecurrenceListQuery(T0 - timedelta(seconds=1), T0 + timedelta(seconds=1))
        assert await tx.recurrences.search(account.id, window) == (1, [approved])
        for query, matches in [
            (dataclasses.replace(window, status=RecurrenceStatus.CRIADA), 0),
            (dataclasses.replace(window, cpf=created.debtor.document, location_present=True), 1),
            (dataclasses.replace(window, agreement="Other"), 0),
        ]:
            assert (await tx.recurrences.search(account.id, query))[0] == matches
        locations = await tx.recurrence_locations.search(
            account.id, LocationListQuery(T0, T0, rec_present=True)
        )
        assert [loc.id for loc in locations[1]] == [location.id]


async def test_a_location_serves_one_recurrence_and_an_id_is_taken_once(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        location = await tx.recurrence_locations.add(
            NewRecurrenceLocation(account_id=account.id, token=uuid.uuid4().hex, created_at=T0)
        )
        first = await tx.recurrences.add(_new(account.id, loc_id=location.id))
        with pytest.raises(RecurrenceLocationTaken):
            await tx.recurrences.add(_new(account.id, loc_id=location.id))
        with pytest.raises(DuplicateRecurrence):
            await tx.recurrences.add(_new(account.id, rec_id=first.rec_id))
        assert await tx.recurrences.get(account.id, first.rec_id) == first  # the unit is still usable


async def test_one_open_request_per_recurrence(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        recurrence = await tx.recurrences.add(_new(account.id))

        def request() -> NewRecurrenceRequest:
            return NewRecurrenceRequest(
                account_id=account.id,
                request_id="SC12345678" + "20010203" + uuid.uuid4().hex[:11],
                recurrence_id=recurrence.id,
                rec_id=recurrence.rec_id,
                recipient=Payer(random_cpf(), "12345678"),
                recipient_account="550689",
                recipient_branch="2569",
                expires_at=T0 + timedelta(days=1),
                created_at=T0,
            )

        first = await tx.recurrence_requests.add(request())
        assert (first.status, first.rec_id) == (RequestStatus.CRIADA, recurrence.rec_id)
        with pytest.raises(ActiveRequestExists):
            await tx.recurrence_requests.add(request())
        await tx.recurrence_requests.save(first.moved(RequestStatus.CANCELADA, T0))
        second = await tx.recurrence_requests.add(request())
        assert [r.request_id for r in await tx.recurrence_requests.of_recurrence(recurrence.id)] == [
            first.request_id,
            second.request_id,
        ]
        assert await tx.recurrence_requests.lock_any(second.request_id) == second


async def test_a_charge_keeps_its_attempts_and_its_cycle(backend: Backend) -> None:
    async with backend.uow() as tx:
        recurrence = await _approved(tx)
        charge = await tx.recurring_charges.add(_charge(recurrence))
        assert charge.attempts == (charge.first_attempt,)
        assert await tx.recurring_charges.get(recurrence.account_id, charge.txid) == charge
        with pytest.raises(CycleTaken):
            await tx.recurring_charges.add(_charge(recurrence))
        with pytest.raises(DuplicateCharge):
            await tx.recurring_charges.add(_charge(recurrence, cycle=1, txid=charge.txid))
        failed = charge.with_attempt(charge.attempts[0].moved(AttemptStatus.EXPIRADA, T0))
        retry = Attempt(
            number=1, type=AttemptType.NTAG, settles_on=DAY + timedelta(days=2), end_to_end_id=e2e()
        )
        retried = failed.moved(RecurringChargeStatus.ATIVA, T0).with_attempt(retry)
        await tx.recurring_charges.save(retried)
        assert await tx.recurring_charges.lock(recurrence.account_id, charge.txid) == retried
        cancelled = dataclasses.replace(
            retried.moved(RecurringChargeStatus.CANCELADA, T0), closing=RECEIVER_CANCELLED
        )
        await tx.recurring_charges.save(cancelled)
        again = await tx.recurring_charges.add(_charge(recurrence))  # the cycle is free again
        assert [c.txid for c in await tx.recurring_charges.lock_live(recurrence.id)] == [again.txid]
        listed = await tx.recurring_charges.search(
            recurrence.account_id,
            ChargeListQuery(T0, T0, rec_id=recurrence.rec_id, status=RecurringChargeStatus.CANCELADA),
        )
        assert listed == (1, [cancelled])


async def test_the_database_refuses_two_pending_attempts_or_a_fifth(backend: Backend) -> None:
    async with backend.uow() as tx:
        recurrence = await _approved(tx)
        charge = await tx.recurring_charges.add(_charge(recurrence))
        second = Attempt(
            number=1, type=AttemptType.NTAG, settles_on=DAY + timedelta(days=1), end_to_end_id=e2e()
        )
        with pytest.raises(backend.refused):
            await tx.recurring_charges.save(charge.with_attempt(second))


async def test_lock_due_finds_what_the_payers_bank_has_to_do(backend: Backend) -> None:
    async with backend.uow() as tx:
        recurrence = await _approved(tx)
        asked = await tx.recurring_charges.add(_charge(recurrence, due=FAR.date()))
        later = await tx.recurring_charges.add(
            _charge(recurrence, cycle=1, due=FAR.date() + timedelta(days=40))
        )
        scheduled = later.with_attempt(later.attempts[0].moved(AttemptStatus.AGENDADA, T0))
        await tx.recurring_charges.save(scheduled.moved(RecurringChargeStatus.ATIVA, T0))
        due = {c.id for c in await tx.recurring_charges.lock_due(FAR.date(), 10_000)}
        assert asked.id in due  # SOLICITADA: whatever its date
        assert later.id not in due  # AGENDADA for a later day
        assert later.id in {
            c.id for c in await tx.recurring_charges.lock_due(FAR.date() + timedelta(days=40), 10_000)
        }


async def test_a_payers_balance_never_goes_below_zero(backend: Backend) -> None:
    payer = Payer(random_cpf(), "12345678")
    async with backend.uow() as tx:
        assert await tx.payer_bank.balance(payer) == 0
        assert not await tx.payer_bank.debit(payer, 1)
        await tx.payer_bank.set_balance(payer, 1_000)
        assert await tx.payer_bank.debit(payer, 600)
        assert not await tx.payer_bank.debit(payer, 401)
        assert await tx.payer_bank.debit(payer, 400)
        assert await tx.payer_bank.balances([payer, Payer(random_cpf(), "12345678")]) == [0, 0]
        await tx.commit()
    async with backend.uow() as tx:
        assert await tx.payer_bank.balance(payer) == 0
