"""The driver's money coming in: payments from outside, charges (``cob``, ``cobv``) and cash-in, paid."""

from __future__ import annotations

import uuid
from typing import Any

from tests.e2e.money_model.money_requests import PAYER_ISPB, DriverBase
from tests.e2e.money_model.money_service import reais, valor
from tests.money_model import Charge, DueTerms
from tests.support import random_cpf

__all__ = ["Charges"]


class Charges(DriverBase):
    """Receipts from outside, and the charges that ask for them."""

    def _payer(self) -> dict[str, str]:
        return {"name": "Pagador Externo", "document": random_cpf(), "ispb": PAYER_ISPB}

    async def receive(self, account: int, amount: int) -> None:
        key = self.clients[account].opened.keys[0].value
        body = {"pixKey": key, "amount": reais(amount), "payer": self._payer()}
        answer = await self.call(account, "POST", "/sandbox/payments", body)
        self.expect(answer, 201, "a payment from outside")
        self.model.receive(account, amount).e2e = answer.body["endToEndId"]

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


def _location_id(code: str) -> str:
    from pixcore import brcode

    location = brcode.decode(code).location
    assert location is not None, code
    return location.rsplit("/", 1)[1]
