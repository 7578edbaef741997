"""The SPI's test helpers: payments, answers and returns as participants send them, their signed
outcomes, a participant's polled messages, and the settlement accounts' balances."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import asyncpg
import httpx

from pixcore.identifiers import new_end_to_end_id, new_return_id
from pixnet.settlement.spi import fund
from pixwire import xml
from pixwire.spi.documents import document, read, read_batch
from pixwire.spi.model import (
    AccountType,
    Party,
    Payment,
    PaymentReturn,
    Reason,
    ReturnReason,
    Status,
    StatusReport,
    new_message_id,
)
from tests.integration.network.support import BANK_A, BANK_B, Network, answer, client, signed
from tests.support import random_cpf


def party(ispb: str) -> Party:
    return Party(ispb, "0001", "12345", AccountType.CACC, random_cpf(), "Maria Silva")


def at_milliseconds() -> datetime:
    """Now, to the millisecond: what a message's time keeps."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def payment(amount: int, payer: str = BANK_A, payee: str = BANK_B, key: str | None = None) -> Payment:
    now = at_milliseconds()
    return Payment(
        message_id=new_message_id(payer),
        end_to_end_id=new_end_to_end_id(payer, now),
        amount=amount,
        debtor=party(payer),
        creditor=party(payee),
        created_at=now,
        key=key,
        remittance="almoço",
    )


def answer_of(paid: Payment, status: Status, reason: Reason | None = None) -> StatusReport:
    return StatusReport(
        new_message_id(paid.creditor.ispb), paid.end_to_end_id, status, datetime.now(UTC), reason
    )


def returning(paid: Payment, amount: int, sender: str | None = None) -> PaymentReturn:
    sender = sender or paid.creditor.ispb
    now = datetime.now(UTC)
    return PaymentReturn(
        new_message_id(sender), new_return_id(sender, now), paid.end_to_end_id, amount, ReturnReason.MD06, now
    )


async def send(network: Network, who: str, message: Payment | StatusReport | PaymentReturn) -> httpx.Response:
    body = signed(network, who, xml.serialize(document(message)))
    async with client(network, who) as http:
        return await http.post("/spi/v1/messages", content=body)


def report(network: Network, response: httpx.Response) -> StatusReport:
    assert response.status_code in {200, 201}, response.text
    found = read(answer(network, response))
    assert isinstance(found, StatusReport)
    return found


class Inbox:
    """A participant's messages, polled from where it last stopped."""

    def __init__(self, network: Network, who: str) -> None:
        self.network, self.who, self.cursor = network, who, 0

    async def take(self, wait: float = 0) -> list[Payment | StatusReport | PaymentReturn]:
        async with client(self.network, self.who) as http:
            polled = await http.get("/spi/v1/messages", params={"after": self.cursor, "wait": wait})
        assert polled.status_code == 200, polled.text
        found, self.cursor = read_batch(answer(self.network, polled))
        return [message for _, message in found]

    async def drain(self) -> None:
        while await self.take():
            pass


async def balances(connection: asyncpg.Connection) -> dict[str, int]:
    rows = await connection.fetch("SELECT ispb, balance FROM settlement_accounts")
    return {row["ispb"]: row["balance"] for row in rows}


async def funded(connection: asyncpg.Connection, ispb: str, cents: int) -> None:
    await fund(connection, ispb, cents, f"test-{time.monotonic_ns()}", datetime.now(UTC))
