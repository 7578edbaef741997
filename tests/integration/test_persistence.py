"""The PostgreSQL adapter and the schema it relies on, against a real server.

Every test makes its own rows (random documents and keys) and never assumes the
database is empty: the suites share one database per run.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from pixcore.accounts import Account, Balance, CertificateInfo, LinkedCertificate, NewAccount, OpenedAccount
from pixcore.clock import SystemClock
from pixcore.errors import CertificateInUse, DuplicatePixKey
from pixcore.keys import PixKey, PixKeyType, new_evp
from pixcore.testing import PlainHasher
from pixcore.usecases import get_balance, link_certificate, open_account
from pixinfra.postgres.database import migrate
from tests.support import pg_uow, random_cpf, run_database

HASHER = PlainHasher()
ISPB = "99999999"
TABLES = {"accounts", "balances", "pix_keys", "client_credentials", "client_certificates"}


@pytest.fixture
async def conn(migrated_database: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection of its own, outside any unit of work: it sees only what was committed."""
    connection = await asyncpg.connect(migrated_database)
    try:
        yield connection
    finally:
        await connection.close()


def _email() -> str:
    return f"{uuid.uuid4().hex}@example.com"


def _phone() -> str:
    return "+55" + "".join(random.choice("0123456789") for _ in range(11))  # noqa: S311 - test data


def _new_account(document: str | None = None) -> NewAccount:
    return NewAccount(ispb=ISPB, name="Test Holder", document=document or random_cpf(), city="RECIFE")


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


async def _open(*, document: str | None = None, keys: tuple[str, ...] = ()) -> OpenedAccount:
    return await open_account(
        pg_uow,
        HASHER,
        ispb=ISPB,
        name="Test Holder",
        document=document or random_cpf(),
        city="RECIFE",
        keys=keys,
    )


async def _account_exists(conn: asyncpg.Connection, account_id: int) -> bool:
    return bool(await conn.fetchval("SELECT count(*) FROM accounts WHERE id = $1", account_id))


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
async def test_the_database_refuses_a_negative_balance(conn: asyncpg.Connection, column: str) -> None:
    opened = await _open()

    with pytest.raises(asyncpg.CheckViolationError):
        await conn.execute(f"UPDATE balances SET {column} = -1 WHERE account_id = $1", opened.account.id)  # noqa: S608 - the column is one of two literals

    assert await get_balance(pg_uow, opened.account.id) == Balance(available=0, blocked=0)


# The guarded UPDATE of the ledger adapter itself: tests/integration/test_ledger_adapter.py.


# -- the unit of work ------------------------------------------------------------


async def test_a_unit_of_work_left_without_commit_rolls_back(conn: asyncpg.Connection) -> None:
    async with pg_uow() as uow:
        account = await uow.accounts.add(_new_account())
        assert await uow.accounts.get(account.id) == account  # visible inside its transaction
        assert await uow.balances.get(account.id) == Balance(available=0, blocked=0)
        assert not await _account_exists(conn, account.id)  # and nowhere else yet

    assert not await _account_exists(conn, account.id)
    assert await conn.fetchval("SELECT count(*) FROM balances WHERE account_id = $1", account.id) == 0


class Boom(Exception):
    pass


async def _add_then_raise(document: str) -> None:
    async with pg_uow() as uow:
        await uow.accounts.add(_new_account(document))
        raise Boom


async def test_a_unit_of_work_left_with_an_exception_rolls_back(conn: asyncpg.Connection) -> None:
    document = random_cpf()

    with pytest.raises(Boom):
        await _add_then_raise(document)

    assert await conn.fetchval("SELECT count(*) FROM accounts WHERE document = $1", document) == 0


async def test_a_committed_unit_of_work_is_visible_to_everyone(conn: asyncpg.Connection) -> None:
    async with pg_uow() as uow:
        account = await uow.accounts.add(_new_account())
        await uow.commit()

    assert await _account_exists(conn, account.id)
    async with pg_uow() as uow:
        assert await uow.accounts.get(account.id) == account
        assert await uow.balances.get(account.id) == Balance(available=0, blocked=0)


async def test_an_explicit_rollback_discards_the_work(conn: asyncpg.Connection) -> None:
    async with pg_uow() as uow:
        account = await uow.accounts.add(_new_account())
        await uow.rollback()

    assert not await _account_exists(conn, account.id)


async def test_accounts_are_numbered_by_their_id_in_branch_0001() -> None:
    async with pg_uow() as uow:
        first = await uow.accounts.add(_new_account())
        second = await uow.accounts.add(_new_account())
        await uow.commit()

    for account in (first, second):
        assert isinstance(account, Account)
        assert (account.ispb, account.branch, account.number) == (ISPB, "0001", f"{account.id:08d}")
    assert second.id > first.id


