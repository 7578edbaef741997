"""The ports of Pix Automático, one per aggregate: recurrences, requests for authorization,
recurring charges (with their attempts), recurrence locations, and the payer's bank the sandbox
simulates. Each is reached through the unit of work, so that one transaction holds a charge's
attempt, the payer's debit, the ledger's posting and the outbox's events."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol

from pixcore.recurrences.queries import ChargeListQuery, LocationListQuery, RecurrenceListQuery
from pixcore.recurrences.records import (
    NewRecurrence,
    NewRecurrenceLocation,
    NewRecurrenceRequest,
    NewRecurringCharge,
    Payer,
    Recurrence,
    RecurrenceLocation,
    RecurrenceRequest,
    RecurringCharge,
)

__all__ = [
    "PayerBank",
    "RecurrenceLocationRepository",
    "RecurrenceRepository",
    "RecurrenceRequestRepository",
    "RecurringChargeRepository",
]


class RecurrenceRepository(Protocol):
    """Recurrences, each the account's; ``rec_id`` (``idRec``) is unique in the service."""

    async def add(self, recurrence: NewRecurrence) -> Recurrence:
        """Store a new CRIADA recurrence with its first line of history. Raises
        ``DuplicateRecurrence`` if its ``rec_id`` exists, ``RecurrenceLocationTaken`` if its
        location serves another recurrence."""
        ...

    async def get(self, account_id: int, rec_id: str) -> Recurrence | None: ...

    async def lock(self, account_id: int, rec_id: str) -> Recurrence | None:
        """The recurrence, locked for this unit of work (``FOR UPDATE``)."""
        ...

    async def lock_any(self, rec_id: str) -> Recurrence | None:
        """The recurrence of any account, locked: the payer's side knows it by its id alone."""
        ...

    async def get_by_location(self, token: str) -> Recurrence | None:
        """The recurrence at the location whose URL ends in ``token``."""
        ...

    async def save(self, recurrence: Recurrence) -> None:
        """Store a locked recurrence's changes: status, history, journey, payer, closing, debtor's
        name, start, location and journey txid. Raises ``RecurrenceLocationTaken`` as :meth:`add`."""
        ...

    async def search(self, account_id: int, query: RecurrenceListQuery) -> tuple[int, list[Recurrence]]:
        """``GET /rec``: how many of the account's recurrences created in the window match, and the
        page asked for, oldest first (creation, then id)."""
        ...


class RecurrenceRequestRepository(Protocol):
    """Requests for a payer's authorization (``/solicrec``); ``request_id`` is unique in the service."""

    async def add(self, request: NewRecurrenceRequest) -> RecurrenceRequest:
        """Store a new CRIADA request. Raises ``ActiveRequestExists`` if its recurrence has an open
        one (CRIADA, ENVIADA or RECEBIDA: the partial unique index's guard)."""
        ...

    async def get(self, account_id: int, request_id: str) -> RecurrenceRequest | None: ...

    async def lock(self, account_id: int, request_id: str) -> RecurrenceRequest | None: ...

    async def lock_any(self, request_id: str) -> RecurrenceRequest | None:
        """The request of any account, locked (the payer's bank answers it)."""
        ...

    async def of_recurrence(self, recurrence_id: int) -> list[RecurrenceRequest]:
        """The recurrence's requests, oldest first."""
        ...

    async def save(self, request: RecurrenceRequest) -> None:
        """Store a locked request's status and history."""
        ...


class RecurringChargeRepository(Protocol):
    """Recurring charges (``/cobr``) with their attempts; a txid is the account's."""

    async def add(self, charge: NewRecurringCharge) -> RecurringCharge:
        """Store a new CRIADA charge and its first attempt. Raises ``DuplicateCharge`` if the
        account has its txid, ``CycleTaken`` if its recurrence has a charge of the same cycle that
        is not REJEITADA or CANCELADA (the partial unique index's guard)."""
        ...

    async def get(self, account_id: int, txid: str) -> RecurringCharge | None: ...

    async def lock(self, account_id: int, txid: str) -> RecurringCharge | None: ...

    async def lock_live(self, recurrence_id: int) -> list[RecurringCharge]:
        """The recurrence's CRIADA and ATIVA charges, locked, oldest first."""
        ...

    async def lock_due(self, day: date, limit: int) -> list[RecurringCharge]:
        """Charges with work for the payer's bank on ``day``, locked, rows other workers hold
        skipped: CRIADA or ATIVA ones whose pending attempt is SOLICITADA (any date) or AGENDADA
        for ``day`` or before, and ATIVA ones with no pending attempt (the retry window may have
        closed). At most ``limit``, by their attempt's date."""
        ...

    async def save(self, charge: RecurringCharge) -> None:
        """Store a locked charge's status, history, closing, payment and its attempts (each by its
        number: new ones added, the others' status, history and rejection changed). Raises
        ``CycleTaken`` as :meth:`add` never does here (a status only leaves the cycle)."""
        ...

    async def search(self, account_id: int, query: ChargeListQuery) -> tuple[int, list[RecurringCharge]]:
        """``GET /cobr``: how many of the account's recurring charges created in the window match,
        and the page asked for, oldest first (creation, then id)."""
        ...


class RecurrenceLocationRepository(Protocol):
    """Locations of recurrences' payloads (``/locrec``). A location's recurrence is the one whose
    ``loc_id`` it is."""

    async def add(self, location: NewRecurrenceLocation) -> RecurrenceLocation:
        """Store a new location serving no recurrence; its id comes from a sequence."""
        ...

    async def get(self, account_id: int, location_id: int) -> RecurrenceLocation | None:
        """The account's location with its recurrence's ``rec_id``; another account's is None."""
        ...

    async def lock(self, account_id: int, location_id: int) -> RecurrenceLocation | None:
        """As :meth:`get`, the location locked (``FOR UPDATE``), its recurrence read after the lock."""
        ...

    async def search(self, account_id: int, query: LocationListQuery) -> tuple[int, list[RecurrenceLocation]]:
        """``GET /locrec``: how many of the account's locations created in the window match, and
        the page, oldest first (creation, then id)."""
        ...


class PayerBank(Protocol):
    """The payer's institution, as the sandbox simulates it: a balance per payer (a document at
    an ISPB), which the sandbox sets and recurring charges debit. Outside the service's ledger:
    a debit here is money arriving from another institution (``ledger.receive``)."""

    async def set_balance(self, payer: Payer, amount: int) -> None:
        """The payer's balance becomes ``amount`` centavos (a payer not seen before is opened)."""
        ...

    async def balance(self, payer: Payer) -> int:
        """The payer's balance; 0 for a payer never set."""
        ...

    async def debit(self, payer: Payer, amount: int) -> bool:
        """Take ``amount`` from the payer if their balance covers it (guarded: never below zero);
        False, and nothing changed, when it does not."""
        ...

    async def balances(self, payers: Sequence[Payer]) -> list[int]:
        """:meth:`balance` of each payer, in order."""
        ...
