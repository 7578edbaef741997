"""PostgreSQL repositories of refunds and MED cases (the adapters of their ports)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from pixcore.accounts.rules import Counterpart
from pixcore.errors import DuplicateMedCase
from pixcore.queries.standard import ReceivedQuery
from pixcore.records import TransactionType
from pixcore.refunds.med import MedCase, MedReason, MedStatus, NewMedCase
from pixcore.refunds.rules import NewRefund, Original, Refund, RefundKind, RefundNature, RefundStatus
from pixinfra.due_terms import stored_parts
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose, paged

__all__ = ["PostgresMed", "PostgresRefunds", "received_statements"]

_RECEIPT = """
    SELECT t.id, t.account_id, t.amount, t.end_to_end_id, t.counterpart_name, t.pix_key,
           coalesce(t.processed_at, t.created_at) AS received_at,
           t.counterpart_document, t.counterpart_ispb,
           (SELECT c.txid FROM charges c WHERE c.transaction_id = t.id) AS tx_id,
           (SELECT c.paid_parts FROM charges c WHERE c.transaction_id = t.id) AS amount_parts,
           CASE t.type
               WHEN 'PAYMENT' THEN (SELECT tr.account_id FROM transfers tr
                                     WHERE tr.end_to_end_id = t.end_to_end_id
                                       AND tr.receiver_account_id = t.account_id)
               WHEN 'WITHDRAW' THEN (SELECT tr.receiver_account_id FROM transfers tr
                                      WHERE tr.transaction_id = t.id)
           END AS counterpart_account_id
      FROM transactions t
"""

_REFUND_COLUMNS = """
    id, kind, account_id, original_transaction_id, refund_id, rtr_id, amount, nature, description, status,
    reason, reserved, transaction_id, med_case_id, requested_at, process_after, finished_at
"""


def _counterpart(row: asyncpg.Record) -> Counterpart | None:
    name, document = row["counterpart_name"], row["counterpart_document"]
    if name is None or document is None:
        return None
    return Counterpart(name, document, row["counterpart_ispb"] or "")


def _receipt(row: asyncpg.Record) -> Original:
    return Original(
        transaction_id=row["id"],
        account_id=row["account_id"],
        amount=row["amount"],
        end_to_end_id=row["end_to_end_id"],
        received_at=row["received_at"],
        counterpart=_counterpart(row),
        tx_id=row["tx_id"],
        pix_key=row["pix_key"],
        counterpart_account_id=row["counterpart_account_id"],
        amount_parts=None if row["amount_parts"] is None else stored_parts(row["amount_parts"]),
    )


def _refund(row: asyncpg.Record) -> Refund:
    return Refund(
        id=row["id"],
        kind=RefundKind(row["kind"]),
        account_id=row["account_id"],
        original_transaction_id=row["original_transaction_id"],
        refund_id=row["refund_id"],
        rtr_id=row["rtr_id"],
        amount=row["amount"],
        nature=RefundNature(row["nature"]),
        description=row["description"],
        status=RefundStatus(row["status"]),
        reason=row["reason"],
        reserved=row["reserved"],
        transaction_id=row["transaction_id"],
        med_case_id=row["med_case_id"],
        requested_at=row["requested_at"],
        process_after=row["process_after"],
        finished_at=row["finished_at"],
    )


def _received_filter(account_id: int, query: ReceivedQuery) -> tuple[str, list[Any]]:
    """The conditions of ``GET /pix`` on ``transactions t``: a range of the partial index
    ``transactions_received_idx`` (account, ``processed_at``), then the optional filters."""
    args: list[Any] = [account_id, query.start, query.end]
    where = [
        "t.account_id = $1",
        "t.type = 'PAYMENT'",
        "t.status = 'CONFIRMED'",
        "t.processed_at >= $2",
        "t.processed_at <= $3",
    ]
    paid_charge = "EXISTS (SELECT 1 FROM charges c WHERE c.transaction_id = t.id"
    if query.txid is not None:
        args.append(query.txid)
        where.append(f"{paid_charge} AND c.txid = ${len(args)})")
    if query.txid_present is not None:
        where.append(paid_charge + ")" if query.txid_present else f"NOT {paid_charge})")
    refunded = "EXISTS (SELECT 1 FROM refunds r WHERE r.original_transaction_id = t.id AND r.kind = 'sent')"
    if query.refund_present is not None:
        where.append(refunded if query.refund_present else f"NOT {refunded}")
    document = query.cpf or query.cnpj
    if document is not None:
        args.append(document)
        where.append(f"t.counterpart_document = ${len(args)}")
    return " AND ".join(where), args


def received_statements(account_id: int, query: ReceivedQuery) -> tuple[str, list[Any], str, list[Any]]:
    """``GET /pix``'s statements, each with its arguments: how many match, and the page."""
    where, args = _received_filter(account_id, query)
    count = compose("SELECT count(*) FROM transactions t WHERE ", where)
    limit, page_args = paged(args, query.page.size, query.page.offset)
    page = compose(_RECEIPT, " WHERE ", where, " ORDER BY t.processed_at, t.id", limit)
    return count, args, page, page_args


