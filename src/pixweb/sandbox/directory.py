"""The sandbox key directory (the ``KeyDirectory`` port).

A key of an account of this service resolves to that account (such transfers
settle inside the service); any other key must have been added with
``POST /sandbox/dict``, which also sets how the receiving side behaves. The
sandbox limits no look-ups: the payer a key is looked up for changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from pixcore.errors import DuplicatePixKey
from pixcore.keys import PixKey
from pixcore.transfers.rules import DirectoryEntry
from pixinfra.postgres.pool import Database

__all__ = ["SandboxDirectory"]


class SandboxDirectory:
    def __init__(self, database: Database, bank_name: str) -> None:
        self._database = database
        self._bank_name = bank_name

    async def lookup_many(
        self,
        keys: Sequence[PixKey],
        *,
        payer: str,  # noqa: ARG002 - the port's; the sandbox limits no payer's look-ups
    ) -> dict[str, DirectoryEntry]:
        by_value = {key.value: key for key in keys}
        async with self._database.acquire() as conn:
            # As lookup, for every key at once: per key, an account's key wins over a sandbox entry.
            rows = await conn.fetch(
                """
                SELECT DISTINCT ON (key_value) key_value, id, ispb, name, document, bank_name, branch,
                       number, behavior
                  FROM (SELECT k.key_value, a.id, a.ispb, a.name, a.document, NULL AS bank_name, a.branch,
                               a.number, 'settle' AS behavior, 0 AS rank
                          FROM pix_keys k JOIN accounts a ON a.id = k.account_id
                         WHERE k.key_value = ANY($1::text[])
                        UNION ALL
                        SELECT d.key_value, NULL, d.ispb, d.name, d.document, d.bank_name, d.branch,
                               d.account_number, d.behavior, 1
                          FROM sandbox_directory d
                         WHERE d.key_value = ANY($1::text[])) AS found
                 ORDER BY key_value, rank
                """,
                list(by_value),
            )
        return {row["key_value"]: self._entry(by_value[row["key_value"]], row) for row in rows}

    async def lookup(
        self,
        key: PixKey,
        *,
        payer: str,  # noqa: ARG002 - the port's; the sandbox limits no payer's look-ups
    ) -> DirectoryEntry | None:
        async with self._database.acquire() as conn:
            # One round trip: an account's key wins over a sandbox entry for the same key.
            row = await conn.fetchrow(
                """
                SELECT a.id, a.ispb, a.name, a.document, NULL AS bank_name, a.branch, a.number,
                       'settle' AS behavior, 0 AS rank
                  FROM pix_keys k JOIN accounts a ON a.id = k.account_id
                 WHERE k.key_value = $1
                UNION ALL
                SELECT NULL, d.ispb, d.name, d.document, d.bank_name, d.branch, d.account_number,
                       d.behavior, 1
                  FROM sandbox_directory d
                 WHERE d.key_value = $1
                 ORDER BY rank
                 LIMIT 1
                """,
                key.value,
            )
        if row is None:
            return None
        return self._entry(key, row)

    def _entry(self, key: PixKey, row: asyncpg.Record) -> DirectoryEntry:
        return DirectoryEntry(
            key=key,
            ispb=row["ispb"],
            name=row["name"],
            document=row["document"],
            bank_name=row["bank_name"] or self._bank_name,
            branch=row["branch"],
            account_number=row["number"],
            behavior=row["behavior"],
            account_id=row["id"],
        )

    async def add(self, entry: DirectoryEntry) -> None:
        """Register an external key; a key any account or earlier entry has is ``DuplicatePixKey``."""
        async with self._database.transaction() as conn:
            # Serialise additions of one key against each other and against accounts' keys.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext($1))", entry.key.value)
            taken = await conn.fetchval("SELECT 1 FROM pix_keys WHERE key_value = $1", entry.key.value)
            inserted = None
            if not taken:
                inserted = await conn.fetchval(
                    """
                    INSERT INTO sandbox_directory (key_value, key_type, ispb, name, document,
                        bank_name, branch, account_number, behavior)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                    ON CONFLICT (key_value) DO NOTHING
                    RETURNING 1
                    """,
                    entry.key.value,
                    entry.key.type.value,
                    entry.ispb,
                    entry.name,
                    entry.document,
                    entry.bank_name,
                    entry.branch,
                    entry.account_number,
                    entry.behavior,
                )
            if inserted is None:
                raise DuplicatePixKey(f"the key {entry.key.value} is registered already")
