"""Recurrences (``/rec``) and their payload locations (``/locrec``): create, read, list, revise,
cancel; the payload a payer's bank reads at a location (``GET /rec/{recUrlAccessToken}``).

A recurrence is CRIADA until its payer answers (through a request, ``/solicrec``, or a QR code:
the sandbox's payer, :mod:`pixcore.recurrences.payer_service`). The receiver may revise its
debtor's name and, while CRIADA, its location and first date; or cancel it, which cancels what is
still open under it (its request, its charges to be paid).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pixcore.charges.cob import new_location_id
from pixcore.charges.cob_service import load_account
from pixcore.clock import Clock
from pixcore.identifiers import new_recurrence_id
from pixcore.problems import Problem
from pixcore.recurrences.closing import cancel_recurrence_locked, save_recurrence, today_of
from pixcore.recurrences.errors import (
    InvalidRecurrence,
    ReceiverNotACompany,
    RecurrenceClosed,
    RecurrenceLocationNotFound,
    RecurrenceLocationTaken,
    RecurrenceNotFound,
)
from pixcore.recurrences.lifecycles import RecurrenceStatus
from pixcore.recurrences.queries import LocationListQuery, RecurrenceListQuery
from pixcore.recurrences.records import (
    NewRecurrence,
    NewRecurrenceLocation,
    Recurrence,
    RecurrenceLocation,
    RecurrenceRequest,
)
from pixcore.recurrences.requests import RecurrenceField, RecurrenceRevision, RecurrenceTerms
from pixcore.recurrences.terms import (
    RECEIVER_CANCELLED,
    RECEIVER_NOT_A_COMPANY,
    RetryPolicy,
    receives_by_pix_automatico,
)

if TYPE_CHECKING:
    from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "LocationListing",
    "RecurrenceListing",
    "RecurrenceView",
    "create_recurrence",
    "create_recurrence_location",
    "list_recurrence_locations",
    "list_recurrences",
    "read_recurrence",
    "read_recurrence_location",
    "read_recurrence_payload",
    "revise_recurrence",
    "unlink_recurrence_location",
]


@dataclass(frozen=True, slots=True)
class RecurrenceView:
    """A recurrence as ``GET /rec/{idRec}`` shows it: with its requests (``solicitacao``) and its
    location; ``status`` is the one a reader sees now (past its last day: EXPIRADA)."""

    recurrence: Recurrence
    status: RecurrenceStatus
    requests: tuple[RecurrenceRequest, ...]
    location: RecurrenceLocation | None


@dataclass(frozen=True, slots=True)
class RecurrenceListing:
    """A page of ``GET /rec``: ``total`` matches in all."""

    total: int
    recurrences: tuple[Recurrence, ...]
    now: datetime


@dataclass(frozen=True, slots=True)
class LocationListing:
    """A page of ``GET /locrec``: ``total`` matches in all."""

    total: int
    locations: tuple[RecurrenceLocation, ...]


def _not_yours() -> InvalidRecurrence:
    unknown = Problem.of(RecurrenceField.LOC_ID, "no recurrence location of your account has this id")
    return InvalidRecurrence(unknown, problems=[unknown])


async def _free_location(tx: UnitOfWork, account_id: int, loc_id: int) -> RecurrenceLocation:
    """The account's location ``loc_id``, locked, serving no recurrence (else the rule it breaks)."""
    location = await tx.recurrence_locations.lock(account_id, loc_id)
    if location is None:
        raise _not_yours()
    if location.rec_id is not None:
        raise RecurrenceLocationTaken(f"the location serves the recurrence {location.rec_id}")
    return location