async def test_a_failed_key_insert_leaves_the_transaction_usable(conn: asyncpg.Connection) -> None:
    taken = PixKey(PixKeyType.EMAIL, _email())
    owner = await _open(keys=(taken.value,))
    other_key = PixKey(PixKeyType.PHONE, _phone())

    async with pg_uow() as uow:
        account = await uow.accounts.add(_new_account())
        with pytest.raises(DuplicatePixKey):
            await uow.keys.add(account.id, taken)
        # The savepoint took the failed insert back; the transaction goes on.
        await uow.keys.add(account.id, other_key)
        assert await uow.keys.list_for(account.id) == [other_key]
        await uow.commit()

    assert await _account_exists(conn, account.id)
    async with pg_uow() as uow:
        assert await uow.keys.owner_of(taken) == owner.account.id
        assert await uow.keys.owner_of(other_key) == account.id


async def test_a_key_is_refused_for_its_own_account_too() -> None:
    key = PixKey(PixKeyType.EMAIL, _email())
    opened = await _open(keys=(key.value,))

    async with pg_uow() as uow:
        with pytest.raises(DuplicatePixKey):
            await uow.keys.add(opened.account.id, key)
        assert await uow.keys.list_for(opened.account.id) == [key]


async def test_keys_are_listed_in_the_order_they_were_registered() -> None:
    # Neither alphabetical ("+55..." sorts first) nor grouped by type: only registration order fits.
    keys = (_email(), _phone(), _email())
    opened = await _open(keys=keys)

    async with pg_uow() as uow:
        listed = await uow.keys.list_for(opened.account.id)
        late = PixKey(PixKeyType.EVP, new_evp())
        await uow.keys.add(opened.account.id, late)
        await uow.commit()
    async with pg_uow() as uow:
        relisted = await uow.keys.list_for(opened.account.id)
        assert await uow.keys.owner_of(PixKey(PixKeyType.EVP, new_evp())) is None

    assert [key.value for key in listed] == list(keys)
    assert relisted == [*listed, late]


async def test_a_certificate_linked_to_another_account_is_in_use(conn: asyncpg.Connection) -> None:
    owner, other = await _open(), await _open()
    certificate = _certificate()
    await link_certificate(pg_uow, account_id=owner.account.id, certificate=certificate, clock=CLOCK)

    with pytest.raises(CertificateInUse):
        await link_certificate(pg_uow, account_id=other.account.id, certificate=certificate, clock=CLOCK)

    async with pg_uow() as uow:
        assert await uow.certificates.get(certificate.fingerprint) == LinkedCertificate(
            certificate.fingerprint, owner.account.id
        )


async def test_linking_again_to_the_same_account_is_idempotent(conn: asyncpg.Connection) -> None:
    opened = await _open()
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


async def test_an_unknown_certificate_and_credential_are_none() -> None:
    async with pg_uow() as uow:
        assert await uow.certificates.get(_certificate().fingerprint) is None
        assert await uow.credentials.get("pix_" + uuid.uuid4().hex) is None
        assert await uow.accounts.get(-1) is None
        assert await uow.balances.get(-1) is None


async def test_open_account_stores_the_credential_hashed() -> None:
    opened = await _open()

    async with pg_uow() as uow:
        credential = await uow.credentials.get(opened.client_id)

    assert credential is not None
    assert credential.account_id == opened.account.id
    assert credential.secret_hash != opened.client_secret
    assert HASHER.verify(credential.secret_hash, opened.client_secret)


# -- races -------------------------------------------------------------------


async def test_of_twenty_concurrent_openings_with_one_key_exactly_one_wins(conn: asyncpg.Connection) -> None:
    document, email = random_cpf(), _email()

    results = await asyncio.gather(
        *(_open(document=document, keys=(email,)) for _ in range(20)), return_exceptions=True
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


async def test_migrating_again_changes_nothing(migrated_database: str, conn: asyncpg.Connection) -> None:
    applied = await conn.fetch("SELECT name FROM migration WHERE app_name = 'pixweb' ORDER BY name")
    assert applied, "the session fixture migrated the database"

    await migrate(migrated_database)
    await asyncio.gather(*(migrate(migrated_database) for _ in range(5)))

    assert await conn.fetch("SELECT name FROM migration WHERE app_name = 'pixweb' ORDER BY name") == applied
    opened = await _open()  # and the schema still works
    assert await get_balance(pg_uow, opened.account.id) == Balance(available=0, blocked=0)


async def test_an_error_after_commit_propagates_and_frees_the_connection(migrated_database: str) -> None:
    pool = run_database().pool
    free_before = pool.get_idle_size()
    for _ in range(3):
        with pytest.raises(Boom):  # noqa: PT012 - the error must cross the unit of work's exit
            async with pg_uow() as uow:
                await uow.commit()
                raise Boom
    async with pg_uow() as uow:  # the task can open a new unit of work
        await uow.rollback()
    assert pool.get_idle_size() >= free_before


async def test_a_failing_commit_raises_its_error_and_frees_the_connection(migrated_database: str) -> None:
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
    migrated_database: str, conn: asyncpg.Connection
) -> None:
    """``pool.keep_session``: no ``RESET ALL ...`` statement on release (the connection's last
    statement is the caller's own), yet a transaction left open is rolled back."""
    pool = run_database().pool
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
