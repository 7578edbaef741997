"""The sandbox key directory (the ``KeyDirectory`` port).

A key of an account of this service resolves to that account (such transfers
settle inside the service); any other key must have been added with
``POST /sandbox/dict``, which also sets how the receiving side behaves.
"""

from __future__ import annotations

from pixcore.errors import DuplicatePixKey
from pixcore.keys import PixKey
from pixcore.transfers import DirectoryEntry
from pixweb.persistence.engine import DB

__all__ = ["SandboxDirectory"]


class SandboxDirectory:
    def __init__(self, bank_name: str) -> None:
        self._bank_name = bank_name

    async def lookup(self, key: PixKey) -> DirectoryEntry | None:
        if DB.pool is None:
            raise RuntimeError("the database is not open")
        async with DB.pool.acquire() as conn:
            row = await conn.fetchrow(
                """
                SELECT a.id, a.ispb, a.name, a.document, a.branch, a.number
                  FROM pix_keys k JOIN accounts a ON a.id = k.account_id
                 WHERE k.key_value = $1
                """,
                key.value,
            )
            if row is not None:
                return DirectoryEntry(
                    key=key,
                    ispb=row["ispb"],
                    name=row["name"],
                    document=row["document"],
                    bank_name=self._bank_name,
                    branch=row["branch"],
                    account_number=row["number"],
                    account_id=row["id"],
                )
            row = await conn.fetchrow("SELECT * FROM sandbox_directory WHERE key_value = $1", key.value)
        if row is None:
            return None
        return DirectoryEntry(
            key=key,
            ispb=row["ispb"],
            name=row["name"],
            document=row["document"],
            bank_name=row["bank_name"],
            branch=row["branch"],
            account_number=row["account_number"],
            behavior=row["behavior"],
        )

    async def add(self, entry: DirectoryEntry) -> None:
        """Register an external key; a key any account or earlier entry has is ``DuplicatePixKey``."""
        if DB.pool is None:
            raise RuntimeError("the database is not open")
        async with DB.pool.acquire() as conn, conn.transaction():
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
