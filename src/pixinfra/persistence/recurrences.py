"""PostgreSQL repositories of Pix Automático (the ports of ``pixcore.recurrences.ports``):
recurrences, requests for authorization, recurring charges with their attempts, recurrence
locations, and the sandbox's payer's bank. Rows become domain values here and nowhere else.

The database enforces what money and the standard depend on (migration ``2026-11-29``): one open
request per recurrence, one live charge per cycle, at most one pending attempt per charge and
three retries, one recurrence per location, a payer's balance never below zero. A unique index's
refusal becomes the domain's error; each write that may be refused runs in a savepoint, so the
unit of work stays usable.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import date
from typing import Any, LiteralString, TypeVar

import asyncpg

from pixcore.clock import format_timestamp, parse_timestamp
from pixcore.errors import DuplicateCharge
from pixcore.recurrences import (
    ActiveRequestExists,
    Attempt,
    AttemptStatus,
    AttemptType,
    ChargeListQuery,
    Closing,
    ClosingKind,
    CycleTaken,
    Debtor,
    DuplicateRecurrence,
    Journey,
    LocationListQuery,
    NewRecurrence,
    NewRecurrenceLocation,
    NewRecurrenceRequest,
    NewRecurringCharge,
    Party,
    Payer,
    Periodicity,
    Recurrence,
    RecurrenceListQuery,
    RecurrenceLocation,
    RecurrenceLocationTaken,
    RecurrenceRequest,
    RecurrenceStatus,
    RecurringCharge,
    RecurringChargeStatus,
    RequestStatus,
    RetryPolicy,
    StatusChange,
)
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose

__all__ = [
    "PostgresPayerBank",
    "PostgresRecurrenceLocations",
    "PostgresRecurrenceRequests",
    "PostgresRecurrences",
    "PostgresRecurringCharges",
]


E = TypeVar("E", bound=Any)


def _history_json(lines: Sequence[StatusChange[Any]]) -> str:
    """A history as stored: ``[{"status", "at"}]``, the moments as the wire writes them (ms, UTC)."""
    return json.dumps([{"status": line.status.value, "at": format_timestamp(line.at)} for line in lines])


def _history(text: str, kind: type[E]) -> tuple[StatusChange[E], ...]:
    return tuple(StatusChange(kind(line["status"]), parse_timestamp(line["at"])) for line in json.loads(text))


def _closing_json(closing: Closing | None) -> str | None:
    if closing is None:
        return None
    requester = None if closing.requester is None else closing.requester.value
    fields = {"kind": closing.kind.value, "code": closing.code, "description": closing.description}
    return json.dumps({**fields, "requester": requester})


def _closing(text: str | None) -> Closing | None:
    if text is None:
        return None
    data = json.loads(text)
    requester = None if data["requester"] is None else Party(data["requester"])
    return Closing(ClosingKind(data["kind"]), data["code"], data["description"], requester)


@asynccontextmanager
async def _savepoint(conn: Any) -> AsyncIterator[None]:
    """A savepoint: a unique index's refusal leaves the unit of work usable, and becomes the
    domain's error."""
    try:
        async with conn.transaction():
            yield
    except asyncpg.UniqueViolationError as exc:
        raise _refusal(exc.constraint_name or "") from None


async def _guarded(conn: Any, statement: str, *args: Any) -> Any:
    """``fetchrow`` in a :func:`_savepoint`."""
    async with _savepoint(conn):
        return await conn.fetchrow(statement, *args)


def _refusal(constraint: str) -> Exception:
    refusals: dict[str, Exception] = {
        "recurrences_rec_id_key": DuplicateRecurrence(),
        "recurrences_loc_idx": RecurrenceLocationTaken(),
        "recurrence_requests_open_idx": ActiveRequestExists(),
        "recurring_charges_account_id_txid_key": DuplicateCharge("a charge with this txid exists already"),
        "recurring_charges_cycle_idx": CycleTaken(),
    }
    refusal = refusals.get(constraint)
    if refusal is None:
        return asyncpg.UniqueViolationError(f"unique index {constraint}")
    return refusal


# -- recurrences -----------------------------------------------------------------------------------


