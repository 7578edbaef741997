"""Counting the transfers settlement finishes, without teaching ``pixcore`` about metrics.

:func:`counting_transfers` wraps a unit-of-work factory: its units pass everything through to
the wrapped ones, note each transfer they finish (``transfers.finish``, ``finish_many``), and report those to
``on_finished`` only once the unit has committed; a unit that rolls back reports nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self, cast

from pixcore.transfers.ports import TransferRepository
from pixcore.transfers.rules import TransferState
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = ["FinishedCallback", "counting_transfers"]

FinishedCallback = Callable[[str, str | None], None]
"""Called with the final state (``COMPLETED``, ``ERROR``) and the SPI error code, if any."""


class _CountingTransfers:
    def __init__(self, inner: TransferRepository, finished: list[tuple[str, str | None]]) -> None:
        self._inner = inner
        self._finished = finished

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def finish(
        self, transaction_id: int, state: TransferState, error_code: str | None, at: datetime
    ) -> None:
        await self._inner.finish(transaction_id, state, error_code, at)
        self._finished.append((state.value, error_code))

    async def finish_many(
        self, finished: Sequence[tuple[int, TransferState, str | None]], at: datetime
    ) -> None:
        await self._inner.finish_many(finished, at)
        self._finished.extend((state.value, error_code) for _, state, error_code in finished)


class _CountingUnitOfWork:
    def __init__(self, inner: UnitOfWork, on_finished: FinishedCallback) -> None:
        self._inner = inner
        self._on_finished = on_finished
        self._finished: list[tuple[str, str | None]] = []
        self._transfers: TransferRepository | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def transfers(self) -> TransferRepository:
        if self._transfers is None:
            self._transfers = cast(
                TransferRepository, _CountingTransfers(self._inner.transfers, self._finished)
            )
        return self._transfers

    async def __aenter__(self) -> Self:
        self._inner = await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._transfers = None
        await self._inner.__aexit__(exc_type, exc, tb)

    async def commit(self) -> None:
        await self._inner.commit()
        finished, self._finished[:] = list(self._finished), []
        for state, error_code in finished:
            self._on_finished(state, error_code)

    async def rollback(self) -> None:
        self._finished.clear()
        await self._inner.rollback()


def counting_transfers(factory: UnitOfWorkFactory, on_finished: FinishedCallback) -> UnitOfWorkFactory:
    """``factory``'s units of work, reporting each transfer they finish once they commit."""

    def unit_of_work() -> UnitOfWork:
        return cast(UnitOfWork, _CountingUnitOfWork(factory(), on_finished))

    return unit_of_work
