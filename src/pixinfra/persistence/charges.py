"""PostgreSQL repository of charges and cash-ins (the adapter of
``pixcore.charges.ports.ChargeRepository``)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import asyncpg

from pixcore.amount_parts import DueAmount
from pixcore.charges.cob import Charge, ChargeKind, ChargeLine, ChargeStatus, Debtor, NewCharge
from pixcore.charges.locations import Location, location_type_of
from pixcore.charges.parts import location_taken
from pixcore.charges.withdrawal import AgentModality, Withdrawal, WithdrawalKind
from pixcore.documents import parse_document
from pixcore.errors import DuplicateCharge, DuplicateExternalId
from pixcore.queries.standard import ChargeQuery
from pixinfra.due_terms import parts_text, stored_parts, stored_terms, terms_text
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose, paged

__all__ = ["RECENT", "PostgresCharges", "search_statements"]

_COLUMNS = """
    id, account_id, txid, kind, status, revision, created_at, updated_at, expiration, amount, modality,
    pix_key, payer_request, debtor_name, debtor_document, info, location_id, location, br_code,
    external_id, correlation_id, transaction_id, paid_end_to_end_id, paid_at, terms, loc_id,
    (SELECT l.created_at FROM locations l WHERE l.id = loc_id) AS loc_created_at, batch_id,
    debtor_email, debtor_street, debtor_city, debtor_state, debtor_postal_code, paid_parts, withdrawal
"""
_DEBTOR_DETAILS = "debtor_email, debtor_street, debtor_city, debtor_state, debtor_postal_code"
"""The debtor's e-mail and postal address, in :func:`_debtor_details`' order."""
_KEPT = f"""
    charge_id, revision, status, written_at, expiration, expires_at, amount, modality, pix_key,
    payer_request, debtor_name, debtor_document, info, terms, br_code, {_DEBTOR_DETAILS}, withdrawal
"""
_KEEP = f"""
    INSERT INTO charge_revisions ({_KEPT})
    SELECT id, revision, status, updated_at, expiration, expires_at, amount, modality, pix_key,
           payer_request, debtor_name, debtor_document, info, terms, br_code, {_DEBTOR_DETAILS},
           withdrawal
"""
"""The start of a statement that keeps the charges of its ``FROM`` (rows of ``charges``' columns,
``updated_at`` the moment of the revision) as revisions (``charge_revisions``)."""
_REVISION = """
    SELECT c.id, c.account_id, c.txid, c.kind, r.status, r.revision, c.created_at,
           r.written_at AS updated_at, r.expiration, r.amount, r.modality, r.pix_key, r.payer_request,
           r.debtor_name, r.debtor_document, r.info, c.location_id, c.location, r.br_code,
           c.external_id, c.correlation_id, NULL::bigint AS transaction_id,
           NULL::varchar AS paid_end_to_end_id, NULL::timestamptz AS paid_at, r.terms, c.loc_id,
           (SELECT l.created_at FROM locations l WHERE l.id = c.loc_id) AS loc_created_at, c.batch_id,
           r.debtor_email, r.debtor_street, r.debtor_city, r.debtor_state, r.debtor_postal_code,
           NULL::jsonb AS paid_parts, r.withdrawal
      FROM charge_revisions r JOIN charges c ON c.id = r.charge_id
     WHERE r.charge_id = $1 AND r.revision = $2