def _recurrence(row: Any) -> Recurrence:
    payer = None
    if row["payer_document"] is not None:
        payer = Payer(row["payer_document"], row["payer_ispb"], row["payer_city_code"])
    return Recurrence(
        id=row["id"],
        account_id=row["account_id"],
        rec_id=row["rec_id"],
        contract=row["contract"],
        debtor=Debtor(row["debtor_document"], row["debtor_name"]),
        purpose=row["purpose"],
        start=row["start_date"],
        end=row["end_date"],
        periodicity=Periodicity(row["periodicity"]),
        fixed_amount=row["fixed_amount"],
        minimum_amount=row["minimum_amount"],
        retry_policy=RetryPolicy(row["retry_policy"]),
        agreement=row["agreement"],
        created_at=row["created_at"],
        loc_id=row["loc_id"],
        journey_txid=row["journey_txid"],
        status=RecurrenceStatus(row["status"]),
        history=_history(row["history"], RecurrenceStatus),
        journey=Journey(row["journey"]),
        payer=payer,
        closing=_closing(row["closing"]),
        updated_at=row["updated_at"],
    )


class PostgresRecurrences(Repository):
    async def add(self, recurrence: NewRecurrence) -> Recurrence:
        r = recurrence
        row = await _guarded(
            self._conn,
            """
            INSERT INTO recurrences (account_id, rec_id, contract, debtor_document, debtor_name, purpose,
                start_date, end_date, periodicity, fixed_amount, minimum_amount, retry_policy, agreement,
                loc_id, journey_txid, status, history, journey, created_at, updated_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'CRIADA', $16::jsonb,
                'AGUARDANDO_DEFINICAO', $17, $17)
            RETURNING *
            """,
            r.account_id,
            r.rec_id,
            r.contract,
            r.debtor.document,
            r.debtor.name,
            r.purpose,
            r.start,
            r.end,
            r.periodicity.value,
            r.fixed_amount,
            r.minimum_amount,
            r.retry_policy.value,
            r.agreement,
            r.loc_id,
            r.journey_txid,
            _history_json([StatusChange(RecurrenceStatus.CRIADA, r.created_at)]),
            r.created_at,
        )
        return _recurrence(row)

    async def _one(self, rest: LiteralString, *args: Any) -> Recurrence | None:
        row = await self._conn.fetchrow(compose("SELECT r.* FROM recurrences r ", rest), *args)
        return None if row is None else _recurrence(row)

    async def get(self, account_id: int, rec_id: str) -> Recurrence | None:
        return await self._one("WHERE r.rec_id = $1 AND r.account_id = $2", rec_id, account_id)

    async def lock(self, account_id: int, rec_id: str) -> Recurrence | None:
        return await self._one("WHERE r.rec_id = $1 AND r.account_id = $2 FOR UPDATE", rec_id, account_id)

    async def lock_any(self, rec_id: str) -> Recurrence | None:
        return await self._one("WHERE r.rec_id = $1 FOR UPDATE", rec_id)

    async def get_by_location(self, token: str) -> Recurrence | None:
        return await self._one("JOIN recurrence_locations l ON l.id = r.loc_id WHERE l.token = $1", token)

    async def save(self, recurrence: Recurrence) -> None:
        r = recurrence
        payer = r.payer
        await _guarded(
            self._conn,
            """
            UPDATE recurrences SET status = $2, history = $3::jsonb, journey = $4, payer_document = $5,
                payer_ispb = $6, payer_city_code = $7, closing = $8::jsonb, debtor_name = $9,
                start_date = $10, loc_id = $11, journey_txid = $12, updated_at = $13
            WHERE id = $1
            """,
            r.id,
            r.status.value,
            _history_json(r.history),
            r.journey.value,
            None if payer is None else payer.document,
            None if payer is None else payer.ispb,
            None if payer is None else payer.city_code,
            _closing_json(r.closing),
            r.debtor.name,
            r.start,
            r.loc_id,
            r.journey_txid,
            r.updated_at or r.created_at,
        )

    async def search(self, account_id: int, query: RecurrenceListQuery) -> tuple[int, list[Recurrence]]:
        q = query
        status = None if q.status is None else q.status.value
        args = (account_id, q.start, q.end, q.cpf, q.cnpj, q.location_present, status, q.agreement)
        total = await self._conn.fetchval(compose("SELECT count(*) ", _RECURRENCE_FILTER), *args)
        rows = await self._conn.fetch(
            compose("SELECT * ", _RECURRENCE_FILTER, " ORDER BY created_at, id LIMIT $9 OFFSET $10"),
            *args,
            q.page.size,
            q.page.offset,
        )
        return total, [_recurrence(row) for row in rows]


