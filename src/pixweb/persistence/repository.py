"""The base of every PostgreSQL repository: it runs on its unit of work's connection."""

from __future__ import annotations

from typing import Any, Protocol

import asyncpg

__all__ = ["Repository"]


class _HasConnection(Protocol):
    @property
    def connection(self) -> asyncpg.Connection[Any]: ...


class Repository:
    def __init__(self, uow: _HasConnection) -> None:
        self._uow = uow

    @property
    def _conn(self) -> asyncpg.Connection[Any]:
        return self._uow.connection
