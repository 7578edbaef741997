"""The use cases of Pix Automático on the in-memory fakes: the journeys, the payer's bank, the
debits on the charge's date (the ledger's ``receive``, the RECEIVE event, money conserved) and
the retry policy."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pytest

from pixcore.accounts.rules import OpenedAccount
from pixcore.charges.cob import CalendarFields, ChargeFields, ChargeRequest, ChargeStatus, ValueFields
from pixcore.charges.cob_service import create_charge
from pixcore.clock import ManualClock
from pixcore.errors import DuplicateCharge
from pixcore.events import ReceiveEvent, RecurrenceEvent, RecurringChargeEvent
from pixcore.records import TransactionStatus, TransactionType
from pixcore.recurrences import (
    AccountType,
    ActiveRequestExists,
    AttemptStatus,
    AttemptType,
    CancelTooLate,
    ChargeTerms,
    CycleTaken,
    Debtor,
    InvalidRecurrence,
    InvalidRecurringCharge,
    Journey,
    Payer,
    PayerFundsShort,
    Periodicity,
    Recurrence,
    RecurrenceClosed,
    RecurrenceRevision,
    RecurrenceStatus,
    RecurrenceTerms,
    RecurrenceTransition,
    RecurringCharge,
    RecurringChargeStatus,
    RequestStatus,
    RequestTerms,
    RetryNotAllowed,
    RetryPolicy,
    RetryRefused,
    accept_recurrence,
    answer_request,
    ask_retry,
    cancel_by_payer,
    cancel_recurrence_request,
    cancel_recurring_charge,
    create_recurrence,
    create_recurrence_location,
    create_recurrence_request,
    create_recurring_charge,
    payer_balance,
    read_recurrence,
    read_recurrence_payload,
    read_recurring_charge,
    refuse_recurrence,
    revise_recurrence,
    run_recurring_charges,
    set_payer_balance,
    unlink_recurrence_location,
)
from pixcore.recurrences.errors import InvalidRecurrenceRequest, ReceiverNotACompany
from pixcore.recurrences.records import NewRecurrence
from pixcore.recurrences.requests import RecurrenceField, RequestField
from pixcore.testing import InMemoryStore, PlainHasher, external_total, ledger_check
from tests.unit.usecase_helpers import HOLDER_CNPJ, HOLDER_CPF, OTHER_CPF, open_test_account

START = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)  # a Monday, noon in São Paulo
TODAY = date(2026, 3, 2)
PAYER = Payer(OTHER_CPF, "12345678", "2611606")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@dataclass
class Receiver:
    store: InMemoryStore
    clock: ManualClock
    opened: OpenedAccount

    @property
    def account_id(self) -> int:
        return self.opened.account.id

    def days(self, count: int) -> None:
        self.clock.advance(count * 86_400)

    async def recurrence(
        self, *, policy: RetryPolicy = RetryPolicy.NAO_PERMITE, fixed: int | None = 10_000, **more: object
    ) -> Recurrence:
        terms = RecurrenceTerms(
            contract="63100862",
            debtor=Debtor(OTHER_CPF, "Fulano de Tal"),
            purpose="Streaming",
            start=TODAY,
            periodicity=Periodicity.MENSAL,
            fixed_amount=fixed,
            retry_policy=policy,
            **more,  # type: ignore[arg-type]
        )
        return await create_recurrence(
            self.store.unit_of_work, self.clock, account_id=self.account_id, terms=terms
        )

    async def approved(self, **kwargs: object) -> Recurrence:
        created = await self.recurrence(**kwargs)  # type: ignore[arg-type]
        return await accept_recurrence(
            self.store.unit_of_work, self.clock, rec_id=created.rec_id, journey=Journey.JORNADA_4, payer=PAYER
        )

    async def charge(
        self, recurrence: Recurrence, due: date, amount: int = 10_000, txid: str | None = None
    ) -> RecurringCharge:
        terms = ChargeTerms(
            rec_id=recurrence.rec_id,
            due_date=due,
            amount=amount,
            receiver_account=self.opened.account.number,
            receiver_account_type=AccountType.CORRENTE,
        )
        return await create_recurring_charge(
            self.store.unit_of_work, self.clock, account_id=self.account_id, txid=txid, terms=terms
        )

    async def read(self, charge: RecurringCharge) -> RecurringCharge:
        return await read_recurring_charge(
            self.store.unit_of_work, account_id=self.account_id, txid=charge.txid
        )

    async def run(self) -> int:
        return await run_recurring_charges(self.store.unit_of_work, self.clock)

    async def fund(self, amount: int) -> None:
        await set_payer_balance(self.store.unit_of_work, payer=PAYER, amount=amount)

    def balance(self) -> int:
        return self.store.balances[self.account_id].available


@pytest.fixture
async def receiver(store: InMemoryStore, clock: ManualClock, hasher: PlainHasher) -> Receiver:
    opened = await open_test_account(store, hasher, document=HOLDER_CNPJ, keys=("holder@example.com",))
    return Receiver(store, clock, opened)


def _events(store: InMemoryStore, kind: type[object]) -> list[object]:
    return [item.event for item in store.outbox if isinstance(item.event, kind)]


# -- recurrences and their journeys ----------------------------------------------------------------


async def test_a_new_recurrence_is_criada_with_an_id_that_tells_its_retry_policy(receiver: Receiver) -> None:
    created = await receiver.recurrence(policy=RetryPolicy.PERMITE_3R_7D)
    assert created.status is RecurrenceStatus.CRIADA
    assert created.rec_id.startswith("RR99999999" + "20260302")
    assert [line.status for line in created.history] == [RecurrenceStatus.CRIADA]
    assert created.journey is Journey.AGUARDANDO_DEFINICAO
    assert (await receiver.recurrence()).rec_id.startswith("RN")


async def test_the_rules_of_a_recurrence_are_judged_together(receiver: Receiver) -> None:
    with pytest.raises(InvalidRecurrence) as refused:
        await receiver.recurrence(fixed=1_000, minimum_amount=500, end=TODAY - timedelta(days=1))
    assert sorted(refused.value.details) == [
        "end: must not be before start",
        "fixed amount, minimum amount: give one of them, not both",
    ]


async def test_journey_1_the_request_is_answered_and_the_recurrence_approved(receiver: Receiver) -> None:
    created = await receiver.recurrence()
    terms = RequestTerms(
        rec_id=created.rec_id,
        expires_at=START + timedelta(days=2),
        recipient=PAYER,
        recipient_account="550689",
    )
    uow, clock = receiver.store.unit_of_work, receiver.clock
    view = await create_recurrence_request(uow, clock, account_id=receiver.account_id, terms=terms)
    assert view.request.status is RequestStatus.CRIADA
    with pytest.raises(ActiveRequestExists):
        await create_recurrence_request(uow, clock, account_id=receiver.account_id, terms=terms)
    request, approved = await answer_request(uow, clock, request_id=view.request.request_id, authorized=True)
    assert [line.status for line in request.history] == [
        RequestStatus.CRIADA,
        RequestStatus.ENVIADA,
        RequestStatus.RECEBIDA,
        RequestStatus.ACEITA,
    ]
    assert (approved.status, approved.journey, approved.payer) == (
        RecurrenceStatus.APROVADA,
        Journey.JORNADA_1,
        PAYER,
    )
    read = await read_recurrence(uow, clock, account_id=receiver.account_id, rec_id=created.rec_id)
    assert [r.status for r in read.requests] == [RequestStatus.ACEITA]
    assert [e.recurrence.status for e in _events(receiver.store, RecurrenceEvent)] == [
        RecurrenceStatus.APROVADA
    ]  # type: ignore[attr-defined]


async def test_journey_1_refused_rejects_the_recurrence(receiver: Receiver) -> None:
    created = await receiver.recurrence()
    terms = RequestTerms(
        rec_id=created.rec_id,
        expires_at=START + timedelta(days=2),
        recipient=PAYER,
        recipient_account="550689",
    )
    uow, clock = receiver.store.unit_of_work, receiver.clock
    view = await create_recurrence_request(uow, clock, account_id=receiver.account_id, terms=terms)
    _, rejected = await answer_request(uow, clock, request_id=view.request.request_id, authorized=False)
    assert rejected.status is RecurrenceStatus.REJEITADA
    assert rejected.closing is not None
    assert rejected.closing.code == "AP13"


async def test_an_expired_request_is_answered_no_more_and_makes_way_for_another(receiver: Receiver) -> None:
    created = await receiver.recurrence()
    uow, clock = receiver.store.unit_of_work, receiver.clock
    terms = RequestTerms(
        rec_id=created.rec_id, expires_at=START + timedelta(hours=1), recipient=PAYER, recipient_account="1"
    )
    first = await create_recurrence_request(uow, clock, account_id=receiver.account_id, terms=terms)
    receiver.clock.advance(3_600)
    with pytest.raises(RecurrenceTransition):
        await answer_request(uow, clock, request_id=first.request.request_id, authorized=True)
    with pytest.raises(Exception, match="CRIADA, ENVIADA or RECEBIDA"):
        await cancel_recurrence_request(
            uow, clock, account_id=receiver.account_id, request_id=first.request.request_id
        )
    later = RequestTerms(
        rec_id=created.rec_id, expires_at=START + timedelta(days=1), recipient=PAYER, recipient_account="1"
    )
    second = await create_recurrence_request(uow, clock, account_id=receiver.account_id, terms=later)
    read = await read_recurrence(uow, clock, account_id=receiver.account_id, rec_id=created.rec_id)
    assert [r.status for r in read.requests] == [RequestStatus.EXPIRADA, RequestStatus.CRIADA]
    assert read.requests[1].request_id == second.request.request_id


async def test_journey_2_needs_the_recurrence_at_a_location_whose_payload_shows_it(
    receiver: Receiver,
) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    bare = await receiver.recurrence()
    with pytest.raises(Exception, match="at no location"):
        await accept_recurrence(uow, clock, rec_id=bare.rec_id, journey=Journey.JORNADA_2, payer=PAYER)
    location = await create_recurrence_location(uow, clock, account_id=receiver.account_id)
    located = await receiver.recurrence(loc_id=location.id)
    assert (await read_recurrence_payload(uow, clock, token=location.token)).rec_id == located.rec_id
    with pytest.raises(Exception, match="serves the recurrence"):
        await receiver.recurrence(loc_id=location.id)
    approved = await accept_recurrence(
        uow, clock, rec_id=located.rec_id, journey=Journey.JORNADA_2, payer=PAYER
    )
    assert approved.journey is Journey.JORNADA_2
    unlinked = await unlink_recurrence_location(
        uow, clock, account_id=receiver.account_id, location_id=location.id
    )
    assert unlinked.rec_id is None
    read = await read_recurrence(uow, clock, account_id=receiver.account_id, rec_id=located.rec_id)
    assert (read.recurrence.loc_id, read.status) == (None, RecurrenceStatus.APROVADA)


async def test_journey_3_pays_the_immediate_charge_from_the_payers_balance(receiver: Receiver) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    cob = await create_charge(
        uow,
        clock,
        account_id=receiver.account_id,
        txid="J" * 30,
        request=ChargeRequest.parse(ChargeFields(calendar=CalendarFields(3_600), value=ValueFields("25.00"))),
        location_prefix="pix.example.com/qr/v2/",
    )
    created = await receiver.recurrence(journey_txid=cob.txid)
    await receiver.fund(2_499)
    with pytest.raises(PayerFundsShort):
        await accept_recurrence(uow, clock, rec_id=created.rec_id, journey=Journey.JORNADA_3, payer=PAYER)
    assert receiver.balance() == 0
    await receiver.fund(3_000)
    approved = await accept_recurrence(
        uow, clock, rec_id=created.rec_id, journey=Journey.JORNADA_3, payer=PAYER
    )
    assert (approved.journey, approved.journey_txid) == (Journey.JORNADA_3, cob.txid)
    assert receiver.balance() == 2_500
    assert await payer_balance(uow, payer=PAYER) == 500
    assert receiver.store.charges[cob.id].status is ChargeStatus.CONCLUIDA
    assert ledger_check(receiver.store) == []


async def test_the_payer_refuses_or_cancels_and_closed_recurrences_take_no_change(receiver: Receiver) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    refused = await refuse_recurrence(uow, clock, rec_id=(await receiver.recurrence()).rec_id)
    assert refused.status is RecurrenceStatus.REJEITADA
    with pytest.raises(RecurrenceClosed):
        await revise_recurrence(
            uow,
            clock,
            account_id=receiver.account_id,
            rec_id=refused.rec_id,
            revision=RecurrenceRevision(cancel=True),
        )
    approved = await receiver.approved()
    cancelled = await cancel_by_payer(uow, clock, rec_id=approved.rec_id, payer=PAYER)
    assert cancelled.status is RecurrenceStatus.CANCELADA
    assert cancelled.closing is not None
    assert (cancelled.closing.code, cancelled.closing.requester) == ("SLDB", "USUARIO_PAGADOR")


async def test_a_recurrence_past_its_last_day_reads_expirada(receiver: Receiver) -> None:
    created = await receiver.recurrence(end=TODAY + timedelta(days=40))
    receiver.days(44)
    read = await read_recurrence(
        receiver.store.unit_of_work, receiver.clock, account_id=receiver.account_id, rec_id=created.rec_id
    )
    assert (read.recurrence.status, read.status) == (RecurrenceStatus.CRIADA, RecurrenceStatus.EXPIRADA)


async def test_revising_the_location_and_first_day_only_while_criada(receiver: Receiver) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    location = await create_recurrence_location(uow, clock, account_id=receiver.account_id)
    approved = await receiver.approved()
    with pytest.raises(InvalidRecurrence) as refused:
        await revise_recurrence(
            uow,
            clock,
            account_id=receiver.account_id,
            rec_id=approved.rec_id,
            revision=RecurrenceRevision(
                loc_id=location.id, start=TODAY + timedelta(days=9), debtor_name="Ciclano"
            ),
        )
    assert sorted(refused.value.details) == [
        "loc id: changes only while the recurrence is CRIADA",
        "start: changes only while the recurrence is CRIADA",
    ]
    renamed = await revise_recurrence(
        uow,
        clock,
        account_id=receiver.account_id,
        rec_id=approved.rec_id,
        revision=RecurrenceRevision(debtor_name="Ciclano"),
    )
    assert renamed.debtor.name == "Ciclano"


# -- recurring charges and the payer's bank --------------------------------------------------------


async def test_a_charge_paid_on_its_date_arrives_as_any_receipt(receiver: Receiver) -> None:
    approved = await receiver.approved()
    charge = await receiver.charge(approved, TODAY + timedelta(days=5))  # a Saturday: settled on Monday
    assert (charge.status, charge.attempts[0].status) == (
        RecurringChargeStatus.CRIADA,
        AttemptStatus.SOLICITADA,
    )
    assert charge.first_date == TODAY + timedelta(days=7)
    await receiver.fund(12_000)
    assert await receiver.run() == 1  # the payer's bank schedules it
    scheduled = await receiver.read(charge)
    assert (scheduled.status, scheduled.attempts[0].status) == (
        RecurringChargeStatus.ATIVA,
        AttemptStatus.AGENDADA,
    )
    receiver.days(6)
    assert await receiver.run() == 0
    receiver.days(1)
    assert await receiver.run() == 1
    paid = await receiver.read(charge)
    assert (paid.status, paid.attempts[0].status) == (RecurringChargeStatus.CONCLUIDA, AttemptStatus.PAGA)
    assert receiver.balance() == 10_000
    assert await payer_balance(receiver.store.unit_of_work, payer=PAYER) == 2_000
    record = receiver.store.transactions[paid.transaction_id or 0]
    assert (record.type, record.status, record.amount, record.end_to_end_id) == (
        TransactionType.PAYMENT,
        TransactionStatus.CONFIRMED,
        10_000,
        paid.attempts[0].end_to_end_id,
    )
    receipts = _events(receiver.store, ReceiveEvent)
    assert [(e.tx_id, e.amount) for e in receipts] == [(charge.txid, 10_000)]  # type: ignore[attr-defined]
    statuses = [e.charge.status for e in _events(receiver.store, RecurringChargeEvent)]  # type: ignore[attr-defined]
    assert statuses == [RecurringChargeStatus.ATIVA, RecurringChargeStatus.CONCLUIDA]
    assert ledger_check(receiver.store) == []
    assert external_total(receiver.store) == -10_000


async def test_without_funds_and_without_retries_the_charge_expires(receiver: Receiver) -> None:
    approved = await receiver.approved()
    charge = await receiver.charge(approved, TODAY + timedelta(days=1))
    await receiver.fund(9_999)
    receiver.days(1)
    assert await receiver.run() == 1
    failed = await receiver.read(charge)
    assert (failed.status, failed.attempts[0].status) == (
        RecurringChargeStatus.EXPIRADA,
        AttemptStatus.EXPIRADA,
    )
    assert receiver.balance() == 0
    assert await payer_balance(receiver.store.unit_of_work, payer=PAYER) == 9_999
    with pytest.raises(RetryNotAllowed):
        await ask_retry(
            receiver.store.unit_of_work,
            receiver.clock,
            account_id=receiver.account_id,
            txid=charge.txid,
            day=TODAY + timedelta(days=3),
        )


async def test_a_retry_within_the_window_pays_once_the_funds_are_there(receiver: Receiver) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    approved = await receiver.approved(policy=RetryPolicy.PERMITE_3R_7D)
    charge = await receiver.charge(approved, TODAY + timedelta(days=1))  # Tuesday 3 March
    receiver.days(1)
    await receiver.run()
    failed = await receiver.read(charge)
    assert (failed.status, failed.attempts[0].status) == (RecurringChargeStatus.ATIVA, AttemptStatus.EXPIRADA)
    first = failed.first_date
    for day, refusal in [
        (first, "future date"),
        (first + timedelta(days=8), "within 7 days"),
    ]:
        with pytest.raises(RetryRefused, match=refusal):
            await ask_retry(uow, clock, account_id=receiver.account_id, txid=charge.txid, day=day)
    retried = await ask_retry(
        uow, clock, account_id=receiver.account_id, txid=charge.txid, day=first + timedelta(days=2)
    )
    assert [(a.type, a.status) for a in retried.attempts] == [
        (AttemptType.AGND, AttemptStatus.EXPIRADA),
        (AttemptType.NTAG, AttemptStatus.SOLICITADA),
    ]
    with pytest.raises(RetryRefused, match="SOLICITADA"):
        await ask_retry(
            uow, clock, account_id=receiver.account_id, txid=charge.txid, day=first + timedelta(days=3)
        )
    await receiver.fund(10_000)
    receiver.days(2)
    await receiver.run()
    paid = await receiver.read(charge)
    assert paid.status is RecurringChargeStatus.CONCLUIDA
    assert [a.status for a in paid.attempts] == [AttemptStatus.EXPIRADA, AttemptStatus.PAGA]
    assert receiver.balance() == 10_000
    assert ledger_check(receiver.store) == []


async def test_three_retries_at_most_then_the_charge_expires(receiver: Receiver) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    approved = await receiver.approved(policy=RetryPolicy.PERMITE_3R_7D)
    charge = await receiver.charge(approved, TODAY + timedelta(days=1))
    receiver.days(1)
    await receiver.run()
    for _ in range(3):
        await ask_retry(
            uow,
            clock,
            account_id=receiver.account_id,
            txid=charge.txid,
            day=receiver.clock.now().date() + timedelta(days=1),
        )
        receiver.days(1)
        await receiver.run()
    expired = await receiver.read(charge)
    assert expired.status is RecurringChargeStatus.EXPIRADA
    assert [a.status for a in expired.attempts] == [AttemptStatus.EXPIRADA] * 4
    assert receiver.balance() == 0


async def test_the_window_closing_without_a_retry_expires_the_charge(receiver: Receiver) -> None:
    approved = await receiver.approved(policy=RetryPolicy.PERMITE_3R_7D)
    charge = await receiver.charge(approved, TODAY + timedelta(days=1))
    receiver.days(1)
    await receiver.run()
    receiver.days(6)
    await receiver.run()
    assert (await receiver.read(charge)).status is RecurringChargeStatus.ATIVA
    receiver.days(1)
    await receiver.run()
    assert (await receiver.read(charge)).status is RecurringChargeStatus.EXPIRADA


async def test_one_live_charge_per_cycle_and_a_txid_once(receiver: Receiver) -> None:
    approved = await receiver.approved()
    first = await receiver.charge(approved, TODAY + timedelta(days=5), txid="C" * 30)
    with pytest.raises(CycleTaken):
        await receiver.charge(approved, TODAY + timedelta(days=20))
    with pytest.raises(DuplicateCharge):
        await receiver.charge(approved, TODAY + timedelta(days=40), txid=first.txid)
    await cancel_recurring_charge(
        receiver.store.unit_of_work, receiver.clock, account_id=receiver.account_id, txid=first.txid
    )
    again = await receiver.charge(approved, TODAY + timedelta(days=20))
    assert again.cycle == first.cycle == 0


async def test_a_charge_breaks_the_rules_of_its_recurrence(receiver: Receiver) -> None:
    created = await receiver.recurrence(end=TODAY + timedelta(days=60))
    with pytest.raises(InvalidRecurringCharge, match="APROVADA"):
        await receiver.charge(created, TODAY + timedelta(days=5))
    approved = await accept_recurrence(
        receiver.store.unit_of_work,
        receiver.clock,
        rec_id=created.rec_id,
        journey=Journey.JORNADA_4,
        payer=PAYER,
    )
    with pytest.raises(InvalidRecurringCharge) as refused:
        await receiver.charge(approved, TODAY + timedelta(days=90), amount=5)
    assert sorted(refused.value.details) == [
        "amount: must be the recurrence's fixed amount",
        "due date: must be within the recurrence's calendar",
    ]


async def test_a_charge_is_cancelled_only_before_its_first_date(receiver: Receiver) -> None:
    approved = await receiver.approved()
    charge = await receiver.charge(approved, TODAY + timedelta(days=2))
    receiver.days(2)
    with pytest.raises(CancelTooLate):
        await cancel_recurring_charge(
            receiver.store.unit_of_work, receiver.clock, account_id=receiver.account_id, txid=charge.txid
        )


async def test_cancelling_the_recurrence_cancels_its_charges_so_nothing_is_debited(
    receiver: Receiver,
) -> None:
    uow, clock = receiver.store.unit_of_work, receiver.clock
    approved = await receiver.approved()
    charge = await receiver.charge(approved, TODAY + timedelta(days=3))
    await receiver.run()
    await revise_recurrence(
        uow,
        clock,
        account_id=receiver.account_id,
        rec_id=approved.rec_id,
        revision=RecurrenceRevision(cancel=True),
    )
    cancelled = await receiver.read(charge)
    assert (cancelled.status, cancelled.attempts[0].status) == (
        RecurringChargeStatus.CANCELADA,
        AttemptStatus.CANCELADA,
    )
    assert cancelled.closing is not None
    assert cancelled.closing.code == "CCLD"
    await receiver.fund(50_000)
    receiver.days(3)
    assert await receiver.run() == 0
    assert receiver.balance() == 0


async def test_a_debit_that_no_longer_fits_at_commit_fails_the_whole_unit(receiver: Receiver) -> None:
    """The fake's guard behind the code's: another unit spent the payer's money meanwhile."""
    await receiver.fund(100)
    async with receiver.store.unit_of_work() as first, receiver.store.unit_of_work() as second:
        assert await first.payer_bank.debit(PAYER, 80)
        assert await second.payer_bank.debit(PAYER, 80)
        await first.commit()
        with pytest.raises(Exception, match="has not 80"):
            await second.commit()
    assert await payer_balance(receiver.store.unit_of_work, payer=PAYER) == 20