"""
"""Revision ``$2`` of charge ``$1`` as a row of ``charges``: the kept columns over the fixed ones."""
RECENT = (
    "SELECT txid, kind, status, amount, created_at, expires_at FROM charges"
    " WHERE account_id = $1 AND ($3::bigint IS NULL OR amount = $3) ORDER BY id DESC LIMIT $2"
)
"""The newest ``$2`` lines of account ``$1``'s charges (``charges_account_recent_idx``), of the
amount ``$3`` only unless it is NULL."""
_KINDS = {kind.value: kind for kind in ChargeKind}
_STATUSES = {status.value: status for status in ChargeStatus}


def _debtor(row: asyncpg.Record) -> Debtor | None:
    if row["debtor_document"] is None:
        return None
    document = parse_document(row["debtor_document"])
    return Debtor(
        row["debtor_name"],
        document.value,
        document.kind,
        email=row["debtor_email"],
        street=row["debtor_street"],
        city=row["debtor_city"],
        state=row["debtor_state"],
        postal_code=row["debtor_postal_code"],
    )


def _charge(row: asyncpg.Record) -> Charge:
    return Charge(
        id=row["id"],
        account_id=row["account_id"],
        txid=row["txid"],
        kind=ChargeKind(row["kind"]),
        status=ChargeStatus(row["status"]),
        revision=row["revision"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        expiration=row["expiration"],
        amount=row["amount"],
        modality=row["modality"],
        pix_key=row["pix_key"],
        payer_request=row["payer_request"],
        debtor=_debtor(row),
        info=tuple((item["nome"], item["valor"]) for item in json.loads(row["info"])),
        location_id=row["location_id"],
        location=row["location"],
        br_code=row["br_code"],
        loc_id=row["loc_id"],
        loc_created_at=_made_before(row["loc_created_at"], row["created_at"]),
        external_id=row["external_id"],
        correlation_id=row["correlation_id"],
        transaction_id=row["transaction_id"],
        paid_end_to_end_id=row["paid_end_to_end_id"],
        paid_at=row["paid_at"],
        paid_parts=None if row["paid_parts"] is None else stored_parts(row["paid_parts"]),
        due=None if row["terms"] is None else stored_terms(row["terms"]),
        batch_id=row["batch_id"],
        withdrawal=None if row["withdrawal"] is None else _stored_withdrawal(row["withdrawal"]),
    )


def _withdrawal_text(withdrawal: Withdrawal | None) -> str | None:
    """A ``cob``'s withdrawal as its ``withdrawal`` column keeps it (None: it has none)."""
    if withdrawal is None:
        return None
    w = withdrawal
    kept = {"kind": w.kind.value, "amount": w.amount, "modality": w.modality, "agent": w.agent.value}
    return json.dumps(kept | {"facilitator": w.facilitator})


def _stored_withdrawal(text: str) -> Withdrawal:
    kept = json.loads(text)
    return Withdrawal(
        WithdrawalKind(kept["kind"]),
        kept["amount"],
        kept["modality"],
        AgentModality(kept["agent"]),
        kept["facilitator"],
    )


def _made_before(loc_created_at: datetime | None, created_at: datetime) -> datetime | None:
    """``loc.criacao`` as the domain keeps it: None when the location was made with the charge (an
    ``INSERT``'s ``RETURNING`` does not see the location its own statement made)."""
    return None if loc_created_at is None or loc_created_at == created_at else loc_created_at


def _terms(c: NewCharge) -> tuple[Any, ...]:
    """The columns a revision may change, in this order: expiration, expires_at, amount, modality,
    pix_key, payer_request, debtor_name, debtor_document, info, terms."""
    return (
        c.expiration,
        c.expires_at,
        c.amount,
        c.modality,
        c.pix_key,
        c.payer_request,
        c.debtor.name if c.debtor else None,
        c.debtor.document if c.debtor else None,
        json.dumps([{"nome": n, "valor": v} for n, v in c.info]),
        None if c.due is None else terms_text(c.due),
    )


def _debtor_details(c: NewCharge) -> tuple[str | None, ...]:
    """The debtor's e-mail and postal address, in :data:`_DEBTOR_DETAILS`' order (a revision may
    change them too)."""
    d = c.debtor
    if d is None:
        return (None,) * 5
    return d.email, d.street, d.city, d.state, d.postal_code


def _charge_filter(
    account_id: int, query: ChargeQuery, now: datetime, *, due: bool = False
) -> tuple[str, list[Any]]:
    """The conditions of ``GET /cob`` (``due``: ``GET /cobv``): a range of
    ``charges_account_created_idx`` (account, ``created_at``), the kind, then the optional
    filters; ``status`` as a reader sees it at ``now``."""
    args: list[Any] = [account_id, query.start, query.end]
    kind = "kind = 'cobv'" if due else "kind <> 'cobv'"
    where = ["account_id = $1", "created_at >= $2", "created_at <= $3", kind]
    document = query.cpf or query.cnpj
    if document is not None:
        args.append(document)
        where.append(f"debtor_document = ${len(args)}")
    if query.location_present is not None:
        where.append("loc_id IS NOT NULL" if query.location_present else "loc_id IS NULL")
    if query.batch is not None:
        args.append(query.batch)
        where.append(f"batch_id = ${len(args)}")
    if query.status in (ChargeStatus.ATIVA, ChargeStatus.REMOVIDA_PELO_PSP):
        args.append(now)
        if query.status is ChargeStatus.ATIVA:
            where.append(f"status = 'ATIVA' AND expires_at > ${len(args)}")
        else:
            lapsed = f"status = 'ATIVA' AND expires_at <= ${len(args)}"
            where.append(f"(status = 'REMOVIDA_PELO_PSP' OR ({lapsed}))")
    elif query.status is not None:
        args.append(query.status.value)
        where.append(f"status = ${len(args)}")
    return " AND ".join(where), args


