"""Creating transfers on the fakes: reservation, refusals, idempotency."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any, Self

import pytest

from pixcore.accounts.rules import Balance, Counterpart
from pixcore.errors import (
    AccountNotFound,
    CreditorDocumentMismatch,
    IdempotencyKeyReused,
    InsufficientFunds,
    IspbDenied,
    KeyNotInDirectory,
    OwnAccountTransfer,
    PixError,
)
from pixcore.identifiers import is_end_to_end_id
from pixcore.ledger import Bucket
from pixcore.records import TransactionStatus, TransactionType
from pixcore.testing import (
    InMemoryStore,
    InMemoryUnitOfWork,
)
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.transfers.rules import DEFAULT_EXPIRATION, TransferState
from pixcore.transfers.transfer_service import CreatedTransfer, create_transfer, request_fingerprint
from tests.unit.transfer_world import (
    FUNDS,
    NORM_DELAY,
    SHOP,
    World,
    assert_books_balance,
    entries_of,
    fund,
    snapshot,
    transfer_request,
)
from tests.unit.usecase_helpers import ISPB, OTHER_CPF

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


async def test_a_key_is_looked_up_for_the_holder_of_the_account_that_pays(world: World) -> None:
    """The directory is asked for a payer: the document (CPF or CNPJ) of the holder of the account
    that pays, read from the account unless the caller gives it."""
    await fund(world, "joao@example.com")
    await world.send()
    await world.send(account=world.receiver)
    await create_transfer(
        world.store.unit_of_work,
        world.directory,
        world.clock,
        account_id=world.sender.id,
        idempotency_key=uuid.uuid4(),
        request=transfer_request(),
        ispb=ISPB,
        norm_delay=NORM_DELAY,
        payer=world.sender.document,
    )

    assert world.sender.document != world.receiver.document
    assert world.directory.payers == [world.sender.document, world.receiver.document, world.sender.document]


async def test_a_transfer_from_no_account_asks_no_directory(world: World) -> None:
    before = snapshot(world.store)

    with pytest.raises(AccountNotFound):
        await world.send(account=dataclasses.replace(world.sender, id=max(world.store.accounts) + 1))

    assert world.directory.payers == []
    assert snapshot(world.store) == before


class _Interrupted(InMemoryUnitOfWork):
    """A unit of work that lets another request run and commit just before it claims its
    idempotency key: between its replay check and its claim, as a concurrent duplicate would."""

    def __init__(self, store: InMemoryStore, before: Callable[[], Awaitable[object]]) -> None:
        super().__init__(store)
        self._before = before

    async def __aenter__(self) -> Self:
        entered = await super().__aenter__()
        repository = entered.idempotency
        claim = repository.claim

        async def interrupted_claim(*args: Any, **kwargs: Any) -> bool:
            await self._before()
            return await claim(*args, **kwargs)

        repository.claim = interrupted_claim  # type: ignore[method-assign]
        return entered


def _raced(
    store: InMemoryStore, competitor: Callable[[], Awaitable[object]]
) -> Callable[[], InMemoryUnitOfWork]:
    """A unit-of-work factory whose first unit (create_transfer's) is overtaken by ``competitor``
    just before it claims its key."""
    calls = 0

    def factory() -> InMemoryUnitOfWork:
        nonlocal calls
        calls += 1
        return _Interrupted(store, competitor) if calls == 1 else store.unit_of_work()

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
        payer=world.sender.document,  # known: the first unit is the one that reserves
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
            payer=world.sender.document,  # known: the first unit is the one that reserves
        )

    assert [t.amount for t in world.store.transfers.values()] == [100]
    assert world.balance(world.sender) == Balance(FUNDS - 100, 100)
    assert_books_balance(world.store)