_RECURRENCE_FILTER = """
    FROM recurrences
    WHERE account_id = $1 AND created_at BETWEEN $2 AND $3
      AND ($4::text IS NULL OR debtor_document = $4)
      AND ($5::text IS NULL OR debtor_document = $5)
      AND ($6::boolean IS NULL OR (loc_id IS NOT NULL) = $6)
      AND ($7::text IS NULL OR status = $7)
      AND ($8::text IS NULL OR agreement = $8)
"""


# -- requests ----------------------------------------------------------------------------------------


def _request(row: Any) -> RecurrenceRequest:
    return RecurrenceRequest(
        id=row["id"],
        account_id=row["account_id"],
        request_id=row["request_id"],
        recurrence_id=row["recurrence_id"],
        rec_id=row["rec_id"],
        recipient=Payer(row["recipient_document"], row["recipient_ispb"], row["recipient_city_code"]),
        recipient_account=row["recipient_account"],
        recipient_branch=row["recipient_branch"],
        expires_at=row["expires_at"],
        created_at=row["created_at"],
        status=RequestStatus(row["status"]),
        history=_history(row["history"], RequestStatus),
        updated_at=row["updated_at"],
    )


_REQUEST = """SELECT q.*, r.rec_id FROM recurrence_requests q JOIN recurrences r ON r.id = q.recurrence_id """


class PostgresRecurrenceRequests(Repository):
    async def add(self, request: NewRecurrenceRequest) -> RecurrenceRequest:
        q = request
        row = await _guarded(
            self._conn,
            """
            WITH added AS (
                INSERT INTO recurrence_requests (account_id, request_id, recurrence_id, recipient_document,
                    recipient_ispb, recipient_city_code, recipient_account, recipient_branch, expires_at,
                    status, history, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'CRIADA', $10::jsonb, $11, $11)
                RETURNING *
            )
            SELECT added.*, r.rec_id FROM added JOIN recurrences r ON r.id = added.recurrence_id
            """,
            q.account_id,
            q.request_id,
            q.recurrence_id,
            q.recipient.document,
            q.recipient.ispb,
            q.recipient.city_code,
            q.recipient_account,
            q.recipient_branch,
            q.expires_at,
            _history_json([StatusChange(RequestStatus.CRIADA, q.created_at)]),
            q.created_at,
        )
        return _request(row)

    async def _one(self, rest: LiteralString, *args: Any) -> RecurrenceRequest | None:
        row = await self._conn.fetchrow(compose(_REQUEST, rest), *args)
        return None if row is None else _request(row)

    async def _many(self, rest: LiteralString, *args: Any) -> list[RecurrenceRequest]:
        return [_request(row) for row in await self._conn.fetch(compose(_REQUEST, rest), *args)]

    async def get(self, account_id: int, request_id: str) -> RecurrenceRequest | None:
        return await self._one("WHERE q.request_id = $1 AND q.account_id = $2", request_id, account_id)

    async def lock(self, account_id: int, request_id: str) -> RecurrenceRequest | None:
        return await self._one(
            "WHERE q.request_id = $1 AND q.account_id = $2 FOR UPDATE OF q", request_id, account_id
        )

    async def lock_any(self, request_id: str) -> RecurrenceRequest | None:
        return await self._one("WHERE q.request_id = $1 FOR UPDATE OF q", request_id)

    async def of_recurrence(self, recurrence_id: int) -> list[RecurrenceRequest]:
        return await self._many("WHERE q.recurrence_id = $1 ORDER BY q.created_at, q.id", recurrence_id)

    async def save(self, request: RecurrenceRequest) -> None:
        await _guarded(
            self._conn,
            "UPDATE recurrence_requests SET status = $2, history = $3::jsonb, updated_at = $4 WHERE id = $1",
            request.id,
            request.status.value,
            _history_json(request.history),
            request.updated_at or request.created_at,
        )


# -- recurring charges -----------------------------------------------------------------------------