def search_statements(
    account_id: int, query: ChargeQuery, now: datetime, *, due: bool = False
) -> tuple[str, list[Any], str, list[Any]]:
    """``GET /cob``'s (``due``: ``GET /cobv``'s) statements, each with its arguments: how many
    match, and the page."""
    where, args = _charge_filter(account_id, query, now, due=due)
    count = compose("SELECT count(*) FROM charges WHERE ", where)
    limit, page_args = paged(args, query.page.size, query.page.offset)
    page = compose("SELECT ", _COLUMNS, " FROM charges WHERE ", where, " ORDER BY created_at, id", limit)
    return count, args, page, page_args


class PostgresCharges(Repository):
    async def add(self, charge: NewCharge) -> Charge:
        """One statement: the charge and, when it names no location (``loc_id`` None), its new
        location (``new_location``), so the hot path pays no extra round trip."""
        c = charge
        try:
            async with self._conn.transaction():  # a savepoint: a conflict leaves the unit usable
                row = await self._conn.fetchrow(
                    compose(
                        """
                    WITH new_location AS (
                        INSERT INTO locations (account_id, token, tipo_cob, created_at)
                        SELECT $1, $15, $22, $4 WHERE $21::bigint IS NULL
                        RETURNING id
                    ), added AS (
                        INSERT INTO charges (account_id, txid, kind, status, created_at, updated_at,
                            expiration, expires_at, amount, modality, pix_key, payer_request, debtor_name,
                            debtor_document, info, terms, location_id, location, br_code, external_id,
                            correlation_id, transaction_id, loc_id, batch_id, """,
                        _DEBTOR_DETAILS,
                        """, withdrawal)
                        VALUES ($1, $2, $3, 'ATIVA', $4, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb,
                            $14::jsonb, $15, $16, $17, $18, $19, $20,
                            coalesce($21::bigint, (SELECT id FROM new_location)), $23,
                            $24, $25, $26, $27, $28, $29::jsonb)
                        RETURNING *
                    ), kept AS (""",
                        _KEEP,
                        """ FROM added)
                    SELECT """,
                        _COLUMNS,
                        """ FROM added
                    """,
                    ),
                    c.account_id,
                    c.txid,
                    c.kind.value,
                    c.created_at,
                    *_terms(c),
                    c.location_id,
                    c.location,
                    c.br_code,
                    c.external_id,
                    c.correlation_id,
                    c.transaction_id,
                    c.loc_id,
                    location_type_of(c.kind).value,
                    c.batch_id,
                    *_debtor_details(c),
                    _withdrawal_text(c.withdrawal),
                )
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "charges_external_id_idx":
                raise DuplicateExternalId(
                    f"a cash-in with externalId {c.external_id} exists already"
                ) from None
            if exc.constraint_name in {"charges_loc_id_key", "charges_location_id_key"}:
                # A location (its id, its token) serves one charge.
                raise location_taken() from None
            raise DuplicateCharge(f"a charge with txid {c.txid} exists already") from None
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        return _charge(row)

    async def locate(self, charge_id: int, location: Location | None, *, url: str, br_code: str) -> None:
        try:
            async with self._conn.transaction():  # a savepoint: a conflict leaves the unit usable
                if location is None:
                    await self._conn.execute(
                        "UPDATE charges SET loc_id = NULL, location_id = NULL WHERE id = $1", charge_id
                    )
                    return
                await self._conn.execute(
                    "UPDATE charges SET loc_id = $2, location_id = $3, location = $4, br_code = $5"
                    " WHERE id = $1",
                    charge_id,
                    location.id,
                    location.token,
                    url,
                    br_code,
                )
        except asyncpg.UniqueViolationError:
            raise location_taken() from None

    async def _one(self, where: str, *args: Any) -> Charge | None:
        row = await self._conn.fetchrow(compose("SELECT ", _COLUMNS, " FROM charges WHERE ", where), *args)
        return _charge(row) if row else None

    async def get(self, account_id: int, txid: str) -> Charge | None:
        return await self._one("account_id = $1 AND txid = $2", account_id, txid)

    async def get_by_location(self, location_id: str) -> Charge | None:
        return await self._one("location_id = $1", location_id)

    async def recent(self, account_id: int, limit: int, *, amount: int | None = None) -> list[ChargeLine]:
        """The line's columns only, from ``charges_account_recent_idx`` (newest ``limit`` entries)."""
        rows = await self._conn.fetch(RECENT, account_id, limit, amount)
        return [
            ChargeLine(txid, _KINDS[kind], _STATUSES[status], amount, created_at, expires_at)
            for txid, kind, status, amount, created_at, expires_at in rows
        ]

    async def search(
        self, account_id: int, query: ChargeQuery, now: datetime, *, due: bool = False
    ) -> tuple[int, list[Charge]]:
        count, args, page, page_args = search_statements(account_id, query, now, due=due)
        total: int = await self._conn.fetchval(count, *args)
        if total <= query.page.offset:
            return total, []
        rows = await self._conn.fetch(page, *page_args)
        return total, [_charge(row) for row in rows]

    async def revise(self, charge: Charge) -> None:
        c = charge
        await self._conn.execute(
            compose(
                """
            WITH revised AS (
                UPDATE charges
                   SET expiration = $2, expires_at = $3, amount = $4, modality = $5, pix_key = $6,
                       payer_request = $7, debtor_name = $8, debtor_document = $9, info = $10::jsonb,
                       terms = $11::jsonb, br_code = $12, revision = $13, updated_at = $14,
                       debtor_email = $15, debtor_street = $16, debtor_city = $17, debtor_state = $18,
                       debtor_postal_code = $19, withdrawal = $20::jsonb
                 WHERE id = $1
             RETURNING *
            )
            """,
                _KEEP,
                """ FROM revised
            """,
            ),
            c.id,
            *_terms(c),
            c.br_code,
            c.revision,
            c.updated_at,
            *_debtor_details(c),
            _withdrawal_text(c.withdrawal),
        )

    async def revision(self, charge_id: int, revision: int) -> Charge | None:
        row = await self._conn.fetchrow(_REVISION, charge_id, revision)
        return _charge(row) if row else None

    async def get_by_external_id(self, account_id: int, external_id: str) -> Charge | None:
        return await self._one("account_id = $1 AND external_id = $2", account_id, external_id)

    async def lock(self, account_id: int, txid: str) -> Charge | None:
        return await self._one("account_id = $1 AND txid = $2 FOR UPDATE", account_id, txid)

    async def lock_by_location(self, location_id: str) -> Charge | None:
        return await self._one("location_id = $1 FOR UPDATE", location_id)

    async def lock_expired(self, now: datetime, limit: int) -> list[Charge]:
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _COLUMNS,
                """ FROM charges
             WHERE status = 'ATIVA' AND expires_at <= $1
             ORDER BY expires_at LIMIT $2
               FOR UPDATE SKIP LOCKED
            """,
            ),
            now,
            limit,
        )
        return [_charge(row) for row in rows]

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
        # One statement: the row as it was (the same snapshot) tells whether the revision changed.
        await self._conn.execute(
            compose(
                """
            WITH before AS (SELECT revision FROM charges WHERE id = $1),
            updated AS (
                UPDATE charges
                   SET status = $2::varchar, revision = $3, updated_at = $4,
                       transaction_id = coalesce($5, transaction_id),
                       paid_end_to_end_id = coalesce($6, paid_end_to_end_id),
                       paid_at = CASE WHEN $2::varchar = 'CONCLUIDA' THEN $4 ELSE paid_at END,
                       paid_parts = coalesce($7::jsonb, paid_parts)
                 WHERE id = $1
             RETURNING *
            )
            """,
                _KEEP,
                """ FROM updated WHERE updated.revision <> (SELECT revision FROM before)
            """,
            ),
            charge_id,
            status.value,
            revision,
            at,
            transaction_id,
            paid_end_to_end_id,
            None if paid_parts is None else parts_text(paid_parts),
        )
