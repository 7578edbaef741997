"""Sending and receiving PIX on the in-memory fakes (decisions §4, §5).

Every scenario ends with the books checked: each balance is the sum of its
entries, each transaction's entries sum to zero, and the money in the service
plus what the outside world holds is still zero.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any, Self

import pytest

from pixcore.accounts import Account, Balance, Counterpart
from pixcore.clock import ManualClock
from pixcore.errors import (
    CreditorDocumentMismatch,
    DuplicatePixKey,
    IdempotencyKeyReused,
    InsufficientFunds,
    IspbDenied,
    KeyNotInDirectory,
    OwnAccountTransfer,
    PixError,
)
from pixcore.identifiers import is_end_to_end_id
from pixcore.keys import parse_pix_key
from pixcore.ledger import Bucket
from pixcore.ports import IdempotencyRecord
from pixcore.records import TransactionStatus, TransactionType
from pixcore.testing import (
    InMemoryKeyDirectory,
    InMemoryStore,
    InMemoryUnitOfWork,
    OutboxItem,
    PlainHasher,
    external_total,
    ledger_check,
)
from pixcore.transfers import DEFAULT_EXPIRATION, DirectoryEntry, TransferRequest, TransferState
from pixcore.usecases.receipts import receive_payment
from pixcore.usecases.transfers import CreatedTransfer, create_transfer, request_fingerprint, settle_due
from pixcore.usecases.transfers import settle_transfer as settle_one
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
        return [item.event for item in self.store.outbox if item.account_id == account.id]


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


@pytest.fixture
async def world(store: InMemoryStore, clock: ManualClock, hasher: PlainHasher) -> World:
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


# -- creating a transfer -----------------------------------------------------------------


async def test_creating_a_transfer_reserves_its_amount(world: World) -> None:
    store, now, key = world.store, world.clock.now(), uuid.uuid4()
    events_before = list(store.outbox)

    created = await world.send(key)

    transfer = created.transfer
    assert not created.replayed
    assert transfer.state is TransferState.PENDING
    assert (transfer.account_id, transfer.amount, transfer.idempotency_key) == (world.sender.id, 2500, key)
    assert (transfer.creditor_name, transfer.creditor_document, transfer.creditor_ispb) == (
        SHOP.name,
        SHOP.document,
        SHOP.ispb,
    )
    assert transfer.receiver_account_id is None
    assert transfer.settle_after == now + NORM_DELAY
    assert transfer.deadline == now + timedelta(seconds=DEFAULT_EXPIRATION)
    assert world.balance(world.sender) == Balance(available=FUNDS - 2500, blocked=2500)

    record = store.transactions[transfer.transaction_id]
    assert (record.type, record.status, record.amount) == (
        TransactionType.WITHDRAW,
        TransactionStatus.PENDING,
        2500,
    )
    assert record.external_id == str(key)
    assert record.end_to_end_id == transfer.end_to_end_id
    assert record.end_to_end_id is not None
    assert is_end_to_end_id(record.end_to_end_id)
    assert record.end_to_end_id.startswith("E" + ISPB)
    assert record.counterpart == Counterpart(
        SHOP.name, SHOP.document, SHOP.ispb, SHOP.bank_name, SHOP.branch, SHOP.account_number
    )
    assert store.idempotency[(world.sender.id, key)] == IdempotencyRecord(
        request_fingerprint(transfer_request()), transfer.transaction_id
    )
    assert entries_of(store, transfer.transaction_id) == [
        ("reserve", world.sender.id, Bucket.AVAILABLE, -2500),
        ("reserve", world.sender.id, Bucket.BLOCKED, 2500),
    ]
    assert store.outbox == events_before  # nothing to tell until it settles or fails
    assert_books_balance(store)


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"pix_key": "nobody@example.com"}, KeyNotInDirectory),
        ({"ispb_deny": ["11111111", SHOP.ispb]}, IspbDenied),
        ({"creditor_document": OTHER_CPF}, CreditorDocumentMismatch),
        ({"priority": "HIGH", "creditor_document": OTHER_CPF}, CreditorDocumentMismatch),
        ({"pix_key": "maria@example.com"}, OwnAccountTransfer),
        ({"amount": Decimal("100.01")}, InsufficientFunds),
    ],
)
async def test_a_refused_transfer_leaves_nothing_behind(
    world: World, changes: dict[str, Any], error: type[PixError]
) -> None:
    before = snapshot(world.store)

    with pytest.raises(error):
        await world.send(**changes)

    assert snapshot(world.store) == before
    assert world.balance(world.sender) == Balance(FUNDS, 0)
    assert_books_balance(world.store)


async def test_a_refused_transfer_does_not_burn_its_idempotency_key(world: World) -> None:
    key = uuid.uuid4()
    with pytest.raises(InsufficientFunds):
        await world.send(key, amount=Decimal("100.01"))

    created = await world.send(key, amount=Decimal("100.00"))

    assert not created.replayed
    assert world.balance(world.sender) == Balance(0, FUNDS)
    assert_books_balance(world.store)


async def test_the_same_key_and_request_replays_the_transfer_and_moves_nothing(world: World) -> None:
    key = uuid.uuid4()
    first = await world.send(key)
    before = snapshot(world.store)
    del world.directory.entries[SHOP.key.value]  # a replay does not ask the directory again

    again = await world.send(key)

    assert again.replayed
    assert again.transfer == first.transfer
    assert snapshot(world.store) == before
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 2500)
    assert_books_balance(world.store)


async def test_the_same_key_with_another_request_is_refused(world: World) -> None:
    key = uuid.uuid4()
    await world.send(key)
    before = snapshot(world.store)

    with pytest.raises(IdempotencyKeyReused):
        await world.send(key, amount=Decimal("25.01"))
    with pytest.raises(IdempotencyKeyReused):
        await world.send(key, description="another")

    assert snapshot(world.store) == before
    assert_books_balance(world.store)


async def test_idempotency_keys_are_per_account(world: World) -> None:
    await fund(world, "joao@example.com")
    key = uuid.uuid4()
    mine = await world.send(key)

    theirs = await world.send(key, account=world.receiver)

    assert not theirs.replayed
    assert theirs.transfer.transaction_id != mine.transfer.transaction_id
    assert world.balance(world.receiver) == Balance(FUNDS - 2500, 2500)
    assert_books_balance(world.store)


class _Interrupted(InMemoryUnitOfWork):
    """A unit of work that lets another request run just before it opens."""

    def __init__(self, store: InMemoryStore, before: Callable[[], Awaitable[object]]) -> None:
        super().__init__(store)
        self._before = before

    async def __aenter__(self) -> Self:
        await self._before()
        return await super().__aenter__()


def _raced(
    store: InMemoryStore, competitor: Callable[[], Awaitable[object]]
) -> Callable[[], InMemoryUnitOfWork]:
    """A unit-of-work factory whose second unit (create_transfer's reserve step, after its replay
    check) opens only once ``competitor`` has run: a concurrent duplicate slipped in between."""
    calls = 0

    def factory() -> InMemoryUnitOfWork:
        nonlocal calls
        calls += 1
        return _Interrupted(store, competitor) if calls == 2 else store.unit_of_work()

    return factory


async def test_a_concurrent_duplicate_creates_one_transfer(world: World) -> None:
    key, request = uuid.uuid4(), transfer_request()
    competitor: list[CreatedTransfer] = []

    async def compete() -> None:
        competitor.append(await world.send(key))

    created = await create_transfer(
        _raced(world.store, compete),
        world.directory,
        world.clock,
        account_id=world.sender.id,
        idempotency_key=key,
        request=request,
        ispb=ISPB,
        norm_delay=NORM_DELAY,
    )

    assert created.replayed
    assert not competitor[0].replayed
    assert created.transfer == competitor[0].transfer
    assert list(world.store.transfers) == [created.transfer.transaction_id]
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 2500)
    assert_books_balance(world.store)


async def test_a_concurrent_different_request_with_the_same_key_is_refused(world: World) -> None:
    key = uuid.uuid4()

    async def compete() -> None:
        await world.send(key, amount=Decimal("1.00"))

    with pytest.raises(IdempotencyKeyReused):
        await create_transfer(
            _raced(world.store, compete),
            world.directory,
            world.clock,
            account_id=world.sender.id,
            idempotency_key=key,
            request=transfer_request(),
            ispb=ISPB,
            norm_delay=NORM_DELAY,
        )

    assert [t.amount for t in world.store.transfers.values()] == [100]
    assert world.balance(world.sender) == Balance(FUNDS - 100, 100)
    assert_books_balance(world.store)


# -- settling ----------------------------------------------------------------------------


async def test_a_high_priority_transfer_settles_at_once(world: World) -> None:
    key = uuid.uuid4()
    created = await world.send(key, priority="HIGH", creditor_document=SHOP.document)
    transfer_id = created.transfer.transaction_id

    assert await world.settle_due() == 1

    store, now = world.store, world.clock.now()
    assert store.transfers[transfer_id].state is TransferState.COMPLETED
    assert store.transfers[transfer_id].error_code is None
    assert store.finished_at[transfer_id] == now
    assert store.transactions[transfer_id].status is TransactionStatus.CONFIRMED
    assert store.transactions[transfer_id].processed_at == now
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert external_total(store) == -FUNDS + 2500  # the money left the service
    assert entries_of(store, transfer_id)[2:] == [
        ("settle_out", world.sender.id, Bucket.BLOCKED, -2500),
        ("settle_out", None, Bucket.EXTERNAL, 2500),
    ]
    event = world.events(world.sender)[-1]
    assert event["type"] == "TRANSFER"
    assert event["data"]["status"] == "LIQUIDATED"
    assert event["data"]["id"] == transfer_id
    assert event["data"]["idempotencyKey"] == str(key)
    assert event["data"]["endToEndId"] == created.transfer.end_to_end_id
    assert event["data"]["payment"] == {"amount": "25.00", "currency": "BRL"}
    assert "errorCode" not in event["data"]
    assert await world.settle_due() == 0
    assert_books_balance(store)


async def test_a_normal_transfer_settles_only_after_the_norm_delay(world: World) -> None:
    created = await world.send()
    transfer_id = created.transfer.transaction_id

    assert await world.settle_due() == 0
    world.clock.advance(NORM_DELAY.total_seconds() - 1)
    assert await world.settle_due() == 0
    assert await settle_one(world.store.unit_of_work, world.clock, transfer_id) == 0  # not due yet
    assert world.store.transfers[transfer_id].state is TransferState.PENDING
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 2500)

    world.clock.advance(1)
    assert await world.settle_due() == 1

    assert world.store.transfers[transfer_id].state is TransferState.COMPLETED
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert_books_balance(world.store)


@pytest.mark.parametrize(
    ("changes", "wait"),
    [
        ({"expiration": 10}, 10),  # expires before the normal queue would settle it
        ({"priority": "HIGH", "creditor_document": SHOP.document, "expiration": 5}, 5),  # nobody ran in time
    ],
)
async def test_a_transfer_not_settled_within_its_expiration_fails_with_ab03(
    world: World, changes: dict[str, Any], wait: int
) -> None:
    created = await world.send(**changes)
    transfer_id = created.transfer.transaction_id

    world.clock.advance(wait)
    assert await world.settle_due() == 1

    store = world.store
    assert store.transfers[transfer_id].state is TransferState.ERROR
    assert store.transfers[transfer_id].error_code == "AB03"
    assert store.transactions[transfer_id].status is TransactionStatus.ERROR
    assert world.balance(world.sender) == Balance(FUNDS, 0)  # the funds are released
    assert entries_of(store, transfer_id)[2:] == [
        ("release", world.sender.id, Bucket.BLOCKED, -2500),
        ("release", world.sender.id, Bucket.AVAILABLE, 2500),
    ]
    event = world.events(world.sender)[-1]
    assert (event["type"], event["data"]["status"], event["data"]["errorCode"]) == (
        "TRANSFER",
        "ERROR",
        "AB03",
    )
    assert_books_balance(store)


async def test_a_transfer_the_receiving_side_rejects_fails_with_ac06(world: World) -> None:
    created = await world.send(pix_key=CLOSED.key.value)
    transfer_id = created.transfer.transaction_id

    world.clock.advance(NORM_DELAY.total_seconds())
    assert await world.settle_due() == 1

    assert world.store.transfers[transfer_id].state is TransferState.ERROR
    assert world.store.transfers[transfer_id].error_code == "AC06"
    assert world.store.transactions[transfer_id].status is TransactionStatus.ERROR
    assert world.balance(world.sender) == Balance(FUNDS, 0)
    event = world.events(world.sender)[-1]
    assert (event["data"]["status"], event["data"]["errorCode"]) == ("ERROR", "AC06")
    assert event["data"]["creditorAccount"]["ispb"] == CLOSED.ispb
    assert_books_balance(world.store)


async def test_a_transfer_to_an_account_of_the_service_settles_inside(world: World) -> None:
    store, sender, receiver = world.store, world.sender, world.receiver
    created = await world.send(pix_key="joao@example.com", priority="HIGH", creditor_document=OTHER_CPF)
    transfer = created.transfer
    assert transfer.receiver_account_id == receiver.id
    outside_before = external_total(store)

    assert await world.settle_due() == 1

    assert store.transfers[transfer.transaction_id].state is TransferState.COMPLETED
    assert world.balance(sender) == Balance(FUNDS - 2500, 0)
    assert world.balance(receiver) == Balance(2500, 0)
    assert external_total(store) == outside_before  # no money left the service
    assert entries_of(store, transfer.transaction_id)[2:] == [
        ("settle_in", sender.id, Bucket.BLOCKED, -2500),
        ("settle_in", receiver.id, Bucket.AVAILABLE, 2500),
    ]

    (receipt_id,) = [
        i
        for i, t in store.transactions.items()
        if t.account_id == receiver.id and t.type is TransactionType.PAYMENT
    ]
    receipt = store.transactions[receipt_id]
    assert (receipt.status, receipt.amount) == (TransactionStatus.CONFIRMED, 2500)
    assert receipt.end_to_end_id == transfer.end_to_end_id
    assert receipt.counterpart == Counterpart(
        sender.name, sender.document, sender.ispb, "", sender.branch, sender.number
    )

    (received,) = world.events(receiver)
    assert received["type"] == "RECEIVE"
    assert received["data"]["id"] == receipt_id
    assert received["data"]["payment"] == {"amount": "25.00", "currency": "BRL"}
    assert received["data"]["debtorAccount"] == {"name": sender.name, "document": "***.982.247-**"}
    sent = world.events(sender)[-1]
    assert (sent["type"], sent["data"]["status"], sent["data"]["id"]) == (
        "TRANSFER",
        "LIQUIDATED",
        transfer.transaction_id,
    )
    assert_books_balance(store)


async def test_settling_the_same_transfer_twice_finishes_it_once(world: World) -> None:
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    transfer_id = created.transfer.transaction_id
    uow, clock = world.store.unit_of_work, world.clock

    assert await settle_one(uow, clock, transfer_id) == 1
    assert await settle_one(uow, clock, transfer_id) == 0
    assert await world.settle_due() == 0

    assert [e[0] for e in entries_of(world.store, transfer_id)] == ["reserve"] * 2 + ["settle_out"] * 2
    transfers_told = [e for e in world.events(world.sender) if e["type"] == "TRANSFER"]
    assert len(transfers_told) == 1
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert_books_balance(world.store)


async def test_a_transfer_another_worker_holds_is_skipped(world: World) -> None:
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    transfer_id = created.transfer.transaction_id

    async with world.store.unit_of_work() as other_worker:
        assert await other_worker.transfers.lock_pending(transfer_id) == created.transfer
        assert await settle_one(world.store.unit_of_work, world.clock, transfer_id) == 0
        assert await world.settle_due() == 0
        assert world.store.transfers[transfer_id].state is TransferState.PENDING

    assert await world.settle_due() == 1  # the other worker let go without finishing it
    assert world.store.transfers[transfer_id].state is TransferState.COMPLETED
    assert_books_balance(world.store)


async def test_settle_due_finishes_at_most_limit_transfers_per_call(world: World) -> None:
    for _ in range(3):
        await world.send(priority="HIGH", creditor_document=SHOP.document, amount=Decimal("1.00"))

    assert await world.settle_due(limit=2) == 2
    assert await world.settle_due(limit=2) == 1
    assert await world.settle_due(limit=2) == 0
    assert {t.state for t in world.store.transfers.values()} == {TransferState.COMPLETED}
    assert_books_balance(world.store)


async def test_settling_an_unknown_transfer_does_nothing(world: World) -> None:
    before = snapshot(world.store)

    assert await settle_one(world.store.unit_of_work, world.clock, 404) == 0
    assert snapshot(world.store) == before


# -- receiving ---------------------------------------------------------------------------


async def test_a_receipt_credits_available_and_tells_the_receiver(world: World) -> None:
    store, receiver, now = world.store, world.receiver, world.clock.now()

    receipt = await receive_payment(
        store.unit_of_work,
        world.clock,
        key=parse_pix_key("joao@example.com"),
        amount=1234,
        payer=PAYER,
        tx_id="abcdefghijklmnopqrstuvwxyz123",
    )

    assert receipt.account_id == receiver.id
    assert world.balance(receiver) == Balance(1234, 0)
    record = store.transactions[receipt.transaction_id]
    assert (record.account_id, record.type, record.status, record.amount) == (
        receiver.id,
        TransactionType.PAYMENT,
        TransactionStatus.CONFIRMED,
        1234,
    )
    assert (record.counterpart, record.pix_key, record.processed_at) == (PAYER, "joao@example.com", now)
    assert record.end_to_end_id == receipt.end_to_end_id
    assert is_end_to_end_id(receipt.end_to_end_id)
    assert receipt.end_to_end_id.startswith("E" + PAYER.ispb)
    assert entries_of(store, receipt.transaction_id) == [
        ("receive", None, Bucket.EXTERNAL, -1234),
        ("receive", receiver.id, Bucket.AVAILABLE, 1234),
    ]
    assert store.outbox[-1] == OutboxItem(
        receiver.id,
        {
            "type": "RECEIVE",
            "data": {
                "id": receipt.transaction_id,
                "txId": "abcdefghijklmnopqrstuvwxyz123",
                "status": "LIQUIDATED",
                "payment": {"amount": "12.34", "currency": "BRL"},
                "endToEndId": receipt.end_to_end_id,
                "debtorAccount": {"name": PAYER.name, "document": "**.ABC.345/01DE-**"},
            },
        },
        now,
    )
    assert_books_balance(store)


async def test_a_receipt_for_a_key_of_no_account_is_refused(world: World) -> None:
    before = snapshot(world.store)

    with pytest.raises(KeyNotInDirectory):
        await receive_payment(
            world.store.unit_of_work, world.clock, key=SHOP.key, amount=1234, payer=PAYER
        )  # an outside key: not ours to credit

    assert snapshot(world.store) == before
    assert_books_balance(world.store)


# -- the fake directory ------------------------------------------------------------------


async def test_the_directory_resolves_the_keys_of_the_accounts_of_the_service(world: World) -> None:
    receiver = world.receiver
    entry = await world.directory.lookup(parse_pix_key("JOAO@example.com"))

    assert entry == DirectoryEntry(
        key=parse_pix_key("joao@example.com"),
        ispb=receiver.ispb,
        name=receiver.name,
        document=receiver.document,
        bank_name="",
        branch=receiver.branch,
        account_number=receiver.number,
        behavior="settle",
        account_id=receiver.id,
    )
    assert await world.directory.lookup(SHOP.key) == SHOP
    assert await world.directory.lookup(parse_pix_key("nobody@example.com")) is None


async def test_the_directory_refuses_a_key_it_knows_already(world: World) -> None:
    with pytest.raises(DuplicatePixKey):
        world.directory.add(SHOP)
    with pytest.raises(DuplicatePixKey):  # a key of an account of the service
        world.directory.add(dataclasses.replace(SHOP, key=parse_pix_key("maria@example.com")))

    assert await world.directory.lookup(parse_pix_key("maria@example.com")) is not None
    assert (await world.directory.lookup(SHOP.key)) == SHOP
