"""The PostgreSQL unit of work and its repositories (the adapters of the ports of
``pixcore.unit_of_work`` and of each feature's ``ports``).

A unit of work is one transaction (asyncpg's ``Connection.transaction()``) on a connection
of the :class:`~pixinfra.postgres.pool.Database` it is given; every repository query inside it
runs on that connection. Leaving the block without ``commit()`` rolls back. Table rows become
domain objects here and nowhere else.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import asyncpg
from asyncpg.pool import PoolConnectionProxy
from asyncpg.transaction import Transaction

from pixcore.accounts.rules import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
)
from pixcore.errors import CertificateInUse, DuplicatePixKey
from pixcore.keys import PixKey, PixKeyType
from pixinfra.persistence.charge_batches import PostgresDueBatches
from pixinfra.persistence.charges import PostgresCharges
from pixinfra.persistence.console_sessions import PostgresConsoleSessions
from pixinfra.persistence.idempotency import PostgresIdempotency
from pixinfra.persistence.ledger import PostgresLedger
from pixinfra.persistence.locations import PostgresLocations
from pixinfra.persistence.network import PostgresNetwork
from pixinfra.persistence.outbox import PostgresOutbox
from pixinfra.persistence.recurrences import (
    PostgresPayerBank,
    PostgresRecurrenceLocations,
    PostgresRecurrenceRequests,
    PostgresRecurrences,
    PostgresRecurringCharges,
)
from pixinfra.persistence.refunds import PostgresMed, PostgresRefunds
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.transactions import PostgresTransactions
from pixinfra.persistence.transfers import PostgresTransfers
from pixinfra.persistence.webhooks import PostgresWebhooks
from pixinfra.postgres.pool import Database

__all__ = ["PostgresUnitOfWork"]

log = logging.getLogger(__name__)

BRANCH = "0001"


def _account(row: dict[str, Any]) -> Account:
    return Account(
        id=row["id"],
        ispb=row["ispb"],
        branch=row["branch"],
        number=row["number"],
        name=row["name"],
        document=row["document"],
        city=row["city"],
        street=row["street"],
        state=row["state"],
        postal_code=row["postal_code"],
        created_at=row["created_at"],
        sandbox_admin=row["sandbox_admin"],
    )


class PostgresAccounts(Repository):
    async def add(self, new: NewAccount) -> Account:
        # The account number is the id, zero-padded to 8 digits (never cut: lpad truncates).
        row = await self._conn.fetchrow(
            """
            WITH new_id AS (SELECT nextval(pg_get_serial_sequence('accounts', 'id')) AS id)
            INSERT INTO accounts (id, ispb, branch, number, name, document, city, sandbox_admin, street,
                state, postal_code)
            OVERRIDING SYSTEM VALUE
            SELECT id, $1, $2, lpad(id::text, greatest(8, length(id::text)), '0'), $3, $4, $5, $6, $7, $8, $9
              FROM new_id
            RETURNING *
            """,
            new.ispb,
            BRANCH,
            new.name,
            new.document,
            new.city,
            new.sandbox_admin,
            new.street,
            new.state,
            new.postal_code,
        )
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        await self._conn.execute("INSERT INTO balances (account_id) VALUES ($1)", row["id"])
        return _account(dict(row))

    async def get(self, account_id: int) -> Account | None:
        row = await self._conn.fetchrow("SELECT * FROM accounts WHERE id = $1", account_id)
        return _account(dict(row)) if row else None


class PostgresBalances(Repository):
    async def get(self, account_id: int) -> Balance | None:
        row = await self._conn.fetchrow(
            "SELECT available, blocked FROM balances WHERE account_id = $1", account_id
        )
        return Balance(available=row["available"], blocked=row["blocked"]) if row else None

    async def lock(self, account_id: int) -> Balance | None:
        row = await self._conn.fetchrow(
            "SELECT available, blocked FROM balances WHERE account_id = $1 FOR UPDATE", account_id
        )
        return Balance(available=row["available"], blocked=row["blocked"]) if row else None


class PostgresPixKeys(Repository):
    async def add(self, account_id: int, key: PixKey) -> None:
        try:
            async with self._conn.transaction():  # a savepoint: the outer transaction survives
                await self._conn.execute(
                    "INSERT INTO pix_keys (account_id, key_type, key_value) VALUES ($1, $2, $3)",
                    account_id,
                    key.type.value,
                    key.value,
                )
        except asyncpg.UniqueViolationError:
            raise DuplicatePixKey(f"the key {key.value} is registered already") from None

    async def owner_of(self, key: PixKey) -> int | None:
        row = await self._conn.fetchrow(
            "SELECT account_id FROM pix_keys WHERE key_value = $1 LIMIT 1", key.value
        )
        return int(row["account_id"]) if row else None

    async def list_for(self, account_id: int) -> list[PixKey]:
        rows = await self._conn.fetch(
            "SELECT key_type, key_value FROM pix_keys WHERE account_id = $1 ORDER BY id", account_id
        )
        return [PixKey(PixKeyType(row["key_type"]), row["key_value"]) for row in rows]

    async def remove(self, account_id: int, key: PixKey) -> bool:
        removed = await self._conn.execute(
            "DELETE FROM pix_keys WHERE account_id = $1 AND key_value = $2", account_id, key.value
        )
        return bool(removed != "DELETE 0")


class PostgresCredentials(Repository):
    async def add(self, credential: ClientCredential) -> None:
        await self._conn.execute(
            "INSERT INTO client_credentials (client_id, account_id, secret_hash) VALUES ($1, $2, $3)",
            credential.client_id,
            credential.account_id,
            credential.secret_hash,
        )

    async def get(self, client_id: str) -> ClientCredential | None:
        row = await self._conn.fetchrow(
            "SELECT client_id, account_id, secret_hash FROM client_credentials WHERE client_id = $1",
            client_id,
        )
        if row is None:
            return None
        return ClientCredential(row["client_id"], row["account_id"], row["secret_hash"])

    async def replace_secret(self, account_id: int, secret_hash: str) -> str | None:
        client_ids = await self._conn.fetch(
            "UPDATE client_credentials SET secret_hash = $2 WHERE account_id = $1 RETURNING client_id",
            account_id,
            secret_hash,
        )
        return min((row["client_id"] for row in client_ids), default=None)


class PostgresCertificates(Repository):
    async def link(self, account_id: int, certificate: CertificateInfo) -> LinkedCertificate:
        row = await self._conn.fetchrow(
            """
            INSERT INTO client_certificates (fingerprint, account_id, subject, not_before, not_after)
            VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (fingerprint) DO UPDATE SET fingerprint = EXCLUDED.fingerprint
            RETURNING account_id, revoked_at
            """,
            certificate.fingerprint,
            account_id,
            certificate.subject,
            certificate.not_before,
            certificate.not_after,
        )
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        if row["account_id"] != account_id:
            raise CertificateInUse()
        return LinkedCertificate(certificate.fingerprint, account_id, row["revoked_at"])

    async def get(self, fingerprint: str) -> LinkedCertificate | None:
        row = await self._conn.fetchrow(
            "SELECT account_id, revoked_at FROM client_certificates WHERE fingerprint = $1", fingerprint
        )
        return LinkedCertificate(fingerprint, row["account_id"], row["revoked_at"]) if row else None

    async def revoke(self, fingerprint: str, at: datetime) -> datetime:
        row = await self._conn.fetchrow(
            """
            UPDATE client_certificates SET revoked_at = coalesce(revoked_at, $2)
            WHERE fingerprint = $1 RETURNING revoked_at
            """,
            fingerprint,
            at,
        )
        if row is None:
            raise RuntimeError(f"no certificate {fingerprint} to revoke")
        revoked_at: datetime = row["revoked_at"]
        return revoked_at


class PostgresUnitOfWork:
    """One transaction on a connection of ``database``. Rolls back unless ``commit()`` was called.
    ``readonly``: a read-only transaction, in which the server refuses every write."""

    def __init__(self, database: Database, *, readonly: bool = False) -> None:
        self.database = database
        self.readonly = readonly
        self.accounts = PostgresAccounts(self)
        self.balances = PostgresBalances(self)
        self.keys = PostgresPixKeys(self)
        self.credentials = PostgresCredentials(self)
        self.certificates = PostgresCertificates(self)
        self.sessions = PostgresConsoleSessions(self)
        self.transactions = PostgresTransactions(self)
        self.charges = PostgresCharges(self)
        self.locations = PostgresLocations(self)
        self.batches = PostgresDueBatches(self)
        self.refunds = PostgresRefunds(self)
        self.med = PostgresMed(self)
        self.ledger = PostgresLedger(self)
        self.transfers = PostgresTransfers(self)
        self.idempotency = PostgresIdempotency(self)
        self.outbox = PostgresOutbox(self)
        self.webhooks = PostgresWebhooks(self)
        self.recurrences = PostgresRecurrences(self)
        self.recurrence_requests = PostgresRecurrenceRequests(self)
        self.recurring_charges = PostgresRecurringCharges(self)
        self.recurrence_locations = PostgresRecurrenceLocations(self)
        self.payer_bank = PostgresPayerBank(self)
        self.network = PostgresNetwork(self)
        self._connection: PoolConnectionProxy[Any] | None = None
        self._transaction: Transaction | None = None
        self._done = False

    @property
    def connection(self) -> PoolConnectionProxy[Any]:
        """The unit's connection while its transaction is open. After ``commit()`` or ``rollback()``
        a statement would run outside any transaction: the repositories are refused, as the fakes'."""
        if self._done:
            raise RuntimeError("the unit of work is finished")
        if self._connection is None:
            raise RuntimeError("the unit of work is not open")
        return self._connection

    @property
    def transaction(self) -> Transaction:
        if self._done:
            raise RuntimeError("the unit of work is finished")
        if self._transaction is None:
            raise RuntimeError("the unit of work is not open")
        return self._transaction

    async def __aenter__(self) -> Self:
        if self._connection is not None or self._done:
            raise RuntimeError("a unit of work is entered once")
        pool = self.database.pool
        connection = await pool.acquire()
        try:
            transaction = connection.transaction(readonly=self.readonly)
            await transaction.start()
        except BaseException:
            # BEGIN failed (the server went away, the request was cancelled): give the connection
            # back, or a pool that loses one per outage ends up empty, every request waiting
            # forever for a connection.
            with contextlib.suppress(Exception):
                await pool.release(connection)
            raise
        self._connection, self._transaction = connection, transaction
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        connection = self._connection
        if connection is None:
            raise RuntimeError("the unit of work is not open")
        try:
            if not self._done:
                await self.rollback()
        finally:
            # Finished either way: only the connection goes back. The caller's exception, if any,
            # propagates.
            self._connection, self._transaction = None, None
            try:
                await self.database.pool.release(connection)
            except Exception as broken:  # noqa: BLE001 - the connection broke after the transaction ended
                # Giving the connection back failed (the server cut it): asyncpg has closed it and
                # the pool opens another. What was committed stays committed, so the caller is not
                # told.
                log.warning("a connection broke as its unit of work ended: %r", broken)

    async def commit(self) -> None:
        try:
            await self.transaction.commit()
        finally:
            self._done = True  # a failed COMMIT ends the transaction too (the server rolled it back)

    async def rollback(self) -> None:
        try:
            await self.transaction.rollback()
        finally:
            self._done = True
