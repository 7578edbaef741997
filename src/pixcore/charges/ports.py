"""The ports of charges: charges (``cob``, ``cobv``), their batches and payload locations."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pixcore.amount_parts import DueAmount
from pixcore.charges.batches import DueBatch
from pixcore.charges.cob import Charge, ChargeLine, ChargeStatus, NewCharge
from pixcore.charges.locations import Location, NewLocation
from pixcore.queries.standard import BatchQuery, ChargeQuery, LocationQuery

__all__ = ["ChargeRepository", "DueBatchRepository", "LocationRepository"]


class ChargeRepository(Protocol):
    async def add(self, charge: NewCharge) -> Charge:
        """Store a new ATIVA charge, and keep it as its revision 0. Raises ``DuplicateCharge`` if
        the account has its txid, ``DuplicateExternalId`` if it has a cash-in with its external id."""
        ...

    async def get(self, account_id: int, txid: str) -> Charge | None: ...

    async def get_by_location(self, location_id: str) -> Charge | None: ...

    async def recent(self, account_id: int, limit: int, *, amount: int | None = None) -> list[ChargeLine]:
        """The lines of the account's newest charges and cash-ins, newest first, ``limit`` at most;
        with ``amount`` (centavos), those of that amount only."""
        ...

    async def get_by_external_id(self, account_id: int, external_id: str) -> Charge | None: ...

    async def search(
        self, account_id: int, query: ChargeQuery, now: datetime, *, due: bool = False
    ) -> tuple[int, list[Charge]]:
        """``GET /cob``: how many of the account's charges match, and the page asked for, oldest
        first (``created_at``, then id). ``status`` matches the status a reader sees at ``now``.
        ``due``: its ``cobv`` only (``GET /cobv``); else every other kind."""
        ...

    async def revise(self, charge: Charge) -> None:
        """Store a revised charge's fields (calendar, amount, key, debtor, texts, BR Code, revision),
        and keep that revision (:meth:`revision`)."""
        ...

    async def revision(self, charge_id: int, revision: int) -> Charge | None:
        """The charge as it stood when ``revision`` was written: that revision's fields and status,
        without payment. :meth:`add` keeps revision 0, :meth:`revise` and an :meth:`update` that
        changes the revision keep theirs, each in its own unit of work. None: not kept (a charge
        revised before revisions were kept has only its revisions since)."""
        ...

    async def lock(self, account_id: int, txid: str) -> Charge | None:
        """The charge, locked for this unit of work (``FOR UPDATE``: waits for other writers)."""
        ...

    async def lock_by_location(self, location_id: str) -> Charge | None: ...

    async def lock_expired(self, now: datetime, limit: int) -> list[Charge]:
        """ATIVA charges past their expiry, locked; rows other workers hold are skipped."""
        ...

    async def update(
        self,
        charge_id: int,
        *,
        status: ChargeStatus,
        revision: int,
        at: datetime,
        transaction_id: int | None = None,
        paid_end_to_end_id: str | None = None,
        paid_parts: DueAmount | None = None,
    ) -> None:
        """Store a new status (and, when paid, the PAYMENT record, its E2E id and, for a ``cobv``,
        the parts of the amount paid); a ``revision`` other than the stored one (a cancellation) is
        kept as :meth:`revise` keeps one."""
        ...

    async def locate(self, charge_id: int, location: Location | None, *, url: str, br_code: str) -> None:
        """Put the charge at ``location`` (its payload ``url`` and BR Code made for it), or at none
        (``None``: unlinked; ``url`` and ``br_code`` then kept as they were). Raises
        ``LocationTaken`` if the location serves another charge (the unique index's guard)."""
        ...


class LocationRepository(Protocol):
    """Payload locations (``/loc``). A location's charge is the one whose ``loc_id`` it is."""

    async def add(self, location: NewLocation) -> Location:
        """Store a new location serving no charge; its id comes from the locations' sequence."""
        ...

    async def get(self, account_id: int, location_id: int) -> Location | None:
        """The account's location with its charge's txid; another account's is None."""
        ...

    async def lock(self, account_id: int, location_id: int) -> Location | None:
        """As :meth:`get`, the location row locked for this unit of work (``FOR UPDATE``), its
        charge read after the lock (so a link committed meanwhile is seen)."""
        ...

    async def search(self, account_id: int, query: LocationQuery) -> tuple[int, list[Location]]:
        """``GET /loc``: how many of the account's locations match, and the page, oldest first
        (``created_at``, then id)."""
        ...


class DueBatchRepository(Protocol):
    """Batches of due-date charges (``/lotecobv``), each the account's: ``(account_id, id)``."""

    async def add(self, batch: DueBatch) -> None:
        """Store a new batch (its items too). Raises ``DuplicateBatch`` if the account has its id
        (a second writer of the same id waits for the first, then fails)."""
        ...

    async def get(self, account_id: int, batch_id: int) -> DueBatch | None: ...

    async def lock(self, account_id: int, batch_id: int) -> DueBatch | None:
        """The batch, locked for this unit of work (``FOR UPDATE``: waits for other writers)."""
        ...

    async def save(self, batch: DueBatch) -> None:
        """Store a locked batch's description and its items' outcomes (by txid)."""
        ...

    async def search(self, account_id: int, query: BatchQuery) -> tuple[int, list[DueBatch]]:
        """``GET /lotecobv``: how many of the account's batches were created in the window, and
        the page asked for, oldest first (creation, then id)."""
        ...