def _attempt(row: Any) -> Attempt:
    return Attempt(
        number=row["number"],
        type=AttemptType(row["type"]),
        settles_on=row["settles_on"],
        end_to_end_id=row["end_to_end_id"],
        status=AttemptStatus(row["status"]),
        history=_history(row["history"], AttemptStatus),
        rejection=_closing(row["rejection"]),
    )


def _charge(row: Any, attempts: tuple[Attempt, ...]) -> RecurringCharge:
    return RecurringCharge(
        id=row["id"],
        account_id=row["account_id"],
        txid=row["txid"],
        recurrence_id=row["recurrence_id"],
        rec_id=row["rec_id"],
        cycle=row["cycle"],
        amount=row["amount"],
        due_date=row["due_date"],
        adjust_to_business_day=row["adjust"],
        retry_policy=RetryPolicy(row["retry_policy"]),
        information=row["information"],
        receiver_account=row["receiver_account"],
        receiver_branch=row["receiver_branch"],
        receiver_account_type=row["receiver_account_type"],
        debtor_email=row["debtor_email"],
        debtor_street=row["debtor_street"],
        debtor_city=row["debtor_city"],
        debtor_state=row["debtor_state"],
        debtor_postal_code=row["debtor_postal_code"],
        created_at=row["created_at"],
        first_attempt=attempts[0],
        status=RecurringChargeStatus(row["status"]),
        history=_history(row["history"], RecurringChargeStatus),
        attempts=attempts,
        closing=_closing(row["closing"]),
        transaction_id=row["transaction_id"],
        paid_at=row["paid_at"],
        updated_at=row["updated_at"],
    )


_CHARGE = """SELECT c.*, r.rec_id FROM recurring_charges c JOIN recurrences r ON r.id = c.recurrence_id """
_UPSERT_ATTEMPTS = """
    INSERT INTO recurring_charge_attempts (charge_id, number, type, settles_on, end_to_end_id, status,
        history, rejection)
    SELECT $1, number, type, settles_on, end_to_end_id, status, history::jsonb, rejection::jsonb
      FROM unnest($2::smallint[], $3::text[], $4::date[], $5::text[], $6::text[], $7::text[], $8::text[])
        AS a(number, type, settles_on, end_to_end_id, status, history, rejection)
    ON CONFLICT (charge_id, number) DO UPDATE
       SET status = excluded.status, history = excluded.history, rejection = excluded.rejection
"""


