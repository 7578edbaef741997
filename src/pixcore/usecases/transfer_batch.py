"""Group commit of the transfers one account sends (issue 17): one balance row, many requests.

Every transfer out of an account locks that account's balance row until its COMMIT, so
concurrent requests from one hot account queue on that lock one transaction at a time. A
:class:`TransferBatcher` gathers the requests of one process for one account (up to ``size``,
waiting at most ``window`` seconds for more) and applies them in ONE unit of work:

1. the balance row is locked once, and each transfer is decided in arrival order against the
   running available balance: one it does not cover fails alone with ``InsufficientFunds``;
2. the records, idempotency keys, transfers and ledger entries of the covered ones are written
   with one statement each, the balance updated once (guarded, as always), one COMMIT;
3. then every waiting request is answered. Nothing is answered before its COMMIT.

The keys the batch's requests pay are looked up in the directory with one statement when the
batch begins (before its unit of work opens). A request whose destination the rules refuse, whose
key is taken already, or that repeats the key of an earlier request of its batch takes the unbatched path
(:func:`~pixcore.usecases.transfers.create_transfer`) on its own, after the batch: its answer
is exactly today's. If the batch's unit of work fails for any reason (a key claimed meanwhile
by another process, a deadlock, a lost connection), its requests are applied one by one on the
unbatched path, so that one bad request never fails the others. ``size`` 1 is the unbatched path itself.

A request may bring its caller's :class:`~pixcore.ports.PendingCredential` (a token that verified,
whose certificate status is still to be read): the batch reads all of them with ONE statement
(``CertificateCheck.in_force_many``, which reads the service clock too) before anything else, and
refuses the token of each one whose certificate is no longer in force, or whose token expired on
the clock just read, with ``InvalidToken`` (the bearer check's own answer). Nothing is written
for it, and the check is never skipped: if it fails, every request of the batch gets that error.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeAlias

from pixcore import ledger
from pixcore.clock import Clock
from pixcore.errors import (
    AccountNotFound,
    InsufficientFunds,
    InvalidToken,
    RuleViolation,
)
from pixcore.ports import CertificateCheck, KeyDirectory, PendingCredential, UnitOfWork, UnitOfWorkFactory
from pixcore.transfers import DirectoryEntry, TransferRequest
from pixcore.usecases.group_commit import GroupCommit, Waiting
from pixcore.usecases.transfers import (
    CreatedTransfer,
    check_destination,
    create_transfer,
    new_records,
    request_fingerprint,
    stored,
)

__all__ = ["TransferBatcher"]

log = logging.getLogger(__name__)

_Outcome: TypeAlias = CreatedTransfer | RuleViolation


class _BatchAbandoned(Exception):
    """The batch cannot be applied as one: its requests go one by one."""


@dataclass(frozen=True, slots=True)
class _Request:
    key: uuid.UUID
    fingerprint: str
    request: TransferRequest
    credential: PendingCredential | None = None


@dataclass(frozen=True, slots=True)
class _Routed:
    """A request of the batch whose destination the rules accept, with its directory entry."""

    item: _Request
    entry: DirectoryEntry


_Batch: TypeAlias = list[Waiting[_Request, CreatedTransfer]]


@dataclass(frozen=True, slots=True)
class _Decided:
    """What one batch's unit of work decided: answers by position, and who goes alone afterwards."""

    outcomes: dict[int, _Outcome]
    alone: list[int]


def _refusal(
    credential: PendingCredential, in_force: set[PendingCredential], now: int
) -> InvalidToken | None:
    """The bearer check's answer, in its order: the token's window first, then the certificate."""
    if now >= credential.expires_at:
        return InvalidToken(InvalidToken.EXPIRED)
    if credential not in in_force:
        return InvalidToken(InvalidToken.REVOKED)
    return None


