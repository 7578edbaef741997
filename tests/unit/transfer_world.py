"""A small world for the transfer use-case tests: accounts, keys, a directory, money."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from pixcore.accounts.rules import Account, Balance, Counterpart
from pixcore.clock import ManualClock
from pixcore.keys import parse_pix_key
from pixcore.ledger import Bucket
from pixcore.testing import (
    InMemoryKeyDirectory,
    InMemoryStore,
    PlainHasher,
    external_total,
    ledger_check,
)
from pixcore.transfers.receipt_service import receive_payment
from pixcore.transfers.rules import DirectoryEntry, TransferRequest
from pixcore.transfers.transfer_service import CreatedTransfer, create_transfer, settle_due
from pixinfra.event_payloads import payload
from tests.unit.usecase_helpers import HOLDER_CNPJ, ISPB, OTHER_CNPJ, OTHER_CPF, open_test_account

NORM_DELAY = timedelta(seconds=30)
FUNDS = 100_00
SHOP = DirectoryEntry(
    key=parse_pix_key("loja@example.com"),
    ispb="12345678",
    name="Loja Exemplo",
    document=HOLDER_CNPJ,
    bank_name="Banco Exemplo",
    branch="0001",
    account_number="123456",
)
CLOSED = DirectoryEntry(
    key=parse_pix_key("fechada@example.com"),
    ispb="87654321",
    name="Conta Bloqueada",
    document=OTHER_CNPJ,
    bank_name="Outro Banco",
    branch="0002",
    account_number="654321",
    behavior="reject",
)
PAYER = Counterpart("Pagador de Fora", OTHER_CNPJ, "11223344", "Banco de Fora", "0003", "777")


@dataclass
class World:
    """A service with two accounts: Maria (the sender, funded) and João; and a DICT with two outside keys."""

    store: InMemoryStore
    clock: ManualClock
    directory: InMemoryKeyDirectory
    sender: Account
    receiver: Account

    async def send(
        self, key: uuid.UUID | None = None, *, account: Account | None = None, **changes: Any
    ) -> CreatedTransfer:
        return await create_transfer(
            self.store.unit_of_work,
            self.directory,
            self.clock,
            account_id=(account or self.sender).id,
            idempotency_key=key or uuid.uuid4(),
            request=transfer_request(**changes),
            ispb=ISPB,
            norm_delay=NORM_DELAY,
        )

    async def settle_due(self, *, limit: int = 100) -> int:
        return await settle_due(self.store.unit_of_work, self.clock, limit=limit)

    def balance(self, account: Account) -> Balance:
        return self.store.balances[account.id]

    def events(self, account: Account) -> list[dict[str, Any]]:
        return [payload(item.event) for item in self.store.outbox if item.account_id == account.id]


def transfer_request(**changes: Any) -> TransferRequest:
    arguments: dict[str, Any] = {
        "pix_key": SHOP.key.value,
        "amount": Decimal("25.00"),
        "currency": "BRL",
        "priority": None,
        "expiration": None,
        "creditor_document": None,
        "description": "rent",
        "ispb_deny": None,
        "payment_flow": None,
    }
    return TransferRequest.parse(**{**arguments, **changes})


async def fund(world: World, key: str, amount: int = FUNDS) -> None:
    await receive_payment(
        world.store.unit_of_work, world.clock, key=parse_pix_key(key), amount=amount, payer=PAYER
    )


async def make_world(store: InMemoryStore, clock: ManualClock, hasher: PlainHasher) -> World:
    sender = await open_test_account(store, hasher, keys=("maria@example.com",))
    receiver = await open_test_account(
        store, hasher, name="João Souza", document=OTHER_CPF, keys=("joao@example.com",)
    )
    directory = InMemoryKeyDirectory(store)
    directory.add(SHOP)
    directory.add(CLOSED)
    created = World(store, clock, directory, sender.account, receiver.account)
    await fund(created, "maria@example.com")
    return created


def snapshot(store: InMemoryStore) -> tuple[object, ...]:
    return (
        store.commits,
        dict(store.transactions),
        list(store.entries),
        dict(store.idempotency),
        dict(store.transfers),
        dict(store.balances),
        list(store.outbox),
    )


def assert_books_balance(store: InMemoryStore) -> None:
    assert ledger_check(store) == []
    inside = sum(balance.available + balance.blocked for balance in store.balances.values())
    assert inside + external_total(store) == 0


def entries_of(store: InMemoryStore, transaction_id: int) -> list[tuple[str, int | None, Bucket, int]]:
    return [
        (e.posting, e.account_id, e.bucket, e.amount)
        for e in store.entries
        if e.transaction_id == transaction_id
    ]
