"""Group commit of the transfers one account sends: one balance row, many requests.

Every transfer out of an account locks that account's balance row until its COMMIT, so
concurrent requests from one hot account queue on that lock one transaction at a time. A
:class:`TransferGroupCommit` gathers the requests of one process for one account (up to ``size``,
waiting at most ``window`` seconds for more) and applies them together:

1. each transfer is decided in arrival order against the running available balance: one it does
   not cover fails alone with ``InsufficientFunds``;
2. the records, idempotency keys, transfers and ledger entries of the covered ones are written
   at once, the balance updated once (guarded, as always);
3. then every waiting request is answered. Nothing is answered before its write is committed.

With a :class:`~pixcore.group_commit.ports.TransferGroupStore` (the service's way), the group
reads the balance
as committed with one statement and is written by one more, which lands only if the decision still
holds: the balance covers the group and, if the group refused a transfer, is the one it was decided
on. Groups are pipelined: a group is decided on what the write ahead of it leaves, while that write
is on its way, and writes behind it. When a write does not land, the group is read and decided
again, and after ``OPTIMISTIC_TRIES`` decided under the balance row's lock in one unit of work
(the way without a store).

The keys the group's requests pay are looked up in the directory with one statement when the
group begins (before its unit of work opens), for the account's holder: its document is the payer
of every look-up of the group (read once per account and kept: an account's document never
changes). A request whose destination the rules refuse, whose key is taken already, or that
repeats the key of an earlier request of its group takes the ungrouped path
(:func:`~pixcore.transfers.transfer_service.create_transfer`) on its own, after the group: its answer
is exactly today's. If the group's unit of work fails for any reason (a key claimed meanwhile
by another process, a deadlock, a lost connection), its requests are applied one by one on the
ungrouped path, so that one bad request never fails the others. ``size`` 1 is the ungrouped path itself.

One answer per idempotency key: requests of one account that share a key are never decided side by
side in this process. Each waits until the one ahead of it under that key has its final outcome (its
write landed or is known to have failed, whatever became of its caller), then goes as a retry does: it
finds the key taken and replays that transfer, or, if nothing was written for it, is decided afresh.
A group decided while the write of an earlier group is on its way would otherwise refuse a retry
for the funds that very write is spending. Between processes, the write's guards decide: a group
that refused a transfer lands only on the very balance it was decided on, which any write of
another process (that key's included) moves.

A request may bring its caller's :class:`~pixcore.accounts.ports.PendingCredential` (a token that verified,
whose certificate status is still to be read): the group reads all of them with ONE statement
(``CertificateCheck.in_force_many``, which reads the service clock too) before anything else, and
refuses the token of each one whose certificate is no longer in force, or whose token expired on
the clock just read, with ``InvalidToken`` (the bearer check's own answer). Nothing is written
for it, and the check is never skipped: if it fails, every request of the group gets that error.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeAlias

from pixcore.accounts.ports import CertificateCheck, PendingCredential
from pixcore.accounts.rules import Balance
from pixcore.clock import Clock
from pixcore.errors import (
    AccountNotFound,
    InsufficientFunds,
    InvalidToken,
    RuleViolation,
)
from pixcore.group_commit.gatherer import GroupCommit, Waiting, settle
from pixcore.group_commit.ports import TransferGroupStore, TransferReservation
from pixcore.transfers.ports import IdempotencyRecord, KeyDirectory
from pixcore.transfers.rules import DirectoryEntry, TransferRequest
from pixcore.transfers.transfer_service import (
    CreatedTransfer,
    check_destination,
    create_transfer,
    payer_of,
    request_fingerprint,
    reservation,
    reserve_many,
    stored,
)
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["TransferGroupCommit"]

log = logging.getLogger(__name__)

OPTIMISTIC_TRIES = 2
"""How many times a group is decided on the balance as committed and written only if it has not
moved (``TransferGroupStore``) before it locks the balance row instead."""

PAYERS_KEPT = 10_000
"""How many accounts' documents (the payer of their look-ups) a group commit keeps, those used last."""

_Outcome: TypeAlias = CreatedTransfer | RuleViolation


class _GroupAbandoned(Exception):
    """The group cannot be applied as one: its requests go one by one."""


@dataclass(frozen=True, slots=True)
class _Request:
    key: uuid.UUID
    fingerprint: str
    request: TransferRequest
    credential: PendingCredential | None = None