class TransferBatcher(GroupCommit[int, _Request, CreatedTransfer]):
    """Creates transfers as :func:`~pixcore.usecases.transfers.create_transfer` does, grouping
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
    ) -> None:
        super().__init__(size=size, window=window)
        self._uow, self._directory, self._clock = uow, directory, clock
        self._certificates = certificates
        self._ispb, self._norm_delay = ispb, norm_delay

    @property
    def checks_certificates(self) -> bool:
        """True when requests are grouped and their callers' certificates can be checked by their
        batch (``create(credential=...)``): one statement a batch instead of one a request."""
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
        batch does it; ``InvalidToken`` when it is no longer in force or the token expired)."""
        if not self.groups and credential is not None:
            refused = await self.refusal(credential)
            if refused is not None:
                raise refused
        item = _Request(idempotency_key, request_fingerprint(request), request, credential)
        return await self._submit(account_id, item)

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

    async def _admitted(self, batch: _Batch) -> _Batch:
        """The requests of the batch whose callers are (still) admitted; the others are answered."""
        pending = [waiting for waiting in batch if waiting.item.credential is not None]
        if not pending:
            return batch
        refusals = await self._refusals([w.item.credential for w in pending if w.item.credential])
        refused: set[int] = set()
        for waiting, refusal in zip(pending, refusals, strict=True):
            if refusal is not None:
                waiting.give(refusal)
                refused.add(id(waiting))
        return [waiting for waiting in batch if id(waiting) not in refused]

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
        )

    async def _apply(self, account_id: int, batch: _Batch) -> None:
        batch = await self._admitted(batch)  # its failure answers every request: never skipped
        if not batch:
            return
        try:
            decided = await self._commit(account_id, batch)
        except Exception:  # any failure of the batch: each request gets its own chance
            log.warning("a batch of %d transfers failed; applying them one by one", len(batch), exc_info=True)
            decided = _Decided({}, list(range(len(batch))))
        for position, outcome in decided.outcomes.items():
            batch[position].give(outcome)
        await self._one_by_one(account_id, [batch[position] for position in decided.alone])

    async def _commit(self, account_id: int, batch: _Batch) -> _Decided:
        requests = [waiting.item for waiting in batch]
        # The batch's keys looked up with one statement, before the unit of work opens (no request
        # holds two connections at once); a request the rules refuse goes alone, after the batch.
        entries = await self._directory.lookup_many([item.request.pix_key for item in requests])
        items: dict[int, _Routed] = {}
        alone: list[int] = []
        for position, item in enumerate(requests):
            try:
                entry = check_destination(entries.get(item.request.pix_key.value), item.request, account_id)
            except RuleViolation:
                alone.append(position)  # refused (or a retry to replay): exactly today's answer, alone
            else:
                items[position] = _Routed(item, entry)
        now = self._clock.now()
        outcomes: dict[int, _Outcome] = {}
        async with self._uow() as tx:
            # The balance row locked, and the keys already taken found, by one statement.
            balance, taken = await tx.idempotency.find_many_and_lock(
                account_id, [routed.item.key for routed in items.values()]
            )
            if balance is None:
                raise AccountNotFound()
            fresh: list[int] = []
            keys: set[uuid.UUID] = set()
            for position, routed in items.items():
                item = routed.item
                if item.key in taken or item.key in keys:
                    alone.append(position)  # a retry: it replays (or is refused) as it would alone
                else:
                    keys.add(item.key)
                    fresh.append(position)
            running = balance.available
            covered: list[int] = []
            for position in fresh:
                amount = items[position].item.request.amount
                if amount > running:
                    outcomes[position] = InsufficientFunds()
                else:
                    running -= amount
                    covered.append(position)
            if covered:
                created = await self._reserve(tx, account_id, [items[p] for p in covered], now)
                outcomes.update(zip(covered, created, strict=True))
            await tx.commit()
        return _Decided(outcomes, alone)

    async def _reserve(
        self, tx: UnitOfWork, account_id: int, routed: Sequence[_Routed], now: datetime
    ) -> list[CreatedTransfer]:
        """``_reserve`` of the unbatched path for many transfers, with one statement per table."""
        items = [r.item for r in routed]
        made = [
            new_records(
                account_id=account_id,
                key=r.item.key,
                request=r.item.request,
                entry=r.entry,
                ispb=self._ispb,
                now=now,
                norm_delay=self._norm_delay,
            )
            for r in routed
        ]
        ids, claimed = await tx.idempotency.add_and_claim_many(
            account_id, [record for record, _ in made], [(item.key, item.fingerprint) for item in items], now
        )
        if len(claimed) != len(items):
            raise _BatchAbandoned("a key was claimed meanwhile by another unit of work")
        transfers = [make(tid) for (_, make), tid in zip(made, ids, strict=True)]
        await tx.transfers.add_many(transfers)
        await tx.ledger.post_many(
            [
                (tid, ledger.reserve(account_id, item.request.amount))
                for item, tid in zip(items, ids, strict=True)
            ],
            now,
        )
        return [CreatedTransfer(stored(new), replayed=False) for new in transfers]