class PostgresRefunds(Repository):
    async def lock_original(
        self, account_id: int, end_to_end_id: str, kind: TransactionType
    ) -> Original | None:
        row = await self._conn.fetchrow(
            _RECEIPT
            + """
             WHERE t.end_to_end_id = $1 AND t.account_id = $2 AND t.type = $3 AND t.status = 'CONFIRMED'
               FOR UPDATE OF t
            """,
            end_to_end_id,
            account_id,
            kind.value,
        )
        return _receipt(row) if row else None

    async def original_of(self, transaction_id: int) -> Original | None:
        # As the port's Original: a transaction with an end-to-end id (a PENDING cash-in has none).
        row = await self._conn.fetchrow(
            _RECEIPT + " WHERE t.id = $1 AND t.end_to_end_id IS NOT NULL", transaction_id
        )
        return _receipt(row) if row else None

    async def total(
        self, original_transaction_id: int, kind: RefundKind, nature: RefundNature | None = None
    ) -> int:
        total: int = await self._conn.fetchval(
            """
            SELECT coalesce(sum(amount), 0) FROM refunds
             WHERE original_transaction_id = $1 AND kind = $2 AND status <> 'NAO_REALIZADO'
               AND ($3::text IS NULL OR nature = $3)
            """,
            original_transaction_id,
            kind.value,
            None if nature is None else nature.value,
        )
        return int(total)

    async def add(self, refund: NewRefund) -> Refund:
        r = refund
        row = await self._conn.fetchrow(
            compose(
                """
            INSERT INTO refunds (kind, account_id, original_transaction_id, refund_id, rtr_id, amount, nature,
                description, status, reserved, transaction_id, med_case_id, requested_at, process_after)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'EM_PROCESSAMENTO', $9, $10, $11, $12, $13)
            RETURNING """,
                _REFUND_COLUMNS,
                """
            """,
            ),
            r.kind.value,
            r.account_id,
            r.original_transaction_id,
            r.refund_id,
            r.rtr_id,
            r.amount,
            r.nature.value,
            r.description,
            r.reserved,
            r.transaction_id,
            r.med_case_id,
            r.requested_at,
            r.process_after,
        )
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        return _refund(row)

    async def find(self, original_transaction_id: int, refund_id: str) -> Refund | None:
        row = await self._conn.fetchrow(
            compose(
                """
            SELECT """,
                _REFUND_COLUMNS,
                """ FROM refunds
             WHERE original_transaction_id = $1 AND kind = 'sent' AND refund_id = $2
            """,
            ),
            original_transaction_id,
            refund_id,
        )
        return _refund(row) if row else None

    async def list_sent(self, original_transaction_id: int) -> list[Refund]:
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _REFUND_COLUMNS,
                """ FROM refunds
             WHERE original_transaction_id = $1 AND kind = 'sent'
             ORDER BY requested_at, id
            """,
            ),
            original_transaction_id,
        )
        return [_refund(row) for row in rows]

    async def list_sent_of(self, original_transaction_ids: Sequence[int]) -> list[Refund]:
        rows = await self._conn.fetch(
            compose(
                """
            SELECT """,
                _REFUND_COLUMNS,
                """ FROM refunds
             WHERE original_transaction_id = ANY($1::bigint[]) AND kind = 'sent'
             ORDER BY requested_at, id
            """,
            ),
            list(original_transaction_ids),
        )
        return [_refund(row) for row in rows]

    async def search_received(self, account_id: int, query: ReceivedQuery) -> tuple[int, list[Original]]:
        count, args, page, page_args = received_statements(account_id, query)
        total: int = await self._conn.fetchval(count, *args)
        if total <= query.page.offset:
            return total, []
        rows = await self._conn.fetch(page, *page_args)
        return total, [_receipt(row) for row in rows]

    async def find_received(self, account_id: int, end_to_end_id: str) -> Original | None:
        row = await self._conn.fetchrow(
            _RECEIPT
            + """
             WHERE t.end_to_end_id = $1 AND t.account_id = $2 AND t.type = 'PAYMENT'
               AND t.status = 'CONFIRMED'
            """,
            end_to_end_id,
            account_id,
        )
        return _receipt(row) if row else None

    async def due(self, now: datetime, limit: int) -> list[int]:
        rows = await self._conn.fetch(
            """
            SELECT id FROM refunds WHERE status = 'EM_PROCESSAMENTO' AND process_after <= $1
             ORDER BY process_after LIMIT $2
            """,
            now,
            limit,
        )
        return [row["id"] for row in rows]

    async def lock_pending(self, refund_pk: int) -> Refund | None:
        row = await self._conn.fetchrow(
            compose(
                """
            SELECT """,
                _REFUND_COLUMNS,
                """ FROM refunds
             WHERE id = $1 AND status = 'EM_PROCESSAMENTO'
               FOR UPDATE SKIP LOCKED
            """,
            ),
            refund_pk,
        )
        return _refund(row) if row else None

    async def finish(self, refund_pk: int, status: RefundStatus, reason: str | None, at: datetime) -> None:
        await self._conn.execute(
            "UPDATE refunds SET status = $2, reason = $3, finished_at = $4 WHERE id = $1",
            refund_pk,
            status.value,
            reason,
            at,
        )