@dataclass(frozen=True, slots=True)
class _Routed:
    """A request of the group whose destination the rules accept, with its directory entry."""

    item: _Request
    entry: DirectoryEntry


_Group: TypeAlias = list[Waiting[_Request, CreatedTransfer]]


@dataclass(frozen=True, slots=True)
class _Decided:
    """What one group's unit of work decided: answers by position, and who goes alone afterwards."""

    outcomes: dict[int, _Outcome]
    alone: list[int]


@dataclass(frozen=True, slots=True)
class _Read:
    """What a group reads before deciding: the directory's entries of its keys, and (with a
    ``TransferGroupStore``) the balance and the taken idempotency keys as committed."""

    entries: dict[str, DirectoryEntry]
    seen: tuple[Balance | None, dict[uuid.UUID, IdempotencyRecord]] | None


@dataclass(frozen=True, slots=True)
class _Decision:
    """A group decided against a balance: refused, retried alone, and reserved (in order)."""

    available: int
    """The available balance it was decided against."""
    left: int
    """What its reservations leave of it."""
    refused: dict[int, _Outcome]
    retries: list[int]
    covered: list[int]
    reservations: list[TransferReservation]

    @property
    def exactly(self) -> int | None:
        """The balance its write needs: exactly the one it was decided on when it refused a transfer
        for its amount (a higher one might have covered it); else any that covers it."""
        return self.available if self.refused else None

    def outcome(self, ids: Sequence[int], alone: Sequence[int]) -> _Decided:
        """The answers once the reservations are written with ``ids``."""
        outcomes = dict(self.refused)
        for position, made, transaction_id in zip(self.covered, self.reservations, ids, strict=True):
            outcomes[position] = CreatedTransfer(stored(made.transfer(transaction_id)), replayed=False)
        return _Decided(outcomes, [*alone, *self.retries])


@dataclass(frozen=True, slots=True)
class _Ahead:
    """A group's write on its way: the available balance it leaves if it lands, and whether it did
    (True once written, False once it did not: the group behind it must decide again)."""

    left: int
    written: asyncio.Future[bool]


def _refusal(
    credential: PendingCredential, in_force: set[PendingCredential], now: int
) -> InvalidToken | None:
    """The bearer check's answer, in its order: the token's window first, then the certificate."""
    if now >= credential.expires_at:
        return InvalidToken(InvalidToken.EXPIRED)
    if credential not in in_force:
        return InvalidToken(InvalidToken.REVOKED)
    return None


