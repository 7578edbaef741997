"""The PostgreSQL adapter and the schema it relies on, against a real server: what is
PostgreSQL's alone.

What the adapter promises through the ports (a unit of work rolls back unless committed, keys are
unique and listed in registration order, certificates link once, ...) is tested once for it and
for the in-memory fakes in tests/contract. What stays here has no counterpart in the fakes: the
schema's constraints, rows and columns the ports do not show, concurrent transactions, migrations
and the connection pool.

Every test makes its own rows (random documents and keys) and never assumes the
database is empty: the suites share one database per run.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import uuid
from asyncio.subprocess import PIPE
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from pixcore.accounts.accounts_service import get_balance, link_certificate, open_account
from pixcore.accounts.rules import Balance, CertificateInfo, LinkedCertificate, OpenedAccount
from pixcore.clock import SystemClock
from pixcore.errors import DuplicatePixKey
from pixcore.testing import PlainHasher
from pixinfra.postgres.database import migrate, with_database
from pixinfra.postgres.pool import Database
from tests.support import PostgresUnits, random_cpf

HASHER = PlainHasher()
ISPB = "99999999"
TABLES = {"accounts", "balances", "pix_keys", "client_credentials", "client_certificates"}


def _email() -> str:
    return f"{uuid.uuid4().hex}@example.com"


CLOCK = SystemClock()


def _certificate(name: str | None = None) -> CertificateInfo:
    name = name or uuid.uuid4().hex
    now = datetime.now(UTC)
    return CertificateInfo(
        fingerprint=hashlib.sha256(name.encode()).hexdigest(),
        subject=f"CN={name}",
        not_before=now - timedelta(days=1),
        not_after=now + timedelta(days=365),
    )


async def _open(
    pg_uow: PostgresUnits, *, document: str | None = None, keys: tuple[str, ...] = ()
) -> OpenedAccount:
    return await open_account(
        pg_uow,
        HASHER,
        ispb=ISPB,
        name="Test Holder",
        document=document or random_cpf(),
        city="RECIFE",
        keys=keys,
    )


# -- the schema ----------------------------------------------------------------


async def test_the_migration_created_the_tables(conn: asyncpg.Connection) -> None:
    rows = await conn.fetch(
        """
        SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
        """
    )

    assert {row["table_name"] for row in rows} >= TABLES


async def test_balances_carry_check_constraints_on_available_and_blocked(conn: asyncpg.Connection) -> None:
    rows = await conn.fetch(
        """
        SELECT conname, pg_get_constraintdef(oid) AS definition
        FROM pg_constraint WHERE conrelid = 'balances'::regclass AND contype = 'c'
        """
    )
    checks = {row["conname"]: row["definition"] for row in rows}

    assert checks["balances_available_nonneg"] == "CHECK ((available >= 0))"
    assert checks["balances_blocked_nonneg"] == "CHECK ((blocked >= 0))"


async def test_a_pix_key_value_is_unique_on_its_own(conn: asyncpg.Connection) -> None:
    rows = await conn.fetch(
        """
        SELECT c.conname, array_agg(a.attname::text ORDER BY a.attname) AS columns
        FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
        WHERE c.conrelid = 'pix_keys'::regclass AND c.contype = 'u'
        GROUP BY c.conname
        """
    )

    assert {row["conname"]: list(row["columns"]) for row in rows} == {"pix_keys_value_unique": ["key_value"]}


async def test_account_numbers_are_unique_per_institution_and_branch(conn: asyncpg.Connection) -> None:
    definition = await conn.fetchval(
        """
        SELECT pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid = 'accounts'::regclass AND conname = 'accounts_number_unique'
        """
    )

    assert definition == "UNIQUE (ispb, branch, number)"


# -- the database guards the money -----------------------------------------------


@pytest.mark.parametrize("column", ["available", "blocked"])
async def test_the_database_refuses_a_negative_balance(
    pg_uow: PostgresUnits, conn: asyncpg.Connection, column: str
) -> None:
    opened = await _open(pg_uow)

    with pytest.raises(asyncpg.CheckViolationError):
        await conn.execute(f"UPDATE balances SET {column} = -1 WHERE account_id = $1", opened.account.id)  # noqa: S608 - the column is one of two literals

    assert await get_balance(pg_uow, opened.account.id) == Balance(available=0, blocked=0)


# The guarded UPDATE of the ledger adapter itself: tests/integration/money/test_ledger_adapter.py.


# -- rows the ports do not show ----------------------------------------------------


async def test_linking_again_to_the_same_account_is_idempotent(
    pg_uow: PostgresUnits, conn: asyncpg.Connection
) -> None:
    """SQL-only: the upsert leaves the row as it was (its ``linked_at``, which no port reads)."""
    opened = await _open(pg_uow)
    certificate = _certificate()
    first = await link_certificate(pg_uow, account_id=opened.account.id, certificate=certificate, clock=CLOCK)
    linked_at = await conn.fetchval(
        "SELECT linked_at FROM client_certificates WHERE fingerprint = $1", certificate.fingerprint
    )

    again = await link_certificate(pg_uow, account_id=opened.account.id, certificate=certificate, clock=CLOCK)

    assert again == first == LinkedCertificate(certificate.fingerprint, opened.account.id)
    rows = await conn.fetch(
        "SELECT account_id, linked_at FROM client_certificates WHERE fingerprint = $1",
        certificate.fingerprint,
    )
    assert [(row["account_id"], row["linked_at"]) for row in rows] == [(opened.account.id, linked_at)]


async def test_open_account_stores_the_credential_hashed(pg_uow: PostgresUnits) -> None:
    """The use case on the adapter: the hash, not the secret, is what the table holds."""
    opened = await _open(pg_uow)

    async with pg_uow() as uow:
        credential = await uow.credentials.get(opened.client_id)

    assert credential is not None
    assert credential.account_id == opened.account.id
    assert credential.secret_hash != opened.client_secret
    assert HASHER.verify(credential.secret_hash, opened.client_secret)


# -- races -------------------------------------------------------------------


async def test_of_twenty_concurrent_openings_with_one_key_exactly_one_wins(
    pg_uow: PostgresUnits, conn: asyncpg.Connection
) -> None:
    document, email = random_cpf(), _email()

    results = await asyncio.gather(
        *(_open(pg_uow, document=document, keys=(email,)) for _ in range(20)), return_exceptions=True
    )

    winners = [result for result in results if isinstance(result, OpenedAccount)]
    losers = [result for result in results if isinstance(result, DuplicatePixKey)]
    assert (len(winners), len(losers)) == (1, 19), results
    winner = winners[0].account.id
    owners = await conn.fetch("SELECT account_id FROM pix_keys WHERE key_value = $1", email)
    assert [row["account_id"] for row in owners] == [winner]
    # The losers' accounts, balances and credentials were all rolled back.
    accounts = await conn.fetch("SELECT id FROM accounts WHERE document = $1", document)
    assert [row["id"] for row in accounts] == [winner]
    assert await conn.fetchval("SELECT count(*) FROM balances WHERE account_id = $1", winner) == 1
    assert (
        await conn.fetchval(
            """
        SELECT count(*) FROM client_credentials c JOIN accounts a ON a.id = c.account_id
        WHERE a.document = $1
        """,
            document,
        )
        == 1
    )


async def test_migrating_again_changes_nothing(
    pg_uow: PostgresUnits, migrated_database: str, conn: asyncpg.Connection
) -> None:
    applied = await conn.fetch("SELECT name FROM migration WHERE app_name = 'pixweb' ORDER BY name")
    assert applied, "the session fixture migrated the database"

    await migrate(migrated_database)
    await asyncio.gather(*(migrate(migrated_database) for _ in range(5)))

    assert await conn.fetch("SELECT name FROM migration WHERE app_name = 'pixweb' ORDER BY name") == applied
    opened = await _open(pg_uow)  # and the schema still works
    assert await get_balance(pg_uow, opened.account.id) == Balance(available=0, blocked=0)


_MIGRATE_AND_LOG = """
import asyncio, sys
import pixinfra.runtime  # sets PICCOLO_CONF, as every program does
from pixinfra.logs import configure_logging
from pixinfra.postgres.database import migrate
configure_logging("INFO", "json")
asyncio.run(migrate(sys.argv[1]))
"""


async def _migrate_in_a_process(url: str) -> list[str]:
    """Piccolo remembers the first database a process migrates: a fresh one needs a process of its own."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _MIGRATE_AND_LOG, url, stdout=PIPE, stderr=PIPE
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    assert out == b""  # Piccolo's narration is not on stdout either
    return err.decode().splitlines()  # every line, Piccolo's included: only ours are expected