async def test_a_persons_account_receives_no_recurrence(store: InMemoryStore, clock: ManualClock) -> None:
    person = await open_test_account(store, PlainHasher(), document=HOLDER_CPF)
    receiver = Receiver(store, clock, person)
    with pytest.raises(ReceiverNotACompany) as refused:
        await receiver.recurrence()
    assert [problem.fields for problem in refused.value.problems] == [(RecurrenceField.RECEIVER,)]
    assert [problem.text for problem in refused.value.problems] == [
        "Pix Automático receives for a company (a CNPJ); this account's holder is a person"
    ]


async def test_a_persons_recurrence_from_before_the_rule_is_not_sent_for_authorization(
    receiver: Receiver, hasher: PlainHasher
) -> None:
    made = await receiver.recurrence()
    person = await open_test_account(receiver.store, hasher, document=HOLDER_CPF)
    kept = {field.name: getattr(made, field.name) for field in dataclasses.fields(NewRecurrence)}
    rec_id = made.rec_id[:-1] + ("0" if made.rec_id[-1] != "0" else "1")
    async with receiver.store.unit_of_work() as tx:
        stored = await tx.recurrences.add(
            NewRecurrence(**kept | {"account_id": person.account.id, "rec_id": rec_id})
        )
        await tx.commit()
    terms = RequestTerms(
        rec_id=rec_id, expires_at=START + timedelta(days=2), recipient=PAYER, recipient_account="550689"
    )
    uow, clock = receiver.store.unit_of_work, receiver.clock
    with pytest.raises(InvalidRecurrenceRequest) as refused:
        await create_recurrence_request(uow, clock, account_id=person.account.id, terms=terms)
    assert [(problem.fields, problem.text) for problem in refused.value.problems] == [
        (
            (RequestField.REC_ID,),
            "Pix Automático receives for a company (a CNPJ); this account's holder is a person",
        )
    ]
    async with uow() as tx:
        assert await tx.recurrence_requests.of_recurrence(stored.id) == []
