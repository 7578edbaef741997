"""The ports of refunds and MED cases."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pixcore.queries.standard import ReceivedQuery
from pixcore.records import TransactionType
from pixcore.refunds.med import MedCase, MedStatus, NewMedCase
from pixcore.refunds.rules import NewRefund, Original, Refund, RefundKind, RefundNature, RefundStatus

__all__ = ["MedRepository", "RefundRepository"]


class RefundRepository(Protocol):
    async def lock_original(
        self, account_id: int, end_to_end_id: str, kind: TransactionType
    ) -> Original | None:
        """The account's CONFIRMED transaction of ``kind`` with this end-to-end id, locked
        (``FOR UPDATE``) so that refunds of it are counted one request at a time."""
        ...

    async def original_of(self, transaction_id: int) -> Original | None:
        """The transaction a refund refers to, read without a lock."""
        ...

    async def total(
        self, original_transaction_id: int, kind: RefundKind, nature: RefundNature | None = None
    ) -> int:
        """The refunds of ``kind`` of a transaction that are not NAO_REALIZADO, in centavos; of
        ``nature`` alone when given."""
        ...

    async def add(self, refund: NewRefund) -> Refund: ...

    async def find(self, original_transaction_id: int, refund_id: str) -> Refund | None: ...

    async def list_sent(self, original_transaction_id: int) -> list[Refund]:
        """The refunds of a receipt to its payer (``devolucoes``), every status, oldest first."""
        ...

    async def list_sent_of(self, original_transaction_ids: Sequence[int]) -> list[Refund]:
        """:meth:`list_sent` of several receipts at once, oldest first."""
        ...

    async def search_received(self, account_id: int, query: ReceivedQuery) -> tuple[int, list[Original]]:
        """``GET /pix``: how many PIX the account received (CONFIRMED PAYMENT records) match, and
        the page asked for, oldest first (``received_at``, then id)."""
        ...

    async def find_received(self, account_id: int, end_to_end_id: str) -> Original | None:
        """``GET /pix/{e2eid}``: the account's received PIX with this end-to-end id."""
        ...

    async def due(self, now: datetime, limit: int) -> list[int]:
        """Ids of EM_PROCESSAMENTO refunds whose processing time has come."""
        ...

    async def lock_pending(self, refund_pk: int) -> Refund | None:
        """An EM_PROCESSAMENTO refund locked for this unit; None if finished or held elsewhere."""
        ...

    async def finish(
        self, refund_pk: int, status: RefundStatus, reason: str | None, at: datetime
    ) -> None: ...


class MedRepository(Protocol):
    async def add(self, case: NewMedCase) -> MedCase:
        """Store an open case; raises ``DuplicateMedCase`` if the receipt has one open."""
        ...

    async def lock(self, account_id: int, case_id: int) -> MedCase | None: ...

    async def open_amount(self, original_transaction_id: int) -> int:
        """The disputed amount of the receipt's open case (0 when none)."""
        ...

    async def open_case(self, original_transaction_id: int) -> MedCase | None:
        """The receipt's open (CREATED) case, if it has one."""
        ...

    async def finish(self, case_id: int, status: MedStatus, at: datetime) -> None: ...
