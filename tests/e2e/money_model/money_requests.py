"""The driver's footing: the example's accounts and model, and its requests to the service, each
answer checked against the status the model says."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import msgspec

from pixcore.accounts.accounts_service import open_account
from pixweb.security.certificates import create_self_signed
from tests.e2e.money_model.money_service import ModelService, token_for
from tests.money_model import Model
from tests.support import HASHER, Client, random_cnpj, random_cpf

__all__ = ["ACCOUNTS", "OUTSIDE_REJECT", "PAYER_ISPB", "STD", "Answer", "DriverBase", "open_client"]

ACCOUNTS = 3
OUTSIDE_SETTLE, OUTSIDE_REJECT = ACCOUNTS, ACCOUNTS + 1  # transfer targets beyond our accounts
TOKEN_REFRESH = timedelta(seconds=1500)  # tokens live 1800 s on the service clock
CERTIFICATE_DAYS = 36_500  # the clock moves forward across examples; certificates outlive it
PAYER_ISPB = "12345678"
STD = "/bcb/v2"  # Pix Automático, on the standard's face

_ENCODER = msgspec.json.Encoder(decimal_format="number")


async def open_client(service: ModelService) -> Client:
    """A company's account (Pix Automático receives only for one) with one random key and a
    certificate valid on the service clock."""
    opened = await open_account(
        service.uow,
        HASHER,
        ispb="99999999",
        name="Model Holder",
        document=random_cnpj(),
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


class DriverBase:
    """One example: three fresh accounts, two outside keys, the model; its requests."""

    def __init__(self, service: ModelService, clients: list[Client], outside: list[tuple[str, str]]) -> None:
        self.service = service
        self.clients = clients
        self.outside = outside  # (key, document) of the settle key, then of the reject key
        self.ids = [client.account_id for client in clients]
        self.tokens: list[tuple[dict[str, str], datetime] | None] = [None] * len(clients)
        self.payer = {"document": random_cpf(), "ispb": PAYER_ISPB}  # approves every recurrence
        self.model = Model.start(
            service.clock.now(), len(clients), timedelta(seconds=service.settings.norm_delay_seconds)
        )

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