_MED_COLUMNS = """
    id, account_id, original_transaction_id, end_to_end_id, reason, status, amount, blocked, created_at,
    finished_at
"""


def _case(row: asyncpg.Record) -> MedCase:
    return MedCase(
        id=row["id"],
        account_id=row["account_id"],
        original_transaction_id=row["original_transaction_id"],
        end_to_end_id=row["end_to_end_id"],
        reason=MedReason(row["reason"]),
        status=MedStatus(row["status"]),
        amount=row["amount"],
        blocked=row["blocked"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
    )


class PostgresMed(Repository):
    async def add(self, case: NewMedCase) -> MedCase:
        c = case
        try:
            async with self._conn.transaction():  # a savepoint: a conflict leaves the unit usable
                row = await self._conn.fetchrow(
                    compose(
                        """
                    INSERT INTO med_cases (account_id, original_transaction_id, end_to_end_id, reason, status,
                        amount, blocked, created_at)
                    VALUES ($1, $2, $3, $4, 'CREATED', $5, $6, $7)
                    RETURNING """,
                        _MED_COLUMNS,
                        """
                    """,
                    ),
                    c.account_id,
                    c.original_transaction_id,
                    c.end_to_end_id,
                    c.reason.value,
                    c.amount,
                    c.blocked,
                    c.created_at,
                )
        except asyncpg.UniqueViolationError:
            raise DuplicateMedCase() from None
        if row is None:
            raise RuntimeError("INSERT ... RETURNING returned no row")
        return _case(row)

    async def lock(self, account_id: int, case_id: int) -> MedCase | None:
        row = await self._conn.fetchrow(
            compose("SELECT ", _MED_COLUMNS, " FROM med_cases WHERE id = $1 AND account_id = $2 FOR UPDATE"),
            case_id,
            account_id,
        )
        return _case(row) if row else None

    async def open_amount(self, original_transaction_id: int) -> int:
        amount = await self._conn.fetchval(
            "SELECT amount FROM med_cases WHERE original_transaction_id = $1 AND status = 'CREATED'",
            original_transaction_id,
        )
        return int(amount or 0)

    async def open_case(self, original_transaction_id: int) -> MedCase | None:
        row = await self._conn.fetchrow(
            compose(
                "SELECT ",
                _MED_COLUMNS,
                " FROM med_cases WHERE original_transaction_id = $1 AND status = 'CREATED'",
            ),
            original_transaction_id,
        )
        return _case(row) if row else None

    async def finish(self, case_id: int, status: MedStatus, at: datetime) -> None:
        await self._conn.execute(
            "UPDATE med_cases SET status = $2, finished_at = $3 WHERE id = $1", case_id, status.value, at
        )
