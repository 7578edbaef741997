"""Group commit on the fakes: a group decides each transfer as the ungrouped path would, in one unit."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from pixcore.accounts.ports import CertificateCheck, PendingCredential
from pixcore.accounts.rules import Balance
from pixcore.clock import ManualClock
from pixcore.errors import InvalidToken, PixError
from pixcore.group_commit import transfers as group_commit_transfers
from pixcore.group_commit.ports import TransferGroupStore, TransferReservation
from pixcore.group_commit.transfers import OPTIMISTIC_TRIES, TransferGroupCommit
from pixcore.testing import (
    InMemoryIdempotency,
    InMemoryKeyDirectory,
    InMemoryStore,
    InMemoryTransactions,
    InMemoryTransferGroupStore,
    PlainHasher,
)
from pixcore.transfers.ports import IdempotencyRecord
from pixcore.transfers.transfer_service import CreatedTransfer
from tests.unit.transfer_world import (
    NORM_DELAY,
    SHOP,
    World,
    assert_books_balance,
    fund,
    make_world,
    transfer_request,
)
from tests.unit.usecase_helpers import ISPB, OTHER_CPF

Outcome = tuple[str, int | None, bool | None]


@pytest.fixture(params=[False, True], ids=["locked", "store"])
def optimistic(request: pytest.FixtureRequest) -> bool:
    """Whether the group_commit has a ``TransferGroupStore`` (one read, one write, the balance locked only
    when it moved twice), or decides every group under the lock of its unit of work."""
    value: bool = request.param
    return value


def _group_commit(
    world: World,
    size: int = 16,
    *,
    optimistic: bool = False,
    certificates: CertificateCheck | None = None,
    store: TransferGroupStore | None = None,
    window: timedelta = timedelta(milliseconds=50),
) -> TransferGroupCommit:
    if optimistic and store is None:
        store = InMemoryTransferGroupStore(world.store.unit_of_work)
    return TransferGroupCommit(
        world.store.unit_of_work,
        world.directory,
        world.clock,
        ispb=ISPB,
        norm_delay=NORM_DELAY,
        size=size,
        window=window,
        certificates=certificates,
        store=store,
    )


def _requests() -> list[tuple[uuid.UUID, dict[str, Any]]]:
    """Maria holds 100.00: 25 + 25 fit, a retry replays, a reused key with another body is refused,
    90 does not fit what is left (50) but the 40 after it does, an unknown key is refused."""
    first, second = uuid.uuid4(), uuid.uuid4()
    return [
        (first, {}),
        (second, {"description": "other"}),
        (first, {}),
        (second, {"description": "not the same"}),
        (uuid.uuid4(), {"amount": Decimal("90.00")}),
        (uuid.uuid4(), {"amount": Decimal("40.00")}),
        (uuid.uuid4(), {"pix_key": "nobody@example.com"}),
    ]


def _outcome(result: CreatedTransfer | BaseException) -> Outcome:
    if isinstance(result, CreatedTransfer):
        return ("created", result.transfer.amount, result.replayed)
    assert isinstance(result, PixError), result
    return (type(result).__name__, None, None)


async def _fresh_world() -> World:
    clock = ManualClock()
    return await make_world(InMemoryStore(clock=clock), clock, PlainHasher())


async def _one_by_one(requests: list[tuple[uuid.UUID, dict[str, Any]]]) -> list[Outcome]:
    world = await _fresh_world()
    outcomes: list[Outcome] = []
    for key, changes in requests:
        try:
            outcomes.append(_outcome(await world.send(key, **changes)))
        except PixError as error:
            outcomes.append(_outcome(error))
    return outcomes


async def _grouped(
    world: World, group_commit: TransferGroupCommit, requests: list[tuple[uuid.UUID, dict[str, Any]]]
) -> list[Outcome]:
    results = await asyncio.gather(
        *(
            group_commit.create(
                account_id=world.sender.id, idempotency_key=key, request=transfer_request(**changes)
            )
            for key, changes in requests
        ),
        return_exceptions=True,
    )
    return [_outcome(result) for result in results]


async def test_a_group_answers_each_request_as_one_by_one_would(optimistic: bool) -> None:
    requests = _requests()
    expected = await _one_by_one(requests)
    assert expected == [
        ("created", 2500, False),
        ("created", 2500, False),
        ("created", 2500, True),
        ("IdempotencyKeyReused", None, None),
        ("InsufficientFunds", None, None),
        ("created", 4000, False),
        ("KeyNotInDirectory", None, None),
    ]
    world = await _fresh_world()
    commits = world.store.commits

    assert await _grouped(world, _group_commit(world, optimistic=optimistic), requests) == expected

    # The three new transfers in one unit of work; the retries replay and refuse without a commit.
    assert world.store.commits == commits + 1
    assert len({t.created_at for t in world.store.transfers.values()}) == 1
    assert world.balance(world.sender) == Balance(1000, 9000)
    assert_books_balance(world.store)


async def test_a_group_looks_its_keys_up_with_one_call_and_refusals_go_alone(optimistic: bool) -> None:
    """The directory is asked once for the whole group; a request the rules refuse (an unknown key,
    a denied institution, another creditor document, the sender's own key) is answered as alone."""
    requests: list[tuple[uuid.UUID, dict[str, Any]]] = [
        (uuid.uuid4(), {}),
        (uuid.uuid4(), {"pix_key": "nobody@example.com"}),
        (uuid.uuid4(), {"ispb_deny": [SHOP.ispb]}),
        (uuid.uuid4(), {"creditor_document": OTHER_CPF}),
        (uuid.uuid4(), {"pix_key": "maria@example.com"}),
        (uuid.uuid4(), {"pix_key": "joao@example.com", "amount": Decimal("10.00")}),
    ]
    expected = await _one_by_one(requests)
    assert expected == [
        ("created", 2500, False),
        ("KeyNotInDirectory", None, None),
        ("IspbDenied", None, None),
        ("CreditorDocumentMismatch", None, None),
        ("OwnAccountTransfer", None, None),
        ("created", 1000, False),
    ]
    world = await _fresh_world()
    directory = world.directory
    assert isinstance(directory, InMemoryKeyDirectory)

    assert await _grouped(world, _group_commit(world, optimistic=optimistic), requests) == expected

    assert [[key.value for key in keys] for keys in directory.many_lookups] == [
        [transfer_request(**changes).pix_key.value for _, changes in requests]
    ]
    # Only the four refused requests ask again, each on its own (ungrouped) path.
    assert len(directory.lookups) == 4
    assert world.balance(world.sender) == Balance(6500, 3500)
    assert_books_balance(world.store)


async def test_a_group_looks_its_keys_up_for_its_accounts_holder(
    optimistic: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group is one account's requests: its keys are looked up for that account's holder (the
    payer, by its document), and so is the key of a request that goes alone. Documents are kept for
    the accounts used last: one no longer kept is read again, never taken from another account."""
    monkeypatch.setattr(group_commit_transfers, "PAYERS_KEPT", 1)
    world = await _fresh_world()
    await fund(world, "joao@example.com")
    group_commit = _group_commit(world, optimistic=optimistic)
    maria, joao = world.sender, world.receiver
    assert maria.document != joao.document

    for account in (maria, joao, maria):
        outcomes = await asyncio.gather(
            *(
                group_commit.create(
                    account_id=account.id, idempotency_key=uuid.uuid4(), request=transfer_request(**changes)
                )
                for changes in ({}, {"pix_key": "nobody@example.com"})
            ),
            return_exceptions=True,
        )
        assert [_outcome(outcome) for outcome in outcomes] == [
            ("created", 2500, False),
            ("KeyNotInDirectory", None, None),
        ]

    directory = world.directory
    assert len(directory.many_lookups) == 3
    assert len(directory.lookups) == 3  # the unknown key, alone after each group
    assert directory.payers == [maria.document] * 2 + [joao.document] * 2 + [maria.document] * 2


async def _statement_fails(self: InMemoryTransactions, records: object) -> list[int]:
    raise RuntimeError("the group statement failed")


async def _key_claimed_meanwhile(self: InMemoryIdempotency, *args: object) -> set[uuid.UUID]:
    return set()  # as if another process had claimed every key since the group looked


@pytest.mark.parametrize(
    ("repository", "method", "broken"),
    [
        pytest.param(InMemoryTransactions, "add_many", _statement_fails, id="statement-fails"),
        pytest.param(InMemoryIdempotency, "claim_many", _key_claimed_meanwhile, id="key-claimed-meanwhile"),
    ],
)
async def test_a_group_that_fails_is_applied_one_by_one(
    monkeypatch: pytest.MonkeyPatch, repository: type, method: str, broken: object, optimistic: bool
) -> None:
    monkeypatch.setattr(repository, method, broken)
    requests = _requests()
    expected = await _one_by_one(requests)
    world = await _fresh_world()
    commits = world.store.commits

    assert await _grouped(world, _group_commit(world, optimistic=optimistic), requests) == expected

    assert world.store.commits == commits + 3  # each new transfer alone
    assert world.balance(world.sender) == Balance(1000, 9000)
    assert_books_balance(world.store)


async def test_a_request_cancelled_before_its_group_is_not_applied(optimistic: bool) -> None:
    world = await _fresh_world()
    group_commit = _group_commit(world, optimistic=optimistic)
    kept = asyncio.create_task(
        group_commit.create(
            account_id=world.sender.id, idempotency_key=uuid.uuid4(), request=transfer_request()
        )
    )
    gone = asyncio.create_task(
        group_commit.create(
            account_id=world.sender.id, idempotency_key=uuid.uuid4(), request=transfer_request()
        )
    )
    await asyncio.sleep(0)  # both queued; the group waits for its window
    gone.cancel()
    created = await kept
    assert gone.cancelled()
    assert list(world.store.transfers) == [created.transfer.transaction_id]
    assert world.balance(world.sender) == Balance(7500, 2500)


async def test_size_one_is_the_ungrouped_path() -> None:
    requests = _requests()
    world = await _fresh_world()
    commits = world.store.commits
    group_commit = _group_commit(world, size=1)
    outcomes = [(await _grouped(world, group_commit, [request]))[0] for request in requests]
    assert outcomes == await _one_by_one(requests)
    assert world.store.commits == commits + 3


async def test_a_burst_larger_than_a_group_never_overdraws(optimistic: bool) -> None:
    world = await _fresh_world()
    requests = [(uuid.uuid4(), {"amount": Decimal("3.00")}) for _ in range(50)]
    outcomes = await _grouped(world, _group_commit(world, size=8, optimistic=optimistic), requests)
    assert outcomes.count(("created", 300, False)) == 33
    assert outcomes.count(("InsufficientFunds", None, None)) == 17
    assert world.balance(world.sender) == Balance(100, 9900)
    assert_books_balance(world.store)


class _Certificates:
    """A CertificateCheck whose revoked fingerprints the test sets; it counts its calls."""

    def __init__(self, revoked: set[str], *, fails: bool = False) -> None:
        self.revoked, self.fails = revoked, fails
        self.calls: list[list[PendingCredential]] = []

    async def in_force_many(self, credentials: Sequence[PendingCredential]) -> set[PendingCredential]:
        self.calls.append(list(credentials))
        if self.fails:
            raise ConnectionError("the database went away")
        return {c for c in credentials if c.fingerprint not in self.revoked}


async def _send_with(
    world: World, group_commit: TransferGroupCommit, credentials: list[PendingCredential | None]
) -> list[CreatedTransfer | BaseException]:
    return await asyncio.gather(
        *(
            group_commit.create(
                account_id=world.sender.id,
                idempotency_key=uuid.uuid4(),
                request=transfer_request(),
                credential=credential,
            )
            for credential in credentials
        ),
        return_exceptions=True,
    )


async def test_a_group_checks_its_callers_certificates_with_one_call_and_refuses_the_revoked(
    optimistic: bool,
) -> None:
    world = await _fresh_world()
    now = int(world.clock.now().timestamp())
    good = PendingCredential(world.sender.id, "a" * 64, now + 300)
    revoked = PendingCredential(world.sender.id, "b" * 64, now + 300)
    expired = PendingCredential(world.sender.id, "a" * 64, now)  # exp is exclusive, as verify's
    certificates = _Certificates({"b" * 64})
    commits = world.store.commits

    results = await _send_with(
        world,
        _group_commit(world, optimistic=optimistic, certificates=certificates),
        [good, revoked, expired, good, None],
    )

    assert [_outcome(r) if isinstance(r, CreatedTransfer) else str(r) for r in results] == [
        ("created", 2500, False),
        InvalidToken.REVOKED,
        InvalidToken.EXPIRED,
        ("created", 2500, False),
        ("created", 2500, False),
    ]
    assert all(isinstance(r, InvalidToken) for r in results[1:3])
    assert [len(call) for call in certificates.calls] == [4]  # the four pending, in one call
    assert world.store.commits == commits + 1
    assert world.balance(world.sender) == Balance(2500, 7500)  # three reserved, nothing for the refused


async def test_a_failed_certificate_check_answers_every_request_of_the_group_and_writes_nothing(
    optimistic: bool,
) -> None:
    world = await _fresh_world()
    pending = PendingCredential(world.sender.id, "a" * 64, int(world.clock.now().timestamp()) + 300)
    certificates = _Certificates(set(), fails=True)
    commits = world.store.commits

    results = await _send_with(
        world,
        _group_commit(world, optimistic=optimistic, certificates=certificates),
        [pending, None, pending],
    )

    assert all(isinstance(r, ConnectionError) for r in results), results
    assert world.store.commits == commits
    assert world.balance(world.sender) == Balance(10000, 0)


async def test_ungrouped_a_pending_credential_is_checked_before_the_transfer() -> None:
    world = await _fresh_world()
    now = int(world.clock.now().timestamp())
    certificates = _Certificates({"b" * 64})
    group_commit = _group_commit(world, size=1, certificates=certificates)
    assert not group_commit.checks_certificates
    commits = world.store.commits

    with pytest.raises(InvalidToken, match="revoked"):
        await group_commit.create(
            account_id=world.sender.id,
            idempotency_key=uuid.uuid4(),
            request=transfer_request(),
            credential=PendingCredential(world.sender.id, "b" * 64, now + 300),
        )
    assert world.store.commits == commits
    created = await group_commit.create(
        account_id=world.sender.id,
        idempotency_key=uuid.uuid4(),
        request=transfer_request(),
        credential=PendingCredential(world.sender.id, "a" * 64, now + 300),
    )
    assert created.transfer.amount == 2500
    assert len(certificates.calls) == 2


class _Watched(InMemoryTransferGroupStore):
    """A store that counts its reads and writes, and before each write runs ``_before_write``:
    what else happens to the account meanwhile (another request, ungrouped, moving its balance)."""

    def __init__(self, world: World) -> None:
        super().__init__(world.store.unit_of_work)
        self.world = world
        self.reads = self.writes = 0

    async def seen(
        self, account_id: int, keys: Sequence[uuid.UUID]
    ) -> tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]]:
        self.reads += 1
        return await super().seen(account_id, keys)

    async def reserve(
        self,
        account_id: int,
        exactly: int | None,
        reservations: Sequence[TransferReservation],
        at: datetime,
    ) -> list[int] | None:
        self.writes += 1
        await self._before_write()
        return await super().reserve(account_id, exactly, reservations, at)

    async def _before_write(self) -> None:
        return None


class _MovedMeanwhile(_Watched):
    """Before each of its first ``moves`` writes, ``amount`` leaves the account: the balance the
    group read has moved by then."""

    def __init__(self, world: World, moves: int, amount: Decimal) -> None:
        super().__init__(world)
        self.moves, self.amount = moves, amount

    async def _before_write(self) -> None:
        if self.writes <= self.moves:
            await self.world.send(amount=self.amount)


async def test_a_group_whose_balance_no_longer_covers_it_is_decided_again_on_the_new_one() -> None:
    """Read at 100.00, the group covers 25 + 25 + 40; 50.00 leaves meanwhile, so nothing is written
    and, read again at 50.00, the 40 is refused: as if the balance had been locked all along."""
    world = await _fresh_world()
    store = _MovedMeanwhile(world, moves=1, amount=Decimal("50.00"))
    requests = [(uuid.uuid4(), {}), (uuid.uuid4(), {}), (uuid.uuid4(), {"amount": Decimal("40.00")})]

    outcomes = await _grouped(world, _group_commit(world, store=store), requests)

    assert outcomes == [("created", 2500, False), ("created", 2500, False), ("InsufficientFunds", None, None)]
    assert (store.reads, store.writes) == (2, 2)
    assert world.balance(world.sender) == Balance(0, 10000)
    assert len(world.store.transfers) == 3  # the one sent meanwhile and the group's two
    assert_books_balance(world.store)


async def test_a_group_that_refused_nothing_is_written_on_any_balance_that_covers_it() -> None:
    """Read at 100.00, 25 + 25 are covered; 10.00 leaves meanwhile: 90 still covers 50, so the one
    write lands, as it would have under the lock (another process's group, say, went first)."""
    world = await _fresh_world()
    store = _MovedMeanwhile(world, moves=1, amount=Decimal("10.00"))
    requests = [(uuid.uuid4(), {}), (uuid.uuid4(), {})]

    outcomes = await _grouped(world, _group_commit(world, store=store), requests)

    assert outcomes == [("created", 2500, False), ("created", 2500, False)]
    assert (store.reads, store.writes) == (1, 1)
    assert world.balance(world.sender) == Balance(4000, 6000)
    assert_books_balance(world.store)


async def test_a_group_that_refused_a_transfer_is_written_only_on_the_balance_it_was_decided_on() -> None:
    """Read at 100.00, the 80 is refused after the 25: a balance that moved, even to one that still
    covers the 25, might have covered the 80 too, so the group is decided again; moving on every
    try, it is decided under the lock."""
    world = await _fresh_world()
    store = _MovedMeanwhile(world, moves=OPTIMISTIC_TRIES, amount=Decimal("1.00"))
    requests = [(uuid.uuid4(), {}), (uuid.uuid4(), {"amount": Decimal("80.00")})]
    commits = world.store.commits

    outcomes = await _grouped(world, _group_commit(world, store=store), requests)

    assert outcomes == [("created", 2500, False), ("InsufficientFunds", None, None)]
    assert store.writes == OPTIMISTIC_TRIES
    assert world.store.commits == commits + OPTIMISTIC_TRIES + 1  # the moves, then the locked group
    assert world.balance(world.sender) == Balance(9800 - 2500, 200 + 2500)
    assert_books_balance(world.store)


class _Gated(_Watched):
    """A store whose first write waits for ``gate`` (a group's write still on its way), after
    ``meanwhile`` (if given) has left the account: the balance moved under it."""

    def __init__(self, world: World, meanwhile: Decimal | None = None) -> None:
        super().__init__(world)
        self.meanwhile = meanwhile
        self.gate = asyncio.Event()

    async def _before_write(self) -> None:
        if self.writes == 1:
            if self.meanwhile is not None:
                await self.world.send(amount=self.meanwhile)
            await self.gate.wait()


async def _until(condition: Callable[[], bool]) -> None:
    """Wait (at most 2 s: a group waits up to its 50 ms window) until ``condition`` holds."""
    for _ in range(400):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the group_commit never got there")


def _send(world: World, group_commit: TransferGroupCommit, amount: str) -> asyncio.Task[CreatedTransfer]:
    request = transfer_request(amount=Decimal(amount))
    return asyncio.create_task(
        group_commit.create(account_id=world.sender.id, idempotency_key=uuid.uuid4(), request=request)
    )


async def _outcomes(*tasks: asyncio.Task[CreatedTransfer]) -> list[Outcome]:
    return [_outcome(r) for r in await asyncio.gather(*tasks, return_exceptions=True)]


async def test_a_group_is_decided_on_what_the_write_ahead_of_it_leaves() -> None:
    """Maria holds 100.00. The first group (60) is on its way; the next (50) reads 100 still, yet is
    decided on the 40 the first leaves, and refused without a write of its own being refused."""
    world = await _fresh_world()
    store = _Gated(world)
    group_commit = _group_commit(world, store=store)
    first = _send(world, group_commit, "60.00")
    await _until(lambda: store.writes == 1)
    second = _send(world, group_commit, "50.00")
    await _until(lambda: store.reads == 2)
    await asyncio.sleep(0)
    assert not first.done()
    assert store.writes == 1  # the second waits for the first to land before it writes
    store.gate.set()

    assert await _outcomes(first, second) == [("created", 6000, False), ("InsufficientFunds", None, None)]
    assert (store.reads, store.writes) == (2, 2)
    assert world.balance(world.sender) == Balance(4000, 6000)
    assert_books_balance(world.store)


async def test_a_group_behind_a_write_that_failed_is_decided_again() -> None:
    """The first group (60, decided on 100) is refused its write: 30.00 left meanwhile. It is read and
    decided again (70 covers it), and the group behind it (5, decided on the 40 the first would have
    left) is decided again too, on what is really left."""
    world = await _fresh_world()
    store = _Gated(world, meanwhile=Decimal("30.00"))
    group_commit = _group_commit(world, store=store)
    first = _send(world, group_commit, "60.00")
    await _until(lambda: store.writes == 1)
    second = _send(world, group_commit, "5.00")
    await _until(lambda: store.reads == 2)
    store.gate.set()

    assert await _outcomes(first, second) == [("created", 6000, False), ("created", 500, False)]
    assert world.balance(world.sender) == Balance(500, 9500)
    assert len(world.store.transfers) == 3
    assert_books_balance(world.store)


def _send_keyed(
    world: World, group_commit: TransferGroupCommit, key: uuid.UUID, amount: str
) -> asyncio.Task[CreatedTransfer]:
    request = transfer_request(amount=Decimal(amount))
    return asyncio.create_task(
        group_commit.create(account_id=world.sender.id, idempotency_key=key, request=request)
    )


async def test_a_retry_of_a_key_whose_write_is_on_its_way_replays_it() -> None:
    """Maria holds 100.00. A transfer of 60 is on its way (its write held); its retry (same key, same
    body) comes in meanwhile. Decided beside it, on the 40 the write leaves, it would be refused for
    funds while its transfer goes through; it waits for that write and replays it instead."""
    world = await _fresh_world()
    store = _Gated(world)
    group_commit = _group_commit(world, store=store)
    key = uuid.uuid4()
    first = _send_keyed(world, group_commit, key, "60.00")
    await _until(lambda: store.writes == 1)
    retry = _send_keyed(world, group_commit, key, "60.00")
    for _ in range(20):  # a group's window (50 ms) and then some: the retry is not decided meanwhile
        await asyncio.sleep(0.005)
    assert (store.reads, retry.done()) == (1, False)
    store.gate.set()

    made, again = await first, await retry
    assert (made.replayed, again.replayed) == (False, True)
    assert again.transfer.transaction_id == made.transfer.transaction_id
    assert world.balance(world.sender) == Balance(4000, 6000)
    assert_books_balance(world.store)


async def test_a_retry_waits_for_the_write_of_a_caller_that_went_away() -> None:
    """The first caller of a key goes away while its write is on its way, and so does the caller of
    its first retry, still waiting: what became of the first request answers the next retry (the
    write lands, the retry replays it)."""
    world = await _fresh_world()
    store = _Gated(world)
    group_commit = _group_commit(world, store=store)
    key = uuid.uuid4()
    first = _send_keyed(world, group_commit, key, "60.00")
    await _until(lambda: store.writes == 1)
    first.cancel()
    gone = _send_keyed(world, group_commit, key, "60.00")
    await asyncio.sleep(0.01)
    gone.cancel()
    retry = _send_keyed(world, group_commit, key, "60.00")
    await asyncio.sleep(0.1)
    assert (store.reads, retry.done()) == (1, False)
    store.gate.set()

    again = await retry
    assert first.cancelled()
    assert gone.cancelled()
    assert again.replayed
    assert list(world.store.transfers) == [again.transfer.transaction_id]
    assert world.balance(world.sender) == Balance(4000, 6000)


class _Slow(_Watched):
    """A store whose writes take a little while (as a database's do), so that groups pipeline."""

    def __init__(self, world: World, rng: random.Random) -> None:
        super().__init__(world)
        self.rng = rng

    async def _before_write(self) -> None:
        for _ in range(self.rng.randrange(5)):
            await asyncio.sleep(0)


@pytest.mark.parametrize("size", [2, 4, 16])
async def test_concurrent_requests_of_one_key_all_get_the_answer_of_the_one_that_wrote(
    optimistic: bool, size: int
) -> None:
    """Bursts of same-key requests (a balance covering one of them), mixed with other keys' transfers,
    in groups of every size: every request of a key gets one answer, that of its write (the same
    transfer, or the same refusal), and each key moves money at most once. Many rounds, so that
    every interleaving of groups and pipelined writes is met (one miss in the run fails it)."""
    for round_ in range(40):
        world = await _fresh_world()
        store = _Slow(world, random.Random(round_))  # noqa: S311 - a repeatable interleaving if optimistic else None
        group_commit = _group_commit(world, size, store=store, window=timedelta(milliseconds=2))
        keys = [uuid.uuid4() for _ in range(3)]
        # 100.00 covers one 60 and one 30: the third key is refused, whatever the order.
        amounts = {keys[0]: "60.00", keys[1]: "30.00", keys[2]: "30.00"}
        order = [keys[(round_ + i) % 3] for i in range(12)]
        tasks = [_send_keyed(world, group_commit, key, amounts[key]) for key in order]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        by_key: dict[uuid.UUID, set[tuple[str, int | None]]] = {}
        for key, result in zip(order, results, strict=True):
            answer = (
                ("created", result.transfer.transaction_id)
                if isinstance(result, CreatedTransfer)
                else (_outcome(result)[0], None)
            )
            by_key.setdefault(key, set()).add(answer)
        assert all(len(answers) == 1 for answers in by_key.values()), (round_, by_key)
        made = sum(1 for answers in by_key.values() for kind, _ in answers if kind == "created")
        assert len(world.store.transfers) == made
        assert world.balance(world.sender).available >= 0
        assert_books_balance(world.store)