async def test_each_migration_applied_is_one_clean_log_line(database_server: str) -> None:
    name = f"pixtest_migrate_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(with_database(database_server, "postgres"))
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = with_database(database_server, name)
    try:
        lines = [json.loads(line) for line in await _migrate_in_a_process(url)]
        conn = await asyncpg.connect(url)
        try:
            applied = [row["name"] for row in await conn.fetch("SELECT name FROM migration ORDER BY id")]
        finally:
            await conn.close()
        assert len(applied) > 1
        assert [(line["message"], line["app"], line["migration"]) for line in lines] == [
            (f"migration applied: {m}", "pixweb", m) for m in applied
        ]
        assert all(line["message"].isascii() and "\n" not in line["message"] for line in lines)

        assert await _migrate_in_a_process(url) == []  # nothing left to apply: nothing logged
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


class Boom(Exception):
    pass


async def test_an_error_after_commit_propagates_and_frees_the_connection(
    database: Database, pg_uow: PostgresUnits, migrated_database: str
) -> None:
    pool = database.pool
    free_before = pool.get_idle_size()
    for _ in range(3):
        with pytest.raises(Boom):  # noqa: PT012 - the error must cross the unit of work's exit
            async with pg_uow() as uow:
                await uow.commit()
                raise Boom
    async with pg_uow() as uow:  # the task can open a new unit of work
        await uow.rollback()
    assert pool.get_idle_size() >= free_before


