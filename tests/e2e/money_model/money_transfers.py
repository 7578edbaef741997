"""The driver's transfers: made, in bursts of one idempotency key, replayed; refunds from
outside receivers."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from tests.e2e.money_model.money_requests import ACCOUNTS, OUTSIDE_REJECT, DriverBase
from tests.e2e.money_model.money_service import cents, reais
from tests.money_model import Transfer

__all__ = ["Transfers"]


class Transfers(DriverBase):
    """Transfers between our accounts and to outside keys."""

    def _transfer_body(self, target: int, amount: int, *, high: bool, expiration: int) -> dict[str, Any]:
        if target < ACCOUNTS:
            key = self.clients[target].opened.keys[0].value
            document = self.clients[target].opened.account.document
        else:
            key, document = self.outside[target - ACCOUNTS]
        body: dict[str, Any] = {
            "pixKey": key,
            "payment": {"currency": "BRL", "amount": reais(amount)},
            "priority": "HIGH" if high else "NORM",
            "expiration": expiration,
        }
        if high:
            body["creditorDocument"] = document
        return body

    async def transfer(self, sender: int, target: int, amount: int, *, high: bool, expiration: int) -> None:
        body = self._transfer_body(target, amount, high=high, expiration=expiration)
        key = str(uuid.uuid4())
        answer = await self.call(sender, "POST", "/dict/pix", body, {"x-idempotency-key": key})
        receiver = target if target < ACCOUNTS else None
        behavior = "reject" if target == OUTSIDE_REJECT else "settle"
        expected = self.model.transfer(sender, receiver, behavior, amount, high=high, expiration=expiration)
        if isinstance(expected, int):
            self.expect(answer, expected, "a transfer refused")
            return
        self.expect(answer, 201, "a transfer")
        assert answer.body["type"] == "PENDING"
        assert cents(answer.body["payment"]["amount"]) == amount
        expected.id, expected.e2e = answer.body["id"], answer.body["endToEndId"]
        expected.request = (key, body)

    async def transfer_burst(
        self, sender: int, target: int, amount: int, copies: int, *, high: bool, expiration: int
    ) -> None:
        """``copies`` requests of one idempotency key at once (a client retrying before its first
        answer came): every one gets the answer of the one that wrote (the same transfer, or the same
        refusal), and money moves once, as for one request."""
        body = self._transfer_body(target, amount, high=high, expiration=expiration)
        key = str(uuid.uuid4())
        await self.auth(sender)  # one token for all of them
        answers = await asyncio.gather(
            *(self.call(sender, "POST", "/dict/pix", body, {"x-idempotency-key": key}) for _ in range(copies))
        )
        receiver = target if target < ACCOUNTS else None
        behavior = "reject" if target == OUTSIDE_REJECT else "settle"
        expected = self.model.transfer(sender, receiver, behavior, amount, high=high, expiration=expiration)
        if isinstance(expected, int):
            for answer in answers:
                self.expect(answer, expected, "a transfer refused (a burst of one key)")
            assert len({json.dumps(a.body, sort_keys=True, default=str) for a in answers}) == 1, answers
            return
        for answer in answers:
            self.expect(answer, 201, "a transfer (a burst of one key)")
        assert len({(a.body["id"], a.body["endToEndId"]) for a in answers}) == 1, answers
        assert cents(answers[0].body["payment"]["amount"]) == amount
        expected.id, expected.e2e = answers[0].body["id"], answers[0].body["endToEndId"]
        expected.request = (key, body)

    async def replay_transfer(self, transfer: Transfer, *, same: bool) -> None:
        """The same idempotency key: with the same body, the same transfer and nothing moves;
        with another body, 422."""
        key, body = transfer.request
        if not same:
            body = body | {"payment": {"currency": "BRL", "amount": reais(transfer.amount + 1)}}
        answer = await self.call(transfer.sender, "POST", "/dict/pix", body, {"x-idempotency-key": key})
        if not same:
            self.expect(answer, 422, "a reused idempotency key")
            return
        self.expect(answer, 201, "a replayed transfer")
        assert (answer.body["id"], answer.body["endToEndId"]) == (transfer.id, transfer.e2e)

    async def outside_refund(self, transfer: Transfer, amount: int) -> None:
        body = {"endToEndId": transfer.e2e, "amount": reais(amount)}
        answer = await self.call(transfer.sender, "POST", "/sandbox/refunds", body)
        self.expect(answer, self.model.outside_refund(transfer, amount), "a refund from the receiver")
