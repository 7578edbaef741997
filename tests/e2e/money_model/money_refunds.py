"""The driver's refunds of receipts (asked for, asked for again) and MED cases (opened, decided)."""

from __future__ import annotations

import uuid

from tests.e2e.money_model.money_requests import DriverBase
from tests.e2e.money_model.money_service import cents, valor
from tests.money_model import Case, Receipt, Refund

__all__ = ["Refunds"]


class Refunds(DriverBase):
    """Refunds and MED cases."""

    async def refund(self, receipt: Receipt, amount: int) -> None:
        refund_id = uuid.uuid4().hex
        path = f"/pix/{receipt.e2e}/devolucao/{refund_id}"
        answer = await self.call(receipt.account, "PUT", path, {"valor": valor(amount)})
        expected = self.model.refund(receipt, refund_id, amount)
        if isinstance(expected, int):
            self.expect(answer, expected, "a refund refused")
            return
        self.expect(answer, 201, "a refund")
        assert (answer.body["id"], answer.body["status"]) == (refund_id, "EM_PROCESSAMENTO")
        assert answer.body["valor"] == valor(amount)

    async def repeat_refund(self, refund: Refund, *, same: bool) -> None:
        """The same refund id again: the same body answers the refund (200), another is 409."""
        amount = refund.amount if same else refund.amount + 1
        path = f"/pix/{refund.receipt.e2e}/devolucao/{refund.refund_id}"
        answer = await self.call(refund.receipt.account, "PUT", path, {"valor": valor(amount)})
        if not same:
            self.expect(answer, 409, "a refund id reused with another body")
            return
        self.expect(answer, 200, "a refund asked for again")
        assert answer.body["status"] == refund.status

    async def open_case(self, receipt: Receipt, reason: str) -> None:
        body = {"endToEndId": receipt.e2e, "reason": reason}
        answer = await self.call(receipt.account, "POST", "/sandbox/med", body)
        expected = self.model.open_case(receipt)
        if isinstance(expected, int):
            self.expect(answer, expected, "a MED refused")
            return
        self.expect(answer, 201, "a MED")
        assert (cents(answer.body["amount"]), cents(answer.body["blocked"])) == (
            expected.amount,
            expected.blocked,
        ), answer.body
        expected.id = answer.body["id"]

    async def decide_case(self, case: Case, *, accept: bool) -> None:
        path = f"/sandbox/med/{case.id}/{'accept' if accept else 'reject'}"
        answer = await self.call(case.receipt.account, "POST", path)
        expected = self.model.accept(case) if accept else self.model.reject(case)
        if isinstance(expected, int):
            self.expect(answer, expected, "a MED decided")
            return
        self.expect(answer, 200, "a MED accepted")
        assert answer.body["refund"]["id"] == expected.refund_id
        assert answer.body["refund"]["status"] == expected.status
