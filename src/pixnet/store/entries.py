"""The DICT's entries and the participants, kept in the network's PostgreSQL database.

:class:`PostgresEntryStore` is the :class:`~pixnet.directory.entries.EntryStore` of ``pixnet
serve``: each method one statement, so atomic on its own; a key's uniqueness is the table's
primary key (a race lost is :class:`~pixnet.directory.entries.KeyTaken`).
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from pixcore.keys import PixKeyType
from pixinfra.persistence.sql import compose
from pixnet.directory.entries import KeyTaken
from pixwire.dict.model import AccountType, BrazilianAccount, Entry, Owner, OwnerType
from pixwire.dict.statistics import CountedBy, Counter, CounterType, Statistics, windows

__all__ = [
    "Participant",
    "PostgresEntryStore",
    "add_participant",
    "der_fingerprint",
    "insert_entry",
    "participant_by_fingerprint",
]

_COLUMNS = (
    "key, key_type, participant, branch, account_number, account_type, opened_at, owner_type, tax_id,"
    " owner_name, trade_name, created_at, owned_since, request_id"
)


def _entry(row: Any) -> Entry:
    return Entry(
        key=row["key"],
        key_type=PixKeyType(row["key_type"]),
        account=BrazilianAccount(
            participant=row["participant"],
            branch=row["branch"],
            number=row["account_number"],
            type=AccountType(row["account_type"]),
            opened_at=row["opened_at"],
        ),
        owner=Owner(
            type=OwnerType(row["owner_type"]),
            tax_id=row["tax_id"],
            name=row["owner_name"],
            trade_name=row["trade_name"],
        ),
        created_at=row["created_at"],
        owned_since=row["owned_since"],
        request_id=row["request_id"],
    )


async def insert_entry(connection: Any, entry: Entry) -> None:
    """Keep ``entry`` (``UniqueViolationError`` when its key, or its participant's RequestId, is taken)."""
    account, owner = entry.account, entry.owner
    await connection.execute(
        compose(
            "INSERT INTO entries (",
            _COLUMNS,
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        ),
        entry.key,
        entry.key_type.value,
        account.participant,
        account.branch,
        account.number,
        account.type.value,
        account.opened_at,
        owner.type.value,
        owner.tax_id,
        owner.name,
        owner.trade_name,
        entry.created_at,
        entry.owned_since,
        entry.request_id,
    )


class PostgresEntryStore:
    def __init__(self, pool: asyncpg.Pool[Any]) -> None:
        self._pool = pool

    async def by_key(self, key: str) -> Entry | None:
        row = await self._pool.fetchrow(compose("SELECT ", _COLUMNS, " FROM entries WHERE key = $1"), key)
        return None if row is None else _entry(row)

    async def by_request(self, participant: str, request_id: uuid.UUID) -> Entry | None:
        row = await self._pool.fetchrow(
            compose("SELECT ", _COLUMNS, " FROM entries WHERE participant = $1 AND request_id = $2"),
            participant,
            request_id,
        )
        return None if row is None else _entry(row)

    async def count_for_account(self, participant: str, branch: str | None, number: str) -> int:
        count: int = await self._pool.fetchval(
            "SELECT count(*) FROM entries"
            " WHERE participant = $1 AND account_number = $2 AND branch IS NOT DISTINCT FROM $3",
            participant,
            number,
            branch,
        )
        return count

    async def add(self, entry: Entry) -> None:
        try:
            await insert_entry(self._pool, entry)
        except asyncpg.UniqueViolationError as exc:
            raise KeyTaken(entry.key) from exc

    async def remove(self, key: str) -> None:
        await self._pool.execute("DELETE FROM entries WHERE key = $1", key)

    async def statistics(self, entry: Entry, now: datetime) -> Statistics:
        """The anti-fraud counters of ``entry``'s key, owner and account at ``now`` (exact: a
        look-up quantizes the settlements, :meth:`Counter.shown`)."""
        d3, d30, m6_from, m6_to = windows(now)
        account = entry.account
        rows = await self._pool.fetch(
            _COUNTERS,
            entry.key,
            entry.owner.tax_id,
            account.participant,
            account.number,
            account.branch,
            d3,
            d30,
            m6_from,
            m6_to,
            now,
        )
        counted = {(row["kind"], row["by"]): row for row in rows}
        counters = []
        for kind in CounterType:
            for by in CountedBy:
                row = counted.get((kind.value, by.value))
                counters.append(
                    Counter(kind, by, *((row["d3"], row["d30"], row["m6"]) if row else (0, 0, 0)))
                )
        return Statistics(last_updated=now, counters=tuple(counters))


_COUNTERS = """
SELECT kind, by,
       count(*) FILTER (WHERE at > $6 AND at <= $10) AS d3,
       count(*) FILTER (WHERE at > $7 AND at <= $10) AS d30,
       count(*) FILTER (WHERE at >= $8 AND at < $9) AS m6
  FROM (SELECT kind, 'KEY' AS by, at FROM directory_events WHERE key = $1
        UNION ALL
        SELECT kind, 'OWNER', at FROM directory_events WHERE tax_id = $2
        UNION ALL
        SELECT kind, 'ACCOUNT', at FROM directory_events
         WHERE participant = $3 AND account_number = $4 AND branch IS NOT DISTINCT FROM $5) AS e
 WHERE at >= least($7, $8)
 GROUP BY kind, by
"""


@dataclass(frozen=True, slots=True)
class Participant:
    """An institution of the network, known by the certificate it connects and signs with."""

    ispb: str
    name: str
    certificate: bytes
    """PEM."""
    fingerprint: str
    created_at: datetime


def der_fingerprint(der: bytes) -> str:
    """A certificate's fingerprint: the SHA-256 of its DER, lowercase hex."""
    return hashlib.sha256(der).hexdigest()


async def add_participant(connection: Any, ispb: str, name: str, certificate_pem: bytes) -> Participant:
    """Register (or, for the same ISPB, re-register with a new certificate) a participant, with its
    settlement account (empty at first)."""
    certificate = x509.load_pem_x509_certificate(certificate_pem)
    async with connection.transaction():
        row = await connection.fetchrow(
            "INSERT INTO participants (ispb, name, certificate, fingerprint) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (ispb) DO UPDATE"
            " SET name = EXCLUDED.name, certificate = EXCLUDED.certificate,"
            " fingerprint = EXCLUDED.fingerprint"
            " RETURNING ispb, name, certificate, fingerprint, created_at",
            ispb,
            name,
            certificate.public_bytes(Encoding.PEM).decode("ascii"),
            der_fingerprint(certificate.public_bytes(Encoding.DER)),
        )
        await connection.execute(
            "INSERT INTO settlement_accounts (ispb) VALUES ($1) ON CONFLICT (ispb) DO NOTHING", ispb
        )
    return _participant(row)


def _participant(row: Any) -> Participant:
    return Participant(
        ispb=row["ispb"],
        name=row["name"],
        certificate=row["certificate"].encode("ascii"),
        fingerprint=row["fingerprint"],
        created_at=row["created_at"],
    )


async def participant_by_fingerprint(connection: Any, fingerprint_hex: str) -> Participant | None:
    row = await connection.fetchrow(
        "SELECT ispb, name, certificate, fingerprint, created_at FROM participants WHERE fingerprint = $1",
        fingerprint_hex,
    )
    return None if row is None else _participant(row)