class PostgresRecurringCharges(Repository):
    async def _with_attempts(self, rows: Sequence[Any]) -> list[RecurringCharge]:
        if not rows:
            return []
        found = await self._conn.fetch(
            """SELECT * FROM recurring_charge_attempts WHERE charge_id = any($1::bigint[])
               ORDER BY charge_id, number""",
            [row["id"] for row in rows],
        )
        attempts: dict[int, list[Attempt]] = {}
        for attempt in found:
            attempts.setdefault(attempt["charge_id"], []).append(_attempt(attempt))
        return [_charge(row, tuple(attempts[row["id"]])) for row in rows]

    async def _write_attempts(self, charge_id: int, attempts: Sequence[Attempt]) -> None:
        await self._conn.execute(
            _UPSERT_ATTEMPTS,
            charge_id,
            [a.number for a in attempts],
            [a.type.value for a in attempts],
            [a.settles_on for a in attempts],
            [a.end_to_end_id for a in attempts],
            [a.status.value for a in attempts],
            [_history_json(a.history) for a in attempts],
            [_closing_json(a.rejection) for a in attempts],
        )

    async def _many(self, rest: LiteralString, *args: Any) -> list[RecurringCharge]:
        return await self._with_attempts(await self._conn.fetch(compose(_CHARGE, rest), *args))

    async def _one(self, rest: LiteralString, *args: Any) -> RecurringCharge | None:
        found = await self._many(rest, *args)
        return found[0] if found else None

    async def add(self, charge: NewRecurringCharge) -> RecurringCharge:
        c = charge
        async with _savepoint(self._conn):
            row = await self._conn.fetchrow(
                """
                WITH added AS (
                    INSERT INTO recurring_charges (account_id, txid, recurrence_id, cycle, amount,
                        due_date, first_date, adjust, retry_policy, information, receiver_account,
                        receiver_branch,
                        receiver_account_type, debtor_email, debtor_street, debtor_city, debtor_state,
                        debtor_postal_code, status, history, created_at, updated_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                        $18, 'CRIADA', $19::jsonb, $20, $20)
                    RETURNING *
                )
                SELECT added.*, r.rec_id FROM added JOIN recurrences r ON r.id = added.recurrence_id
                """,
                c.account_id,
                c.txid,
                c.recurrence_id,
                c.cycle,
                c.amount,
                c.due_date,
                c.first_attempt.settles_on,
                c.adjust_to_business_day,
                c.retry_policy.value,
                c.information,
                c.receiver_account,
                c.receiver_branch,
                c.receiver_account_type,
                c.debtor_email,
                c.debtor_street,
                c.debtor_city,
                c.debtor_state,
                c.debtor_postal_code,
                _history_json([StatusChange(RecurringChargeStatus.CRIADA, c.created_at)]),
                c.created_at,
            )
            if row is None:
                raise RuntimeError("INSERT ... RETURNING returned no row")
            await self._write_attempts(row["id"], [c.first_attempt])
        return _charge(row, (c.first_attempt,))

    async def get(self, account_id: int, txid: str) -> RecurringCharge | None:
        return await self._one("WHERE c.account_id = $1 AND c.txid = $2", account_id, txid)

    async def lock(self, account_id: int, txid: str) -> RecurringCharge | None:
        return await self._one("WHERE c.account_id = $1 AND c.txid = $2 FOR UPDATE OF c", account_id, txid)

    async def lock_live(self, recurrence_id: int) -> list[RecurringCharge]:
        return await self._many(
            """WHERE c.recurrence_id = $1 AND c.status IN ('CRIADA', 'ATIVA')
               ORDER BY c.created_at, c.id FOR UPDATE OF c""",
            recurrence_id,
        )

    async def lock_due(self, day: date, limit: int) -> list[RecurringCharge]:
        return await self._many(
            """
            WHERE c.status IN ('CRIADA', 'ATIVA') AND (
                EXISTS (SELECT 1 FROM recurring_charge_attempts a WHERE a.charge_id = c.id
                        AND (a.status = 'SOLICITADA' OR (a.status = 'AGENDADA' AND a.settles_on <= $1)))
                OR (c.status = 'ATIVA'
                    AND NOT EXISTS (SELECT 1 FROM recurring_charge_attempts a WHERE a.charge_id = c.id
                                    AND a.status IN ('SOLICITADA', 'AGENDADA'))
                    AND (c.retry_policy = 'NAO_PERMITE' OR c.first_date + 7 <= $1
                         OR (SELECT count(*) FROM recurring_charge_attempts a WHERE a.charge_id = c.id) > 3)))
            ORDER BY c.first_date, c.id LIMIT $2 FOR UPDATE OF c SKIP LOCKED
            """,
            day,
            limit,
        )

    async def save(self, charge: RecurringCharge) -> None:
        c = charge
        async with _savepoint(self._conn):
            await self._conn.execute(
                """
                UPDATE recurring_charges SET status = $2, history = $3::jsonb, closing = $4::jsonb,
                    transaction_id = $5, paid_at = $6, updated_at = $7
                WHERE id = $1
                """,
                c.id,
                c.status.value,
                _history_json(c.history),
                _closing_json(c.closing),
                c.transaction_id,
                c.paid_at,
                c.updated_at or c.created_at,
            )
            await self._write_attempts(c.id, c.attempts)

    async def search(self, account_id: int, query: ChargeListQuery) -> tuple[int, list[RecurringCharge]]:
        q = query
        args = (
            account_id,
            q.start,
            q.end,
            q.rec_id,
            q.cpf,
            q.cnpj,
            None if q.status is None else q.status.value,
            q.agreement,
        )
        total = await self._conn.fetchval(compose("SELECT count(*) ", _CHARGE_FILTER), *args)
        rows = await self._conn.fetch(
            compose(
                "SELECT c.*, r.rec_id ", _CHARGE_FILTER, " ORDER BY c.created_at, c.id LIMIT $9 OFFSET $10"
            ),
            *args,
            q.page.size,
            q.page.offset,
        )
        return total, await self._with_attempts(rows)


