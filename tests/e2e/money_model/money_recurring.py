"""The driver's Pix Automático: recurrences approved by the example's payer, their charges, the
payer's balance, and the receipts of the charges paid."""

from __future__ import annotations

import uuid
from datetime import timedelta

from tests.e2e.money_model.money_requests import STD, DriverBase
from tests.e2e.money_model.money_service import cents, reais, valor
from tests.money_model import payer_day

__all__ = ["Recurring"]


class Recurring(DriverBase):
    """Recurring charges, on the standard's face, and the sandbox payer's bank."""

    async def recurring_charge(self, account: int, amount: int, ahead: int) -> None:
        """A recurrence of ``amount`` (monthly, from the payer's today, no retries) at a location of
        its own, approved by the example's payer, and its charge due ``ahead`` days later."""
        today = payer_day(self.model.now)
        loc = await self.call(account, "POST", f"{STD}/locrec")
        self.expect(loc, 201, "a recurrence's location")
        rec = {
            "loc": loc.body["id"],
            "vinculo": {
                "contrato": uuid.uuid4().hex[:8],
                "devedor": {"cpf": self.payer["document"], "nome": "Pagador Recorrente"},
                "objeto": "Assinatura",
            },
            "calendario": {"dataInicial": today.isoformat(), "periodicidade": "MENSAL"},
            "valor": {"valorRec": valor(amount)},
            "politicaRetentativa": "NAO_PERMITE",
        }
        created = await self.call(account, "POST", f"{STD}/rec", rec)
        self.expect(created, 201, "a recurrence")
        rec_id = created.body["idRec"]
        read = await self.call(account, "GET", f"{STD}/rec/{rec_id}")
        self.expect(read, 200, "a recurrence read")
        code = read.body["dadosQR"]["pixCopiaECola"]
        approved = await self.call(
            account, "POST", "/sandbox/rec/authorize", {"pixCopiaECola": code, "payer": self.payer}
        )
        self.expect(approved, 200, "a recurrence approved by its payer")
        due = today + timedelta(days=ahead)
        cobr = {
            "idRec": rec_id,
            "calendario": {"dataDeVencimento": due.isoformat()},
            "valor": {"original": valor(amount)},
            "ajusteDiaUtil": False,
            "recebedor": {"conta": self.clients[account].opened.account.number, "tipoConta": "CORRENTE"},
        }
        charged = await self.call(account, "POST", f"{STD}/cobr", cobr)
        self.expect(charged, 201, "a recurring charge")
        assert charged.body["status"] == "CRIADA", charged.body
        self.model.recurring_charge(account, amount, due).txid = charged.body["txid"]

    async def fund_payer(self, amount: int) -> None:
        path = f"/sandbox/payers/{self.payer['ispb']}/{self.payer['document']}"
        answer = await self.call(0, "PUT", path, {"balance": reais(amount)})
        self.expect(answer, 200, "the payer's balance set")
        assert cents(answer.body["balance"]) == amount
        self.model.fund_payer(amount)

    async def payer_balance(self) -> int:
        """The example's payer's balance at their bank, as the sandbox tells it, in centavos."""
        path = f"/sandbox/payers/{self.payer['ispb']}/{self.payer['document']}"
        answer = await self.call(0, "GET", path)
        self.expect(answer, 200, "the payer's balance")
        return cents(answer.body["balance"])

    async def _learn_recurring_receipts(self) -> None:
        """The end-to-end id of each receipt of a recurring charge paid in the last round (its
        paid attempt's), so that it can be refunded or disputed as any receipt."""
        for charge in self.model.recurring:
            if charge.receipt is None or charge.receipt.e2e:
                continue
            read = await self.call(charge.account, "GET", f"{STD}/cobr/{charge.txid}")
            self.expect(read, 200, "a recurring charge read")
            (pix,) = read.body["pix"]
            assert cents(pix["valor"]) == charge.amount, pix
            charge.receipt.e2e = pix["endToEndId"]