async def create_recurrence(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, terms: RecurrenceTerms
) -> Recurrence:
    """``POST /rec``: a new CRIADA recurrence of the account, at the location ``terms.loc_id`` if
    given (the account's, serving no other). Its ``idRec`` says whether it allows retries. Only a
    company's account receives by Pix Automático (``ReceiverNotACompany``)."""
    now = clock.now()
    today = today_of(now)
    terms.judge(today)
    async with uow() as tx:
        account = await load_account(tx, account_id)
        if not receives_by_pix_automatico(account.document):
            problem = Problem.of(RecurrenceField.RECEIVER, RECEIVER_NOT_A_COMPANY)
            raise ReceiverNotACompany(problems=[problem], summary="Invalid recurrence: {}")
        if terms.loc_id is not None:
            await _free_location(tx, account_id, terms.loc_id)
        retries = terms.retry_policy is RetryPolicy.PERMITE_3R_7D
        recurrence = await tx.recurrences.add(
            NewRecurrence(
                account_id=account_id,
                rec_id=new_recurrence_id(account.ispb, today, retries=retries),
                contract=terms.contract,
                debtor=terms.debtor,
                purpose=terms.purpose,
                start=terms.start,
                end=terms.end,
                periodicity=terms.periodicity,
                fixed_amount=terms.fixed_amount,
                minimum_amount=terms.minimum_amount,
                retry_policy=terms.retry_policy,
                agreement=terms.agreement,
                created_at=now,
                loc_id=terms.loc_id,
                journey_txid=terms.journey_txid,
            )
        )
        await tx.commit()
    return recurrence


async def _owned(tx: UnitOfWork, account_id: int, rec_id: str, *, lock: bool) -> Recurrence:
    found = await (tx.recurrences.lock if lock else tx.recurrences.get)(account_id, rec_id)
    if found is None:
        raise RecurrenceNotFound()
    return found


async def read_recurrence(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, rec_id: str
) -> RecurrenceView:
    """``GET /rec/{idRec}``: the account's recurrence with its requests and its location."""
    today = today_of(clock.now())
    async with uow() as tx:
        recurrence = await _owned(tx, account_id, rec_id, lock=False)
        requests = await tx.recurrence_requests.of_recurrence(recurrence.id)
        location = None
        if recurrence.loc_id is not None:
            location = await tx.recurrence_locations.get(account_id, recurrence.loc_id)
    return RecurrenceView(recurrence, recurrence.status_at(today), tuple(requests), location)


async def list_recurrences(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, query: RecurrenceListQuery
) -> RecurrenceListing:
    """``GET /rec``: the account's recurrences created in the window."""
    now = clock.now()
    if query.matches_nothing:
        return RecurrenceListing(0, (), now)
    async with uow() as tx:
        total, found = await tx.recurrences.search(account_id, query)
    return RecurrenceListing(total, tuple(found), now)


async def revise_recurrence(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, rec_id: str, revision: RecurrenceRevision
) -> Recurrence:
    """``PATCH /rec/{idRec}``: change the recurrence's debtor's name, its journey's txid and, while
    it is CRIADA, its location and first date (not before its creation); with status CANCELADA,
    cancel it once changed. An expired, rejected or cancelled recurrence takes no change."""
    revision.judge()
    now = clock.now()
    today = today_of(now)
    async with uow() as tx:
        recurrence = await _owned(tx, account_id, rec_id, lock=True)
        status = recurrence.status_at(today)
        if status.closed:
            raise RecurrenceClosed(f"the recurrence is {status.value}: it takes no change")
        revised = await _revised(tx, recurrence, revision)
        if revision.cancel:
            cancelled = await cancel_recurrence_locked(tx, revised, RECEIVER_CANCELLED, now)
            await tx.commit()
            return cancelled
        await save_recurrence(tx, revised, at=now, moved=False)
        await tx.commit()
    return dataclasses.replace(revised, updated_at=now)


