"""What the tests of Pix Automático over HTTP share: an account on the standard's face, its
recurrences made through the API, and the payer's bank's step (the settlement loop's)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from pixcore.recurrences import run_recurring_charges
from pixcore.recurrences.closing import today_of
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, bearer, new_client, random_cpf

STD = "/bcb/v2"
PROBLEM = "application/problem+json"
TYPE = "https://pix.bcb.gov.br/api/v2/error/"
PAYER_ISPB = "12345678"


@dataclass
class Receiver:
    """An account and its bearer header, with what the tests ask of the API. ``payer`` is a payer
    of its own at the sandbox's payer's bank: the bank's step debits every charge due in the
    database, and a payer shared with other tests' charges would see its balance drained by them."""

    api: Api
    client: Client
    auth: dict[str, str]
    uow: UnitOfWorkFactory
    payer: dict[str, str]

    @property
    def http(self) -> httpx.AsyncClient:
        return self.api.client

    def today(self) -> date:
        return today_of(self.api.clock.now())

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await self.http.request(method, STD + path, headers=self.auth, **kwargs)

    async def recurrence(self, **changes: Any) -> dict[str, Any]:
        """A new CRIADA recurrence (monthly, 35.00, from today), ``changes`` merged into the body."""
        response = await self.call(
            "POST", "/rec", json=rec_body(self.today(), debtor=self.payer["document"]) | changes
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    async def located_recurrence(self, **changes: Any) -> dict[str, Any]:
        """A recurrence at a new location (it has a QR code of its own)."""
        loc = await self.call("POST", "/locrec")
        assert loc.status_code == 201, loc.text
        return await self.recurrence(loc=loc.json()["id"], **changes)

    async def code_of(self, rec_id: str, txid: str | None = None) -> dict[str, str]:
        params = {"txid": txid} if txid else {}
        read = await self.call("GET", f"/rec/{rec_id}", params=params)
        assert read.status_code == 200, read.text
        qr: dict[str, str] = read.json()["dadosQR"]
        return qr

    async def authorize(
        self, rec_id: str, txid: str | None = None, payer: dict[str, str] | None = None
    ) -> httpx.Response:
        """The sandbox's payer reads the recurrence's code (a charge's composed with it when
        ``txid``) and authorizes it."""
        qr = await self.code_of(rec_id, txid)
        return await self.http.post(
            "/sandbox/rec/authorize",
            json={"pixCopiaECola": qr["pixCopiaECola"], "payer": payer or self.payer},
            headers=self.auth,
        )

    async def set_balance(self, balance: float, payer: dict[str, str] | None = None) -> None:
        payer = payer or self.payer
        response = await self.http.put(
            f"/sandbox/payers/{payer['ispb']}/{payer['document']}",
            json={"balance": balance},
            headers=self.auth,
        )
        assert response.status_code == 200, response.text

    async def charge(self, rec_id: str, due: date, amount: str = "35.00", **changes: Any) -> dict[str, Any]:
        body = cobr_body(rec_id, due, self.client.opened.account.number, amount) | changes
        response = await self.call("POST", "/cobr", json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    async def bank_day(self, days: int = 0) -> int:
        """The clock moved ``days`` forward (a new token: the old one expired), then the payer's
        bank's step (the worker's)."""
        if days:
            self.api.clock.advance(days * 86_400)
            self.auth = await bearer(self.http, self.client)
        return await run_recurring_charges(self.uow, self.api.clock)


def rec_body(
    start: date, *, debtor: str = "11144477735", policy: str = "NAO_PERMITE", amount: str = "35.00"
) -> dict[str, Any]:
    return {
        "vinculo": {
            "contrato": "63100862",
            "devedor": {"cpf": debtor, "nome": "Fulano de Tal"},
            "objeto": "Streaming",
        },
        "calendario": {"dataInicial": start.isoformat(), "periodicidade": "MENSAL"},
        "valor": {"valorRec": amount},
        "politicaRetentativa": policy,
    }


def cobr_body(rec_id: str, due: date, account: str, amount: str) -> dict[str, Any]:
    return {
        "idRec": rec_id,
        "calendario": {"dataDeVencimento": due.isoformat()},
        "valor": {"original": amount},
        "ajusteDiaUtil": False,
        "recebedor": {"conta": account, "tipoConta": "CORRENTE"},
    }


def problem(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["type"] == TYPE + kind, body
    return body


def later(start: date, days: int) -> date:
    return start + timedelta(days=days)


async def new_receiver(api: Api, uow: UnitOfWorkFactory, name: str | None = None) -> Receiver:
    """A new account, signed in, with a payer of its own."""
    client = await new_client(uow, name=name or "Test Holder", company=True)
    payer = {"document": random_cpf(), "ispb": PAYER_ISPB}
    return Receiver(api, client, await bearer(api.client, client), uow, payer)


@pytest.fixture
async def receiver(api: Api, pg_uow: UnitOfWorkFactory) -> Receiver:
    return await new_receiver(api, pg_uow)


async def available(receiver: Receiver) -> int:
    """The receiver's available balance, in centavos."""
    from pixcore.accounts.accounts_service import get_balance

    return (await get_balance(receiver.uow, receiver.client.account_id)).available
