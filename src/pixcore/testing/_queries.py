"""The fake of the read port :class:`pixcore.queries.rules.TransactionQueries`, over a store's
committed records."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date

from pixcore.queries.rules import (
    DayFlow,
    Identifier,
    ListQuery,
    Movement,
    TransactionFilter,
    TransactionPage,
    TransactionView,
)
from pixcore.records import NewTransaction, TransactionStatus
from pixcore.testing._store import StoreState

__all__ = ["InMemoryTransactionQueries"]


def _view(transaction_id: int, record: NewTransaction) -> TransactionView:
    c = record.counterpart
    return TransactionView(
        id=transaction_id,
        account_id=record.account_id,
        type=record.type,
        status=record.status,
        amount=record.amount,
        fee=0,
        created_at=record.created_at,
        updated_at=record.processed_at or record.created_at,
        processed_at=record.processed_at,
        external_id=record.external_id,
        end_to_end_id=record.end_to_end_id,
        pix_key=record.pix_key,
        counterpart_name=c.name if c else None,
        counterpart_document=c.document if c else None,
        counterpart_ispb=c.ispb if c else None,
        counterpart_bank=c.bank_name if c else None,
        counterpart_branch=c.branch if c else None,
        counterpart_account=c.account_number if c else None,
    )


def _matches(view: TransactionView, wanted: TransactionFilter) -> bool:
    return (
        wanted.start <= view.created_at <= wanted.end
        and wanted.status in (None, view.status)
        and wanted.type in (None, view.type)
        and wanted.external_id in (None, view.external_id)
        and wanted.end_to_end_id in (None, view.end_to_end_id)
        and wanted.pix_key in (None, view.pix_key)
        and wanted.amount in (None, view.amount)
    )


class InMemoryTransactionQueries:
    """Reads what the store's units of work committed, the way the PostgreSQL adapter does."""

    def __init__(self, store: StoreState) -> None:
        self.store = store

    def _views(self, account_id: int) -> list[TransactionView]:
        views = [
            _view(transaction_id, record)
            for transaction_id, record in self.store.transactions.items()
            if record.account_id == account_id
        ]
        return sorted(views, key=lambda v: (v.created_at, v.id), reverse=True)

    async def list(self, account_id: int, query: ListQuery, *, cap: int | None = None) -> TransactionPage:
        matched = [view for view in self._views(account_id) if _matches(view, query.filter)]
        if cap is not None:
            matched = matched[:cap]
        items = matched[query.offset : query.offset + query.size]
        return TransactionPage(items=items, page=query.page, size=query.size, total=len(matched))

    async def find(
        self, account_id: int, identifier: Identifier, *, pix_key: str | None = None
    ) -> TransactionView | None:
        views = [v for v in self._views(account_id) if pix_key is None or v.pix_key == pix_key]
        kinds: list[tuple[object, Callable[[TransactionView], object]]] = [
            (identifier.end_to_end_id, lambda v: v.end_to_end_id),
            (identifier.id, lambda v: v.id),
            (identifier.external_id, lambda v: v.external_id),
        ]
        for wanted, field in kinds:
            found = [v for v in views if wanted is not None and field(v) == wanted]
            if found:
                return found[0]
        return None

    async def daily_flows(self, account_id: int, first: date, last: date) -> Sequence[DayFlow]:
        days: dict[date, list[int]] = {}
        for view in self._views(account_id):
            day = view.created_at.astimezone(UTC).date()
            if view.status is TransactionStatus.CONFIRMED and first <= day <= last:
                totals = days.setdefault(day, [0, 0])
                totals[0 if view.movement is Movement.CREDIT else 1] += view.final_amount
        return [DayFlow(day, incoming, outgoing) for day, (incoming, outgoing) in sorted(days.items())]
