"""The rows of Pix Automático's fakes (committed in a store, staged in a unit of work) and the
unique indexes of the adapter, checked on them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pixcore.errors import DuplicateCharge
from pixcore.recurrences.errors import (
    ActiveRequestExists,
    CycleTaken,
    DuplicateRecurrence,
    RecurrenceLocationTaken,
)
from pixcore.recurrences.records import Recurrence, RecurrenceLocation, RecurrenceRequest, RecurringCharge
from pixcore.testing._integrity import IntegrityError

__all__ = ["PayerKey", "RecurrenceTables", "charge_conflict", "recurrence_conflict", "request_conflict"]

PayerKey = tuple[str, str]
"""A payer at their bank: (ISPB, document)."""


@dataclass
class RecurrenceTables:
    """The rows of Pix Automático: committed in a store, or staged in a unit of work."""

    recurrences: dict[int, Recurrence] = field(default_factory=dict)
    requests: dict[int, RecurrenceRequest] = field(default_factory=dict)
    charges: dict[int, RecurringCharge] = field(default_factory=dict)
    locations: dict[int, RecurrenceLocation] = field(default_factory=dict)  # rec_id left None
    balances: dict[PayerKey, int] = field(default_factory=dict)
    """Committed: each payer's balance. Staged: the balances set in the unit (absolute)."""
    debits: dict[PayerKey, int] = field(default_factory=dict)
    """Staged only: what the unit debited from each payer (after its sets)."""

    def conflict(self, staged: RecurrenceTables) -> Exception | None:
        """What the adapter's unique indexes would refuse in ``staged`` beside these committed rows."""
        return (
            recurrence_conflict({**self.recurrences, **staged.recurrences}.values())
            or request_conflict({**self.requests, **staged.requests}.values())
            or charge_conflict({**self.charges, **staged.charges}.values())
        )

    def merged(self, staged: RecurrenceTables) -> RecurrenceTables:
        """These committed rows with ``staged`` applied, as new tables (these are left as they
        are); raises ``IntegrityError`` if a staged debit no longer fits the committed balance."""
        balances = {**self.balances, **staged.balances}
        for key, amount in staged.debits.items():
            if balances.get(key, 0) < amount:
                raise IntegrityError(f"the payer {key} has not {amount} any more")
            balances[key] = balances.get(key, 0) - amount
        return RecurrenceTables(
            recurrences={**self.recurrences, **staged.recurrences},
            requests={**self.requests, **staged.requests},
            charges={**self.charges, **staged.charges},
            locations={**self.locations, **staged.locations},
            balances=balances,
        )


def recurrence_conflict(rows: Iterable[Recurrence]) -> Exception | None:
    seen: set[str] = set()
    served: set[int] = set()
    for recurrence in rows:
        if recurrence.rec_id in seen:
            return DuplicateRecurrence()
        seen.add(recurrence.rec_id)
        if recurrence.loc_id is not None:
            if recurrence.loc_id in served:
                return RecurrenceLocationTaken()
            served.add(recurrence.loc_id)
    return None


def request_conflict(rows: Iterable[RecurrenceRequest]) -> Exception | None:
    open_for: set[int] = set()
    ids: set[str] = set()
    for request in rows:
        if request.request_id in ids:
            return IntegrityError(f"the request {request.request_id} exists already")
        ids.add(request.request_id)
        if request.status.open:
            if request.recurrence_id in open_for:
                return ActiveRequestExists()
            open_for.add(request.recurrence_id)
    return None


def charge_conflict(rows: Iterable[RecurringCharge]) -> Exception | None:
    txids: set[tuple[int, str]] = set()
    cycles: set[tuple[int, int]] = set()
    for charge in rows:
        if (charge.account_id, charge.txid) in txids:
            return DuplicateCharge(f"a charge with txid {charge.txid} exists already")
        txids.add((charge.account_id, charge.txid))
        if charge.status.holds_cycle:
            if (charge.recurrence_id, charge.cycle) in cycles:
                return CycleTaken()
            cycles.add((charge.recurrence_id, charge.cycle))
    return None