async def _revised(tx: UnitOfWork, recurrence: Recurrence, revision: RecurrenceRevision) -> Recurrence:
    """The recurrence with the revision's changes, each judged against it (one error lists every
    broken rule); a new location is checked and locked."""
    problems: list[Problem] = []
    created = recurrence.status is RecurrenceStatus.CRIADA
    changes: dict[str, object] = {}
    if revision.debtor_name is not None:
        changes["debtor"] = dataclasses.replace(recurrence.debtor, name=revision.debtor_name)
    if revision.journey_txid is not None:
        changes["journey_txid"] = revision.journey_txid
    if revision.start is not None and revision.start != recurrence.start:
        if not created:
            problems.append(Problem.of(RecurrenceField.START, "changes only while the recurrence is CRIADA"))
        elif revision.start < today_of(recurrence.created_at):
            problems.append(Problem.of(RecurrenceField.START, "must not be before the recurrence's creation"))
        elif recurrence.end is not None and recurrence.end < revision.start:
            problems.append(Problem.of(RecurrenceField.START, "must not be after the recurrence's last day"))
        changes["start"] = revision.start
    if revision.loc_id is not None and revision.loc_id != recurrence.loc_id:
        if not created:
            problems.append(Problem.of(RecurrenceField.LOC_ID, "changes only while the recurrence is CRIADA"))
        else:
            await _free_location(tx, recurrence.account_id, revision.loc_id)
        changes["loc_id"] = revision.loc_id
    if problems:
        raise InvalidRecurrence(problems=problems, summary="Invalid recurrence change: {}")
    return dataclasses.replace(recurrence, **changes)  # type: ignore[arg-type]


async def read_recurrence_payload(uow: UnitOfWorkFactory, clock: Clock, *, token: str) -> Recurrence:
    """``GET /rec/{recUrlAccessToken}``: the recurrence at the location ``token``, for the payer's
    bank; an expired, rejected or cancelled one is refused (the standard's choice we make: a 400)."""
    today = today_of(clock.now())
    async with uow() as tx:
        recurrence = await tx.recurrences.get_by_location(token)
    if recurrence is None:
        raise RecurrenceNotFound("No recurrence is at this location.")
    status = recurrence.status_at(today)
    if status.closed:
        raise RecurrenceClosed(f"the recurrence is {status.value}")
    return recurrence


# -- locations (/locrec) -------------------------------------------------------------------------


async def create_recurrence_location(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int
) -> RecurrenceLocation:
    """``POST /locrec``: a new location of the account, serving no recurrence yet."""
    now = clock.now()
    async with uow() as tx:
        await load_account(tx, account_id)
        location = await tx.recurrence_locations.add(
            NewRecurrenceLocation(account_id=account_id, token=new_location_id(), created_at=now)
        )
        await tx.commit()
    return location


async def read_recurrence_location(
    uow: UnitOfWorkFactory, *, account_id: int, location_id: int
) -> RecurrenceLocation:
    """``GET /locrec/{id}``: the account's location with its recurrence's id, if any."""
    async with uow() as tx:
        location = await tx.recurrence_locations.get(account_id, location_id)
    if location is None:
        raise RecurrenceLocationNotFound()
    return location


async def list_recurrence_locations(
    uow: UnitOfWorkFactory, *, account_id: int, query: LocationListQuery
) -> LocationListing:
    """``GET /locrec``: the account's locations created in the window."""
    if query.matches_nothing:
        return LocationListing(0, ())
    async with uow() as tx:
        total, found = await tx.recurrence_locations.search(account_id, query)
    return LocationListing(total, tuple(found))


async def unlink_recurrence_location(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, location_id: int
) -> RecurrenceLocation:
    """``DELETE /locrec/{id}/idRec``: the location no longer serves its recurrence, which has no
    location then (its status unchanged)."""
    now = clock.now()
    async with uow() as tx:
        location = await tx.recurrence_locations.lock(account_id, location_id)
        if location is None:
            raise RecurrenceLocationNotFound()
        if location.rec_id is not None:
            recurrence = await _owned(tx, account_id, location.rec_id, lock=True)
            await save_recurrence(
                tx, dataclasses.replace(recurrence, loc_id=None, updated_at=now), at=now, moved=False
            )
        await tx.commit()
    return dataclasses.replace(location, rec_id=None)
