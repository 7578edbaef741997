"""The DICT's claims, kept beside its entries in the network's PostgreSQL database.

:class:`PostgresDirectory` is the store of ``pixnet serve``'s DICT: the entries
(:class:`~pixnet.store.entries.PostgresEntryStore`) and the claims
(:class:`~pixnet.directory.claims.ClaimStore`). One open claim a key is the table's partial
unique index; a change of a claim is one transaction that checks the status it expects
(``FOR UPDATE``) and, on confirmation, removes the key's entry, on completion makes the claimer's.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from pixcore.keys import PixKeyType
from pixinfra.persistence.sql import compose
from pixnet.directory.claims import ClaimChanged
from pixnet.directory.entries import KeyTaken
from pixnet.store.entries import PostgresEntryStore, insert_entry
from pixwire.dict.model import (
    AccountType,
    BrazilianAccount,
    CancelledBy,
    Claim,
    ClaimQuery,
    ClaimReason,
    ClaimStatus,
    ClaimType,
    Entry,
    NewClaim,
    Owner,
    OwnerType,
)

__all__ = ["PostgresDirectory"]

_COLUMNS = (
    "id, type, key, key_type, claimer_participant, claimer_branch, claimer_account_number,"
    " claimer_account_type, claimer_opened_at, claimer_type, claimer_tax_id, claimer_name,"
    " claimer_trade_name, donor_participant, donor_owned_since, status, resolution_period_end,"
    " completion_period_end, confirm_reason, cancel_reason, cancelled_by, completed_request,"
    " created_at, last_modified"
)
_OPEN = "('OPEN', 'WAITING_RESOLUTION', 'CONFIRMED')"


def _optional(kind: Any, value: str | None) -> Any:
    return None if value is None else kind(value)


def _claim(row: Any) -> Claim:
    return Claim(
        asked=NewClaim(
            type=ClaimType(row["type"]),
            key=row["key"],
            key_type=PixKeyType(row["key_type"]),
            claimer_account=BrazilianAccount(
                participant=row["claimer_participant"],
                branch=row["claimer_branch"],
                number=row["claimer_account_number"],
                type=AccountType(row["claimer_account_type"]),
                opened_at=row["claimer_opened_at"],
            ),
            claimer=Owner(
                type=OwnerType(row["claimer_type"]),
                tax_id=row["claimer_tax_id"],
                name=row["claimer_name"],
                trade_name=row["claimer_trade_name"],
            ),
        ),
        id=row["id"],
        donor=row["donor_participant"],
        status=ClaimStatus(row["status"]),
        resolution_period_end=row["resolution_period_end"],
        completion_period_end=row["completion_period_end"],
        last_modified=row["last_modified"],
        created_at=row["created_at"],
        donor_owned_since=row["donor_owned_since"],
        confirm_reason=_optional(ClaimReason, row["confirm_reason"]),
        cancel_reason=_optional(ClaimReason, row["cancel_reason"]),
        cancelled_by=_optional(CancelledBy, row["cancelled_by"]),
        completed_request=row["completed_request"],
    )


def _values(claim: Claim) -> tuple[Any, ...]:
    asked, account, claimer = claim.asked, claim.asked.claimer_account, claim.asked.claimer
    return (
        claim.id,
        asked.type.value,
        asked.key,
        asked.key_type.value,
        account.participant,
        account.branch,
        account.number,
        account.type.value,
        account.opened_at,
        claimer.type.value,
        claimer.tax_id,
        claimer.name,
        claimer.trade_name,
        claim.donor,
        claim.donor_owned_since,
        claim.status.value,
        claim.resolution_period_end,
        claim.completion_period_end,
        _optional(str, claim.confirm_reason),
        _optional(str, claim.cancel_reason),
        _optional(str, claim.cancelled_by),
        claim.completed_request,
        claim.created_at,
        claim.last_modified,
    )


_INSERT = compose(
    "INSERT INTO claims (", _COLUMNS, ") VALUES (", ", ".join(f"${n}" for n in range(1, 25)), ")"
)
_SELECT = compose("SELECT ", _COLUMNS, " FROM claims WHERE ")
_LOCKED = compose("SELECT EXISTS (SELECT FROM claims WHERE key = $1 AND status IN ", _OPEN, ")")
_BY_ID = compose(_SELECT, "id = $1")
_OPEN_OF_KEY = compose(_SELECT, "key = $1 AND status IN ", _OPEN)
_LISTED = """
 AND (cardinality($2::text[]) = 0 OR status = ANY ($2))
 AND ($3::text IS NULL OR type = $3)
 AND ($4::timestamptz IS NULL OR last_modified >= $4)
 AND ($5::timestamptz IS NULL OR last_modified <= $5)
 ORDER BY last_modified, id LIMIT $6
"""
_ROLES = {
    "either": "(donor_participant = $1 OR claimer_participant = $1)",
    "donor": "donor_participant = $1",
    "claimer": "claimer_participant = $1",
}
_UPDATE = (
    "UPDATE claims SET status = $2, completion_period_end = $3, confirm_reason = $4, cancel_reason = $5,"
    " cancelled_by = $6, completed_request = $7, last_modified = $8 WHERE id = $1"
)


class PostgresDirectory(PostgresEntryStore):
    """The DICT's entries and claims."""

    async def locked_by_claim(self, key: str) -> bool:
        found: bool = await self._pool.fetchval(_LOCKED, key)
        return found

    async def claim(self, claim_id: uuid.UUID) -> Claim | None:
        row = await self._pool.fetchrow(_BY_ID, claim_id)
        return None if row is None else _claim(row)

    async def open_claim(self, key: str) -> Claim | None:
        row = await self._pool.fetchrow(_OPEN_OF_KEY, key)
        return None if row is None else _claim(row)

    async def add_claim(self, claim: Claim) -> None:
        try:
            await self._pool.execute(_INSERT, *_values(claim))
        except asyncpg.UniqueViolationError as exc:
            raise ClaimChanged(claim.id) from exc

    async def change_claim(
        self, claim: Claim, was: ClaimStatus, *, remove_entry: bool = False, add_entry: Entry | None = None
    ) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            status = await connection.fetchval("SELECT status FROM claims WHERE id = $1 FOR UPDATE", claim.id)
            if status != was.value:
                raise ClaimChanged(claim.id)
            await connection.execute(
                _UPDATE,
                claim.id,
                claim.status.value,
                claim.completion_period_end,
                _optional(str, claim.confirm_reason),
                _optional(str, claim.cancel_reason),
                _optional(str, claim.cancelled_by),
                claim.completed_request,
                claim.last_modified,
            )
            if remove_entry:
                await connection.execute(
                    "DELETE FROM entries WHERE key = $1 AND participant = $2", claim.asked.key, claim.donor
                )
            if add_entry is not None:
                try:
                    await insert_entry(connection, add_entry)
                except asyncpg.UniqueViolationError as exc:
                    raise KeyTaken(add_entry.key) from exc

    async def claims(self, query: ClaimQuery) -> list[Claim]:
        if query.is_donor == query.is_claimer:  # both, or neither: either role (the document's "or")
            role = "either"
        elif query.is_donor or query.is_claimer is False:
            role = "donor"
        else:
            role = "claimer"
        rows = await self._pool.fetch(
            compose(_SELECT, _ROLES[role], _LISTED),
            query.participant,
            [status.value for status in query.statuses],
            _optional(str, query.type),
            query.modified_after,
            query.modified_before,
            query.limit + 1,
        )
        return [_claim(row) for row in rows]