async def test_a_failing_commit_raises_its_error_and_frees_the_connection(
    pg_uow: PostgresUnits, migrated_database: str
) -> None:
    with pytest.raises(asyncpg.UniqueViolationError):  # noqa: PT012 - raised by COMMIT, inside the block
        async with pg_uow() as uow:
            await uow.connection.execute(
                "CREATE TEMP TABLE deferred_probe (x int UNIQUE DEFERRABLE INITIALLY DEFERRED)"
            )
            await uow.connection.execute("INSERT INTO deferred_probe VALUES (1), (1)")
            await uow.commit()  # the deferred unique check fails here
    async with pg_uow() as uow:
        assert await uow.connection.fetchval("SELECT 1") == 1
        await uow.rollback()


async def test_a_connection_goes_back_to_the_pool_without_a_reset_round_trip(
    database: Database, migrated_database: str, conn: asyncpg.Connection
) -> None:
    """``pool.keep_session``: no ``RESET ALL ...`` statement on release (the connection's last
    statement is the caller's own), yet a transaction left open is rolled back."""
    pool = database.pool
    async with pool.acquire() as pooled:
        pid = pooled.get_server_pid()
        await pooled.fetchval("SELECT 'the last statement'")
    activity = "SELECT state, query FROM pg_stat_activity WHERE pid = $1"
    state, query = await conn.fetchrow(activity, pid)
    assert (state, query) == ("idle", "SELECT 'the last statement'")

    async with pool.acquire() as pooled:
        pid = pooled.get_server_pid()
        await pooled.execute("BEGIN")
        await pooled.execute("SELECT pg_advisory_xact_lock(42)")
    state, query = await conn.fetchrow(activity, pid)
    assert (state, query) == ("idle", "ROLLBACK")
    locks = "SELECT count(*) FROM pg_locks WHERE pid = $1 AND locktype = 'advisory'"
    assert await conn.fetchval(locks, pid) == 0