_CHARGE_FILTER = """
    FROM recurring_charges c JOIN recurrences r ON r.id = c.recurrence_id
    WHERE c.account_id = $1 AND c.created_at BETWEEN $2 AND $3
      AND ($4::text IS NULL OR r.rec_id = $4)
      AND ($5::text IS NULL OR r.debtor_document = $5)
      AND ($6::text IS NULL OR r.debtor_document = $6)
      AND ($7::text IS NULL OR c.status = $7)
      AND ($8::text IS NULL OR r.agreement = $8)
"""


# -- locations -------------------------------------------------------------------------------------


def _location(row: Any) -> RecurrenceLocation:
    return RecurrenceLocation(
        id=row["id"],
        account_id=row["account_id"],
        token=row["token"],
        created_at=row["created_at"],
        rec_id=row["rec_id"],
    )


_LOCATION = """SELECT l.*, r.rec_id FROM recurrence_locations l LEFT JOIN recurrences r ON r.loc_id = l.id """


class PostgresRecurrenceLocations(Repository):
    async def add(self, location: NewRecurrenceLocation) -> RecurrenceLocation:
        row = await self._conn.fetchrow(
            """INSERT INTO recurrence_locations (account_id, token, created_at) VALUES ($1, $2, $3)
               RETURNING *, NULL::varchar AS rec_id""",
            location.account_id,
            location.token,
            location.created_at,
        )
        return _location(row)

    async def get(self, account_id: int, location_id: int) -> RecurrenceLocation | None:
        row = await self._conn.fetchrow(
            _LOCATION + "WHERE l.id = $1 AND l.account_id = $2", location_id, account_id
        )
        return _location(row) if row else None

    async def lock(self, account_id: int, location_id: int) -> RecurrenceLocation | None:
        locked = await self._conn.fetchval(
            "SELECT id FROM recurrence_locations WHERE id = $1 AND account_id = $2 FOR UPDATE",
            location_id,
            account_id,
        )
        return None if locked is None else await self.get(account_id, location_id)

    async def search(self, account_id: int, query: LocationListQuery) -> tuple[int, list[RecurrenceLocation]]:
        q = query
        args = (account_id, q.start, q.end, q.rec_present, q.agreement)
        total = await self._conn.fetchval(compose("SELECT count(*) ", _LOCATION_FILTER), *args)
        rows = await self._conn.fetch(
            compose(
                "SELECT l.*, r.rec_id ", _LOCATION_FILTER, " ORDER BY l.created_at, l.id LIMIT $6 OFFSET $7"
            ),
            *args,
            q.page.size,
            q.page.offset,
        )
        return total, [_location(row) for row in rows]


_LOCATION_FILTER = """
    FROM recurrence_locations l LEFT JOIN recurrences r ON r.loc_id = l.id
    WHERE l.account_id = $1 AND l.created_at BETWEEN $2 AND $3
      AND ($4::boolean IS NULL OR (r.id IS NOT NULL) = $4)
      AND ($5::text IS NULL OR r.agreement = $5)
"""


# -- the sandbox's payer's bank --------------------------------------------------------------------


class PostgresPayerBank(Repository):
    async def set_balance(self, payer: Payer, amount: int) -> None:
        await self._conn.execute(
            """INSERT INTO sandbox_payers (ispb, document, balance) VALUES ($1, $2, $3)
               ON CONFLICT (ispb, document) DO UPDATE SET balance = excluded.balance""",
            payer.ispb,
            payer.document,
            amount,
        )

    async def balance(self, payer: Payer) -> int:
        found = await self._conn.fetchval(
            "SELECT balance FROM sandbox_payers WHERE ispb = $1 AND document = $2", payer.ispb, payer.document
        )
        return int(found or 0)

    async def balances(self, payers: Sequence[Payer]) -> list[int]:
        return [await self.balance(payer) for payer in payers]

    async def debit(self, payer: Payer, amount: int) -> bool:
        if amount <= 0:
            raise ValueError("a debit moves a positive amount")
        status = await self._conn.execute(
            """UPDATE sandbox_payers SET balance = balance - $3
               WHERE ispb = $1 AND document = $2 AND balance >= $3""",
            payer.ispb,
            payer.document,
            amount,
        )
        return status == "UPDATE 1"
