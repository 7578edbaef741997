"""Drives the real service and the reference model side by side, and compares them.

Each operation makes one request (or runs the workers' use cases), checks the
answer against what the model says (status, ids, amounts) and updates the model.
``check`` then compares the whole state of the example's accounts with the model
(``money_compare.differences``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import msgspec

from pixcore.accounts.accounts_service import open_account
from pixcore.charges.cob_service import sweep_expired_charges
from pixcore.group_commit.settlement import settle_in_groups
from pixcore.refunds.refund_service import process_due_refunds
from pixweb.security.certificates import create_self_signed
from tests.e2e.money_model.money_compare import differences
from tests.e2e.money_model.money_service import ModelService, advance_clock, cents, reais, token_for, valor
from tests.money_model import Case, Charge, DueTerms, Model, Receipt, Refund, Transfer
from tests.support import HASHER, Client, add_external_key, random_cpf

__all__ = ["ACCOUNTS", "Driver", "cents"]

ACCOUNTS = 3
OUTSIDE_SETTLE, OUTSIDE_REJECT = ACCOUNTS, ACCOUNTS + 1  # transfer targets beyond our accounts
TOKEN_REFRESH = timedelta(seconds=1500)  # tokens live 1800 s on the service clock
CERTIFICATE_DAYS = 36_500  # the clock moves forward across examples; certificates outlive it
PAYER_ISPB = "12345678"

_ENCODER = msgspec.json.Encoder(decimal_format="number")


async def open_client(service: ModelService) -> Client:
    """An account with one random key and a certificate valid on the service clock."""
    opened = await open_account(
        service.uow,
        HASHER,
        ispb="99999999",
        name="Model Holder",
        document=random_cpf(),
        city="RECIFE",
    )
    _, cert_pem, info = create_self_signed(
        f"model-{opened.account.id}", now=service.clock.now(), days=CERTIFICATE_DAYS
    )
    # Linked through the repository: the certificate is dated by the test's clock, which runs
    # ahead of the wall clock (the link use case's own validity check is not what this tests).
    async with service.uow() as tx:
        await tx.certificates.link(opened.account.id, info)
        await tx.commit()
    return Client(opened=opened, cert_pem=cert_pem, fingerprint=info.fingerprint)


@dataclass
class Answer:
    status: int
    body: Any


class Driver:
    """One example: three fresh accounts, two outside keys, the model, and the comparisons."""

    def __init__(self, service: ModelService, clients: list[Client], outside: list[tuple[str, str]]) -> None:
        self.service = service
        self.clients = clients
        self.outside = outside  # (key, document) of the settle key, then of the reject key
        self.ids = [client.account_id for client in clients]
        self.tokens: list[tuple[dict[str, str], datetime] | None] = [None] * len(clients)
        self.model = Model.start(
            service.clock.now(), len(clients), timedelta(seconds=service.settings.norm_delay_seconds)
        )

    @classmethod
    async def start(cls, service: ModelService) -> Driver:
        clients = [await open_client(service) for _ in range(ACCOUNTS)]
        auth = await token_for(service, clients[0])
        outside = [
            await add_external_key(service.http, auth, behavior=behavior, ispb=PAYER_ISPB)
            for behavior in ("settle", "reject")
        ]
        return cls(service, clients, outside)

    # --- requests ----------------------------------------------------------------------------

    async def auth(self, account: int) -> dict[str, str]:
        now = self.service.clock.now()
        token = self.tokens[account]
        if token is None or now - token[1] >= TOKEN_REFRESH:
            token = (await token_for(self.service, self.clients[account]), now)
            self.tokens[account] = token
        return token[0]

    async def call(
        self,
        account: int,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        all_headers = await self.auth(account) | (headers or {})
        content = None
        if body is not None:
            content = _ENCODER.encode(body)
            all_headers["Content-Type"] = "application/json"
        response = await self.service.http.request(method, path, content=content, headers=all_headers)
        parsed = json.loads(response.text, parse_float=Decimal) if response.content else None
        if response.status_code >= 500:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text}")
        return Answer(response.status_code, parsed)

    @staticmethod
    def expect(answer: Answer, status: int, what: str) -> None:
        assert answer.status == status, f"{what}: the service answered {answer.status} {answer.body}"
        if status >= 400:
            assert set(answer.body) >= {"statusCode", "message", "error"}, answer.body

    def _payer(self) -> dict[str, str]:
        return {"name": "Pagador Externo", "document": random_cpf(), "ispb": PAYER_ISPB}

    # --- operations --------------------------------------------------------------------------

    async def receive(self, account: int, amount: int) -> None:
        key = self.clients[account].opened.keys[0].value
        body = {"pixKey": key, "amount": reais(amount), "payer": self._payer()}
        answer = await self.call(account, "POST", "/sandbox/payments", body)
        self.expect(answer, 201, "a payment from outside")
        self.model.receive(account, amount).e2e = answer.body["endToEndId"]

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

    async def charge(self, account: int, amount: int, expiration: int, *, cash_in: bool) -> None:
        if cash_in:
            body: dict[str, Any] = {
                "transaction": {
                    "value": reais(amount),
                    "description": "Pedido",
                    "externalId": uuid.uuid4().hex,
                    "expirationTime": expiration,
                },
                "payer": {"fullName": "Pagador Externo", "document": random_cpf()},
            }
            answer = await self.call(account, "POST", "/api/pix/cash-in", body)
            self.expect(answer, 201, "a cash-in")
            code = answer.body["pixCode"]
        else:
            cob = {"calendario": {"expiracao": expiration}, "valor": {"original": valor(amount)}}
            answer = await self.call(account, "PUT", f"/cob/{uuid.uuid4().hex}", cob)
            self.expect(answer, 201, "a charge")
            code = answer.body["pixCopiaECola"]
        created = self.model.charge(account, amount, expiration, cash_in=cash_in)
        created.code, created.location_id = code, _location_id(code)

    async def due_charge(self, account: int, terms: DueTerms) -> None:
        body = {
            "calendario": {
                "dataDeVencimento": terms.due_date.isoformat(),
                "validadeAposVencimento": terms.days_after,
            },
            "devedor": {"cpf": random_cpf(), "nome": "Devedor"},
            "valor": {"original": valor(terms.original)},
        }
        if terms.fine:
            body["valor"]["multa"] = {"modalidade": 1, "valorPerc": valor(terms.fine)}
        if terms.interest:
            body["valor"]["juros"] = {"modalidade": 1, "valorPerc": valor(terms.interest)}
        answer = await self.call(account, "PUT", f"/cobv/{uuid.uuid4().hex}", body)
        self.expect(answer, 201, "a due-date charge")
        created = self.model.due_charge(account, terms)
        created.code = answer.body["pixCopiaECola"]
        created.location_id = _location_id(created.code)

    async def pay(self, charge: Charge) -> None:
        answer = await self.call(charge.account, "POST", "/sandbox/payments", {"pixCopiaECola": charge.code})
        expected = self.model.pay(charge)
        if isinstance(expected, int):
            self.expect(answer, expected, "a payment of a charge that is not ATIVA")
            return
        self.expect(answer, 201, "a payment of a charge")
        expected.e2e = answer.body["endToEndId"]

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

    async def outside_refund(self, transfer: Transfer, amount: int) -> None:
        body = {"endToEndId": transfer.e2e, "amount": reais(amount)}
        answer = await self.call(transfer.sender, "POST", "/sandbox/refunds", body)
        self.expect(answer, self.model.outside_refund(transfer, amount), "a refund from the receiver")

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

    async def advance(self, seconds: int) -> None:
        await advance_clock(self.service, seconds)
        self.model.advance(seconds)
        assert self.service.clock.now() == self.model.now

    async def run_workers(self) -> None:
        """A round of the settlement loop, by its use cases, until nothing is left to do. Transfers
        settle in groups of ``PIX_TRANSFER_BATCH_SIZE`` as the app's loop settles them."""
        uow, clock, size = self.service.uow, self.service.clock, self.service.settings.transfer_batch_size
        while await settle_in_groups(uow, clock, size=size):
            pass
        while await process_due_refunds(uow, clock):
            pass
        await sweep_expired_charges(uow, clock)
        self.model.run_workers()

    # --- the comparison ----------------------------------------------------------------------

    async def check(self) -> None:
        found = await differences(self)
        assert not found, "the service and the model differ:\n" + "\n".join(found)


def _location_id(code: str) -> str:
    from pixcore import brcode

    location = brcode.decode(code).location
    assert location is not None, code
    return location.rsplit("/", 1)[1]
