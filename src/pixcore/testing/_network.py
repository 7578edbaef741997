"""The fake of the network's repository: the payments received through the SPI, and the cursor of
the messages handled."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from pixcore.accounts.rules import Counterpart
from pixcore.network.rules import MedLink, NetworkReceipt, ReceiptState
from pixcore.refunds.rules import RefundKind
from pixcore.testing._integrity import IntegrityError
from pixcore.testing._store import Repository

__all__ = ["InMemoryNetwork"]


class InMemoryNetwork(Repository):
    async def accept(self, receipt: NetworkReceipt) -> bool:
        self._require_account(receipt.account_id)
        if await self.receipt(receipt.payment.end_to_end_id) is not None:
            return False
        self._staged.network_receipts[receipt.payment.end_to_end_id] = receipt
        return True

    async def receipt(self, end_to_end_id: str) -> NetworkReceipt | None:
        staged = self._staged.network_receipts.get(end_to_end_id)
        return staged if staged is not None else self._committed.network_receipts.get(end_to_end_id)

    async def lock_accepted(self, end_to_end_id: str) -> NetworkReceipt | None:
        receipt = await self.receipt(end_to_end_id)
        if receipt is None or receipt.state is not ReceiptState.ACCEPTED:
            return None
        # FOR UPDATE waits for another holder; the fake's units run one at a time, so none holds it.
        return receipt

    async def finish(
        self, end_to_end_id: str, state: ReceiptState, transaction_id: int | None, at: datetime
    ) -> None:
        receipt = await self.receipt(end_to_end_id)
        if receipt is None:
            raise LookupError(f"no payment {end_to_end_id} was received")
        if transaction_id is not None:
            self._require_transaction(transaction_id)
        finished = dataclasses.replace(receipt, state=state, transaction_id=transaction_id, finished_at=at)
        self._staged.network_receipts[end_to_end_id] = finished

    async def return_received(self, return_id: str) -> bool:
        refunds = {**self._committed.refunds, **self._staged.refunds}.values()
        return any(r.kind is RefundKind.RECEIVED and r.rtr_id == return_id for r in refunds)

    async def transfer_account(self, end_to_end_id: str) -> int | None:
        visible = {**self._committed.transfers, **self._staged.transfers}.values()
        return next((t.account_id for t in visible if t.end_to_end_id == end_to_end_id), None)

    async def counterpart_of(self, transaction_id: int) -> Counterpart | None:
        record = self._staged.transactions.get(transaction_id) or self._committed.transactions.get(
            transaction_id
        )
        return None if record is None else record.counterpart

    async def cursor(self) -> int:
        cursor = self._staged.network_cursor or self._committed.network_cursor
        return cursor[-1] if cursor else 0

    async def advance(self, cursor: int) -> None:
        self._staged.network_cursor.append(max(cursor, await self.cursor()))  # never back

    async def link_med(self, link: MedLink) -> None:
        if await self.med_link(link.refund_id) is not None:
            raise IntegrityError(f"the refund request {link.refund_id} has a case already")
        self._staged.med_links[link.refund_id] = (link, None)

    async def med_link(self, refund_id: str) -> MedLink | None:
        found = self._staged.med_links.get(refund_id) or self._committed.med_links.get(refund_id)
        return None if found is None else found[0]

    async def med_links(self) -> list[MedLink]:
        visible = {**self._committed.med_links, **self._staged.med_links}
        return [link for link, closed in visible.values() if closed is None]

    async def close_med(self, refund_id: str, at: datetime) -> None:
        link = await self.med_link(refund_id)
        if link is None:
            raise LookupError(f"no MED case was opened for the refund request {refund_id}")
        self._staged.med_links[refund_id] = (link, at)