class TransferGroupCommit(GroupCommit[int, _Request, CreatedTransfer]):
    """Creates transfers as :func:`~pixcore.transfers.transfer_service.create_transfer` does, grouping
    the concurrent ones of each sending account into one unit of work (see the module's text).

    One per process (it holds per-account queues); every method runs on one event loop.
    """

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        directory: KeyDirectory,
        clock: Clock,
        *,
        ispb: str,
        norm_delay: timedelta,
        size: int,
        window: timedelta,
        certificates: CertificateCheck | None = None,
        store: TransferGroupStore | None = None,
    ) -> None:
        super().__init__(size=size, window=window)
        self._uow, self._directory, self._clock = uow, directory, clock
        self._certificates, self._store = certificates, store
        self._ahead: dict[int, _Ahead] = {}  # per account, the write of its last group, until it lands
        self._writing: set[asyncio.Task[None]] = set()  # the writes on their way (kept referenced)
        # Per (account, idempotency key), the last request of this process under it, until its outcome
        # is final: the next one of that key waits for it (see the module's text).
        self._keyed: dict[tuple[int, uuid.UUID], asyncio.Future[None]] = {}
        self._ispb, self._norm_delay = ispb, norm_delay
        self._payers: dict[int, str] = {}  # per account, its holder's document; the one used last, last

    @property
    def checks_certificates(self) -> bool:
        """True when requests are grouped and their callers' certificates can be checked by their
        group (``create(credential=...)``): one statement a group instead of one a request."""
        return self.groups and self._certificates is not None

    async def create(
        self,
        *,
        account_id: int,
        idempotency_key: uuid.UUID,
        request: TransferRequest,
        credential: PendingCredential | None = None,
    ) -> CreatedTransfer:
        """The transfer this request makes (or made, on a retry): the answer of ``create_transfer``.

        ``credential``: the caller's, when its certificate status is still to be checked (the
        group does it; ``InvalidToken`` when it is no longer in force or the token expired)."""
        if not self.groups and credential is not None:
            refused = await self.refusal(credential)
            if refused is not None:
                raise refused
        item = _Request(idempotency_key, request_fingerprint(request), request, credential)
        keyed = (account_id, idempotency_key)
        ahead = self._keyed.get(keyed)
        settled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._keyed[keyed] = settled
        settled.add_done_callback(lambda done: self._released(keyed, done))
        if ahead is not None:
            try:
                await asyncio.wait([ahead])  # what became of it is in the store now
            except asyncio.CancelledError:
                # Its caller went away before it was queued: nothing of it is written, so the next
                # request of the key waits only for the one ahead.
                ahead.add_done_callback(lambda _: settle(settled))
                raise
        return await self._submit(account_id, item, settled)

    def _released(self, keyed: tuple[int, uuid.UUID], settled: asyncio.Future[None]) -> None:
        if self._keyed.get(keyed) is settled:
            del self._keyed[keyed]

    async def refusal(self, credential: PendingCredential) -> InvalidToken | None:
        """The bearer check's refusal of one pending credential checked alone, or None."""
        return (await self._refusals([credential]))[0]

    async def _refusals(self, credentials: Sequence[PendingCredential]) -> list[InvalidToken | None]:
        """For each credential, the bearer check's refusal, or None when it is in force: one
        statement, which brings the clock up to date before the tokens' expiry is judged."""
        if self._certificates is None:
            raise RuntimeError("no certificate check to judge a pending credential with")
        in_force = await self._certificates.in_force_many(credentials)
        now = int(self._clock.now().timestamp())
        return [_refusal(credential, in_force, now) for credential in credentials]

    async def _admitted(self, group: _Group) -> _Group:
        """The requests of the group whose callers are (still) admitted; the others are answered."""
        pending = [waiting for waiting in group if waiting.item.credential is not None]
        if not pending:
            return group
        refusals = await self._refusals([w.item.credential for w in pending if w.item.credential])
        refused: set[int] = set()
        for waiting, refusal in zip(pending, refusals, strict=True):
            if refusal is not None:
                waiting.give(refusal)
                refused.add(id(waiting))
        return [waiting for waiting in group if id(waiting) not in refused]

    async def _payer(self, account_id: int) -> str:
        """The document of the account's holder, the payer of its look-ups: read the first time,
        then kept (for the ``PAYERS_KEPT`` accounts used last). ``AccountNotFound`` if none."""
        payer = self._payers.pop(account_id, None)
        if payer is None:
            payer = await payer_of(self._uow, account_id)
            if len(self._payers) >= PAYERS_KEPT:
                del self._payers[next(iter(self._payers))]
        self._payers[account_id] = payer
        return payer

    async def _alone(self, account_id: int, item: _Request) -> CreatedTransfer:
        return await create_transfer(
            self._uow,
            self._directory,
            self._clock,
            account_id=account_id,
            idempotency_key=item.key,
            request=item.request,
            ispb=self._ispb,
            norm_delay=self._norm_delay,
            payer=await self._payer(account_id),
        )

    async def _apply(self, account_id: int, group: _Group) -> None:
        items = [waiting.item for waiting in group]
        # The write of the group ahead, if one is on its way as the reads begin: what they read may
        # not show it yet, what it leaves will be the balance (or, if it fails, nothing is known).
        ahead = self._ahead.get(account_id)
        # The callers' certificates, the group's keys in the directory and (with a store) the balance
        # and the idempotency keys as committed: read at once, each one statement.
        admitted, read = await asyncio.gather(
            self._admitted(group), self._read(account_id, items), return_exceptions=True
        )
        if isinstance(admitted, BaseException):
            raise admitted  # the certificate check's failure answers every request: never skipped
        if not admitted:
            return
        requests = [waiting.item for waiting in admitted]
        seen = None if isinstance(read, BaseException) else read.seen
        balance, taken = (None, {}) if seen is None else seen
        if isinstance(read, BaseException) or balance is None:  # no store, or a read failed
            await self._answer(account_id, admitted, self._commit(account_id, requests, read))
            return
        # Pipelined: decided now, on what the write ahead of it leaves if that one is still on its
        # way, and written behind it by a task of its own, while the next group forms and decides.
        if ahead is not None and ahead.written.done() and not ahead.written.result():
            # Decided on a write that failed: read again (the group ahead is being decided again).
            await self._answer(
                account_id, admitted, self._commit(account_id, requests, _Read(read.entries, None))
            )
            return
        routed, alone = self._route(account_id, requests, read.entries)
        now = self._clock.now()
        decision = self._decide(
            account_id, routed, balance.available if ahead is None else ahead.left, taken, now
        )
        mine = _Ahead(decision.left, asyncio.get_running_loop().create_future())
        self._ahead[account_id] = mine
        # The write's coroutine is made inside its task: a task cancelled before it begins leaves none
        # unawaited, and ``_write_ended`` answers its requests.
        write = asyncio.create_task(
            self._write(account_id, admitted, requests, read, (decision, alone), ahead, mine, now)
        )
        self._writing.add(write)
        write.add_done_callback(self._writing.discard)
        write.add_done_callback(lambda task: self._write_ended(account_id, mine, admitted, task))
        if ahead is not None:
            await asyncio.wait([ahead.written])  # two writes on their way at most

    async def _write(  # noqa: PLR0917 - one group's write and what it needs
        self,
        account_id: int,
        admitted: _Group,
        requests: Sequence[_Request],
        read: _Read,
        decided: tuple[_Decision, list[int]],
        ahead: _Ahead | None,
        mine: _Ahead,
        now: datetime,
    ) -> None:
        """The group written behind the write ahead of it, and its requests answered."""
        writing = self._write_behind(account_id, requests, read, decided, ahead, mine, now)
        await self._answer(account_id, admitted, writing)

    def _write_ended(self, account_id: int, mine: _Ahead, admitted: _Group, task: asyncio.Task[None]) -> None:
        """Once the write's task is over: if it never said whether it landed (cancelled), it did not;
        and a request it left unanswered (cancelled, at shutdown) is cancelled, never left waiting."""
        self._landed(account_id, mine, landed=False)
        if task.cancelled():
            for waiting in admitted:
                waiting.settle()
                if not waiting.answer.done():
                    waiting.answer.cancel()

    async def _write_behind(  # noqa: PLR0917 - one group's write and what it needs
        self,
        account_id: int,
        requests: Sequence[_Request],
        read: _Read,
        decided: tuple[_Decision, list[int]],
        ahead: _Ahead | None,
        mine: _Ahead,
        now: datetime,
    ) -> _Decided:
        """The decided group written once the write ahead of it has landed; if that one did not,
        or the balance moved all the same, the group is read and decided again (``_commit``)."""
        decision, alone = decided
        outcome: _Decided | None = None
        try:
            if self._store is not None and (ahead is None or await ahead.written):
                ids = await self._store.reserve(account_id, decision.exactly, decision.reservations, now)
                if ids is not None:
                    outcome = decision.outcome(ids, alone)
        finally:
            self._landed(account_id, mine, landed=outcome is not None)
        if outcome is None:
            # Its first try was this write: the others read again (or at last lock the balance).
            again = _Read(read.entries, None)
            outcome = await self._commit(account_id, requests, again, tries=OPTIMISTIC_TRIES - 1)
        return outcome

    def _landed(self, account_id: int, write: _Ahead, *, landed: bool) -> None:
        """Say once whether ``write`` landed (the group behind it waits for this); the account's
        next group then reads the balance as committed."""
        if not write.written.done():
            write.written.set_result(landed)
        if self._ahead.get(account_id) is write:
            del self._ahead[account_id]

    async def _answer(
        self, account_id: int, admitted: _Group, deciding: Coroutine[Any, Any, _Decided]
    ) -> None:
        """Each request of the group answered what ``deciding`` decided for it (every one alone if it
        fails); then those to go alone, one by one."""
        try:
            decided = await deciding
        except Exception:  # any failure of the group: each request gets its own chance
            log.warning(
                "a batch of %d transfers failed; applying them one by one", len(admitted), exc_info=True
            )
            decided = _Decided({}, list(range(len(admitted))))
        for position, outcome in decided.outcomes.items():
            admitted[position].give(outcome)
        await self._one_by_one(account_id, [admitted[position] for position in decided.alone])

    async def _read(self, account_id: int, items: Sequence[_Request]) -> _Read:
        keys = [item.key for item in items]
        if self._store is None:
            return _Read(await self._looked_up(account_id, items), None)
        entries, seen = await asyncio.gather(
            self._looked_up(account_id, items), self._store.seen(account_id, keys)
        )
        return _Read(entries, seen)

    async def _looked_up(self, account_id: int, items: Sequence[_Request]) -> dict[str, DirectoryEntry]:
        """The directory's entries of the group's keys, looked up for the account's holder at once."""
        keys = [item.request.pix_key for item in items]
        return await self._directory.lookup_many(keys, payer=await self._payer(account_id))

    async def _commit(
        self,
        account_id: int,
        requests: Sequence[_Request],
        read: _Read | BaseException,
        *,
        tries: int = OPTIMISTIC_TRIES,
    ) -> _Decided:
        if isinstance(read, BaseException):
            raise read  # a read failed: the group cannot be decided
        items, alone = self._route(account_id, requests, read.entries)
        now = self._clock.now()
        seen = read.seen
        if self._store is not None:
            # Decided on the balance as committed, written only if the decision still holds (the
            # balance covers it, and is the same if it refused a transfer); if not (another
            # process's group, a receipt), read again, and at last lock it.
            for _ in range(tries):
                if seen is None:
                    seen = await self._store.seen(account_id, [r.item.key for r in items.values()])
                balance, taken = seen
                if balance is None:
                    raise AccountNotFound()
                decision = self._decide(account_id, items, balance.available, taken, now)
                ids = await self._store.reserve(account_id, decision.exactly, decision.reservations, now)
                if ids is not None:
                    return decision.outcome(ids, alone)
                seen = None
        async with self._uow() as tx:
            # The balance row locked, and the keys already taken found, by one statement.
            balance, taken = await tx.idempotency.find_many_and_lock(
                account_id, [routed.item.key for routed in items.values()]
            )
            if balance is None:
                raise AccountNotFound()
            decision = self._decide(account_id, items, balance.available, taken, now)
            if not decision.reservations:
                return decision.outcome([], alone)  # nothing to write: the unit rolls back
            ids = await reserve_many(tx, account_id, decision.reservations, now)
            if ids is None:
                raise _GroupAbandoned("a key was claimed meanwhile by another unit of work")
            await tx.commit()
        return decision.outcome(ids, alone)

    @staticmethod
    def _route(
        account_id: int, requests: Sequence[_Request], entries: Mapping[str, DirectoryEntry]
    ) -> tuple[dict[int, _Routed], list[int]]:
        """The requests the rules route (by position, with their entries), and the positions of those
        they refuse: these go alone, after the group (exactly today's answer)."""
        items: dict[int, _Routed] = {}
        alone: list[int] = []
        for position, item in enumerate(requests):
            try:
                entry = check_destination(entries.get(item.request.pix_key.value), item.request, account_id)
            except RuleViolation:
                alone.append(position)
            else:
                items[position] = _Routed(item, entry)
        return items, alone

    def _decide(
        self,
        account_id: int,
        items: dict[int, _Routed],
        available: int,
        taken: Mapping[uuid.UUID, object],
        now: datetime,
    ) -> _Decision:
        """Each routed request in arrival order against the running ``available`` balance: a retry
        (its key taken, or repeated in the group) goes alone, one not covered fails alone."""
        refused: dict[int, _Outcome] = {}
        retries: list[int] = []
        keys: set[uuid.UUID] = set()
        covered: list[int] = []
        running = available
        for position, routed in items.items():
            item = routed.item
            if item.key in taken or item.key in keys:
                retries.append(position)  # it replays (or is refused) as it would alone
                continue
            keys.add(item.key)
            if item.request.amount > running:
                refused[position] = InsufficientFunds()
            else:
                running -= item.request.amount
                covered.append(position)
        reservations = [
            reservation(
                account_id=account_id,
                key=items[position].item.key,
                fingerprint=items[position].item.fingerprint,
                request=items[position].item.request,
                entry=items[position].entry,
                ispb=self._ispb,
                now=now,
                norm_delay=self._norm_delay,
            )
            for position in covered
        ]
        return _Decision(available, running, refused, retries, covered, reservations)
