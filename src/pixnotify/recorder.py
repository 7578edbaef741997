"""Outcomes of attempts stored in groups: one statement (one commit) for all that finished together.

The first delivery to finish writes its outcome at once; outcomes that finish while that write is
under way wait and go together in the next one (as PostgreSQL groups commits). Nothing waits for a
timer, so a lone delivery is stored as soon as it ends, and under load a write carries many.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from pixcore.webhooks.delivery import Attempted, Claim, Verdict
from pixcore.webhooks.ports import DeliveryStore

__all__ = ["Recorder"]


class Recorder:
    def __init__(self, store: DeliveryStore) -> None:
        self.store = store
        self._waiting: list[tuple[Attempted, asyncio.Future[bool]]] = []
        self._writing = False

    async def record(
        self,
        claim: Claim,
        verdict: Verdict,
        *,
        attempted_at: datetime,
        status_code: int | None,
        duration_ms: int = 0,
        error: str | None = None,
        response_body: str | None = None,
    ) -> bool:
        """Store one outcome and its line of the attempt log; False if the lease had been lost
        (nothing stored)."""
        outcome = Attempted(claim, verdict, attempted_at, status_code, duration_ms, error, response_body)
        if verdict.deactivate:  # rare, and two tables: a transaction of its own
            return await self.store.record(
                claim,
                verdict,
                attempted_at=attempted_at,
                status_code=status_code,
                duration_ms=duration_ms,
                error=error,
                response_body=response_body,
            )
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((outcome, done))
        if not self._writing:
            await self._write()
        return await done

    async def _write(self) -> None:
        """Write groups until none is waiting; if a write fails or is cancelled, its waiters get an error."""
        self._writing = True
        group: list[tuple[Attempted, asyncio.Future[bool]]] = []
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                try:
                    kept = await self.store.record_many([outcome for outcome, _ in group])
                except Exception as exc:  # noqa: BLE001 - handed to every waiter, none may hang
                    for _, done in group:
                        done.set_exception(exc)
                else:
                    for outcome, done in group:
                        done.set_result(outcome.claim.id in kept)
                group = []
        except BaseException as exc:  # cancelled mid-write: the writes' fate is unknown
            for _, done in group + self._waiting:
                if not done.done():
                    done.set_exception(RuntimeError(f"storing the outcome was interrupted ({exc!r})"))
                    done.exception()  # marks it seen: the cancelled writer's own future has no reader
            self._waiting = []
            raise
        finally:
            self._writing = False
