"""The base of every PostgreSQL repository: it runs on its unit of work's connection."""

from __future__ import annotations

from typing import Any, Protocol

from asyncpg.pool import PoolConnectionProxy

__all__ = ["Repository"]


class _HasConnection(Protocol):
    @property
    def connection(self) -> PoolConnectionProxy[Any]: ...


class Repository:
    def __init__(self, uow: _HasConnection) -> None:
        self._uow = uow

    @property
    def _conn(self) -> PoolConnectionProxy[Any]:
        return self._uow.connection
