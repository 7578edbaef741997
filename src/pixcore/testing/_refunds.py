"""Fakes of the refund and MED ports."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

from pixcore.accounts.rules import Counterpart
from pixcore.errors import DuplicateMedCase
from pixcore.queries.standard import ReceivedQuery
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.med import MedCase, MedStatus, NewMedCase
from pixcore.refunds.rules import NewRefund, Original, Refund, RefundKind, RefundNature, RefundStatus
from pixcore.testing._store import IntegrityError, Repository, refund_conflict

__all__ = ["InMemoryMed", "InMemoryRefunds"]


class InMemoryRefunds(Repository):
    """Refunds by id. ``lock_pending`` skips a refund another open unit holds (``SKIP LOCKED``);
    ``lock_original`` reads like a plain read (the PostgreSQL tests race the real lock)."""

    def _visible(self) -> dict[int, Refund]:
        return {**self._committed.refunds, **self._staged.refunds}

    def _receipt(self, transaction_id: int) -> Original | None:
        record = self._staged.transactions.get(transaction_id) or self._committed.transactions.get(
            transaction_id
        )
        if record is None or record.end_to_end_id is None:
            return None
        charges = {**self._committed.charges, **self._staged.charges}.values()
        paid = next((c for c in charges if c.transaction_id == transaction_id), None)
        c = record.counterpart
        transfers = {**self._committed.transfers, **self._staged.transfers}
        if record.type is TransactionType.WITHDRAW:
            sent = transfers.get(transaction_id)
            other = sent.receiver_account_id if sent else None
        elif record.type is TransactionType.PAYMENT:  # a receipt from a transfer of ours: its sender
            other = next(
                (
                    t.account_id
                    for t in transfers.values()
                    if t.end_to_end_id == record.end_to_end_id and t.receiver_account_id == record.account_id
                ),
                None,
            )
        else:
            other = None
        return Original(
            transaction_id=transaction_id,
            account_id=record.account_id,
            amount=record.amount,
            end_to_end_id=record.end_to_end_id,
            received_at=record.processed_at or record.created_at,
            counterpart=Counterpart(c.name, c.document, c.ispb) if c else None,  # what the table keeps
            tx_id=None if paid is None else paid.txid,
            pix_key=record.pix_key,
            counterpart_account_id=other,
            amount_parts=None if paid is None else paid.paid_parts,
        )

    async def lock_original(
        self, account_id: int, end_to_end_id: str, kind: TransactionType
    ) -> Original | None:
        records = {**self._committed.transactions, **self._staged.transactions}
        for transaction_id, record in records.items():
            if (
                record.account_id == account_id
                and record.end_to_end_id == end_to_end_id
                and record.type is kind
                and record.status is TransactionStatus.CONFIRMED
            ):
                return self._receipt(transaction_id)
        return None

    async def original_of(self, transaction_id: int) -> Original | None:
        return self._receipt(transaction_id)

    async def total(
        self, original_transaction_id: int, kind: RefundKind, nature: RefundNature | None = None
    ) -> int:
        return sum(
            r.amount
            for r in self._visible().values()
            if r.original_transaction_id == original_transaction_id
            and r.kind is kind
            and r.status is not RefundStatus.NAO_REALIZADO
            and (nature is None or r.nature is nature)
        )

    async def add(self, refund: NewRefund) -> Refund:
        self._require_account(refund.account_id)
        self._require_transaction(refund.transaction_id)
        self._require_transaction(refund.original_transaction_id)
        for other in self._visible().values():
            if (conflict := refund_conflict(refund, other)) is not None:
                raise IntegrityError(conflict)
        fields = {f.name: getattr(refund, f.name) for f in dataclasses.fields(refund)}
        stored = Refund(**fields, id=self._uow.store.next_id("refunds"))
        self._staged.refunds[stored.id] = stored
        return stored

    async def find(self, original_transaction_id: int, refund_id: str) -> Refund | None:
        for refund in self._visible().values():
            if (refund.original_transaction_id, refund.kind, refund.refund_id) == (
                original_transaction_id,
                RefundKind.SENT,
                refund_id,
            ):
                return refund
        return None

    async def list_sent(self, original_transaction_id: int) -> list[Refund]:
        return sorted(
            (
                r
                for r in self._visible().values()
                if r.original_transaction_id == original_transaction_id and r.kind is RefundKind.SENT
            ),
            key=lambda r: (r.requested_at, r.id),
        )

    async def list_sent_of(self, original_transaction_ids: Sequence[int]) -> list[Refund]:
        wanted = set(original_transaction_ids)
        return sorted(
            (
                r
                for r in self._visible().values()
                if r.original_transaction_id in wanted and r.kind is RefundKind.SENT
            ),
            key=lambda r: (r.requested_at, r.id),
        )

    def _received(self, account_id: int) -> list[Original]:
        records = {**self._committed.transactions, **self._staged.transactions}
        found = []
        for transaction_id, record in records.items():
            if (
                record.account_id == account_id
                and record.type is TransactionType.PAYMENT
                and record.status is TransactionStatus.CONFIRMED
                and (receipt := self._receipt(transaction_id)) is not None
            ):
                found.append(receipt)
        return found

    async def search_received(self, account_id: int, query: ReceivedQuery) -> tuple[int, list[Original]]:
        refunded = {r.original_transaction_id for r in self._visible().values() if r.kind is RefundKind.SENT}
        document = query.cpf or query.cnpj
        found = [
            o
            for o in self._received(account_id)
            if query.start <= o.received_at <= query.end
            and (query.txid is None or o.tx_id == query.txid)
            and (query.txid_present is None or (o.tx_id is not None) is query.txid_present)
            and (query.refund_present is None or (o.transaction_id in refunded) is query.refund_present)
            and (document is None or (o.counterpart is not None and o.counterpart.document == document))
        ]
        found.sort(key=lambda o: (o.received_at, o.transaction_id))
        start = query.page.offset
        return len(found), found[start : start + query.page.size]

    async def find_received(self, account_id: int, end_to_end_id: str) -> Original | None:
        return next((o for o in self._received(account_id) if o.end_to_end_id == end_to_end_id), None)

    async def due(self, now: datetime, limit: int) -> list[int]:
        pending = [
            r
            for r in self._visible().values()
            if r.status is RefundStatus.EM_PROCESSAMENTO and r.process_after <= now
        ]
        pending.sort(key=lambda r: (r.process_after, r.id))
        return [r.id for r in pending[:limit]]

    async def lock_pending(self, refund_pk: int) -> Refund | None:
        refund = self._visible().get(refund_pk)
        if refund is None or refund.status is not RefundStatus.EM_PROCESSAMENTO:
            return None
        if not self._uow.store.lock_row("refunds", refund_pk, self._uow):
            return None  # another open unit of work holds it: skipped, as SKIP LOCKED does
        return refund

    async def finish(self, refund_pk: int, status: RefundStatus, reason: str | None, at: datetime) -> None:
        refund = self._visible()[refund_pk]
        self._staged.refunds[refund_pk] = dataclasses.replace(
            refund, status=status, reason=reason, finished_at=at
        )


class InMemoryMed(Repository):
    def _visible(self) -> dict[int, MedCase]:
        return {**self._committed.med_cases, **self._staged.med_cases}

    async def add(self, case: NewMedCase) -> MedCase:
        self._require_account(case.account_id)
        self._require_transaction(case.original_transaction_id)
        if await self.open_amount(case.original_transaction_id):
            raise DuplicateMedCase()
        fields = {f.name: getattr(case, f.name) for f in dataclasses.fields(case)}
        stored = MedCase(**fields, id=self._uow.store.next_id("med_cases"))
        self._staged.med_cases[stored.id] = stored
        return stored

    async def lock(self, account_id: int, case_id: int) -> MedCase | None:
        case = self._visible().get(case_id)
        return case if case is not None and case.account_id == account_id else None

    async def open_amount(self, original_transaction_id: int) -> int:
        return sum(
            c.amount
            for c in self._visible().values()
            if c.original_transaction_id == original_transaction_id and c.status is MedStatus.CREATED
        )

    async def open_case(self, original_transaction_id: int) -> MedCase | None:
        return next(
            (
                c
                for c in self._visible().values()
                if c.original_transaction_id == original_transaction_id and c.status is MedStatus.CREATED
            ),
            None,
        )

    async def finish(self, case_id: int, status: MedStatus, at: datetime) -> None:
        case = self._visible()[case_id]
        self._staged.med_cases[case_id] = dataclasses.replace(case, status=status, finished_at=at)
