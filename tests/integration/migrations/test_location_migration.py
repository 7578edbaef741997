"""The locations migration on charges made before it: each keeps its ``loc.id`` (its own id) and its
token, so the BR Codes already handed out keep paying; new locations are numbered beyond.

The migration's own SQL runs in a scratch schema holding the tables as they were before it (the
charges table without ``loc_id``), inside a transaction that is rolled back.
"""

from __future__ import annotations

import importlib
import uuid

import asyncpg
import pytest

MIGRATION = importlib.import_module("pixinfra.postgres.piccolo_migrations.pixweb_2026_11_24t12_00_00_000000")

_BEFORE = """
CREATE SCHEMA before_locations;
SET LOCAL search_path TO before_locations;
CREATE TABLE accounts (id bigint PRIMARY KEY);
CREATE TABLE charges (LIKE public.charges INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING CONSTRAINTS);
ALTER TABLE charges DROP CONSTRAINT IF EXISTS charges_location_check;
ALTER TABLE charges DROP COLUMN loc_type;
ALTER TABLE charges DROP COLUMN loc_id;
ALTER TABLE charges ADD PRIMARY KEY (id);
ALTER TABLE charges ADD UNIQUE (location_id);
ALTER TABLE charges ALTER COLUMN location_id SET NOT NULL;
"""


async def _charge(conn: asyncpg.Connection, charge_id: int, kind: str) -> str:
    token = uuid.uuid4().hex
    terms = '{"calendario": {}, "valor": {}}' if kind == "cobv" else None
    await conn.execute(
        """
        INSERT INTO charges (id, account_id, txid, kind, status, created_at, updated_at, expiration,
            expires_at, amount, modality, pix_key, debtor_name, debtor_document, location_id, location,
            br_code, terms)
        OVERRIDING SYSTEM VALUE
        VALUES ($1, 7, $2, $3, 'ATIVA', now() - interval '1 day', now(), 60, now(), 100, 0, 'k@example.com',
            'Fulano', '52998224725', $4::text, 'h/qr/v2/' || $4::text, 'code', $5::jsonb)
        """,
        charge_id,
        uuid.uuid4().hex,
        kind,
        token,
        terms,
    )
    return token


async def test_existing_charges_keep_their_loc_id_and_token(conn: asyncpg.Connection) -> None:
    transaction = conn.transaction()
    await transaction.start()
    try:
        await conn.execute(_BEFORE)
        await conn.execute("INSERT INTO accounts (id) VALUES (7)")
        tokens = {
            3: await _charge(conn, 3, "cob"),
            41: await _charge(conn, 41, "cob"),
            95: await _charge(conn, 95, "cobv"),
        }
        await conn.execute(MIGRATION.SQL)

        rows = await conn.fetch("SELECT id, account_id, token, tipo_cob FROM locations ORDER BY id")
        assert [(r["id"], r["account_id"], r["token"], r["tipo_cob"]) for r in rows] == [
            (3, 7, tokens[3], "cob"),
            (41, 7, tokens[41], "cob"),
            (95, 7, tokens[95], "cobv"),
        ]
        linked = await conn.fetch("SELECT id, loc_id, location_id FROM charges ORDER BY id")
        assert [(r["id"], r["loc_id"], r["location_id"]) for r in linked] == [
            (charge_id, charge_id, token) for charge_id, token in sorted(tokens.items())
        ]
        token = uuid.uuid4().hex
        new_id = await conn.fetchval(
            "INSERT INTO locations (account_id, token, tipo_cob, created_at)"
            " VALUES (7, $1, 'cobv', now()) RETURNING id",
            token,
        )
        assert new_id > 95
        # The foreign key holds a charge to a location of its account and its type (a cob at a
        # cobv location is refused), and its id and token to one location.
        refused = [
            (
                asyncpg.ForeignKeyViolationError,
                "UPDATE charges SET loc_id = $1, location_id = $2 WHERE id = 3",
            ),
            (
                asyncpg.ForeignKeyViolationError,
                "UPDATE charges SET location_id = $2 WHERE id = 95 AND $1 > 0",
            ),
            (
                asyncpg.CheckViolationError,
                "UPDATE charges SET loc_id = NULL WHERE id = 3 AND $1 > 0 AND $2 <> ''",
            ),
        ]
        for error, statement in refused:
            with pytest.raises(error):
                async with (
                    conn.transaction()
                ):  # a savepoint: the refusal leaves the test's transaction usable
                    await conn.execute(statement, new_id, token)
    finally:
        await transaction.rollback()
