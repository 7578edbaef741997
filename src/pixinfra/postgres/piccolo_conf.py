"""Piccolo's configuration module (``PICCOLO_CONF``): the app registry, and the engine of the
migration under way.

Piccolo is here for migrations only (docs/decisions/persistence.md). Its engine
exists only while :func:`pixinfra.postgres.database.migrate` runs: ``migrating`` holds it for the
duration, and Piccolo's ``engine_finder`` finds it as this module's ``DB``. Outside a migration
there is no ``DB``.
"""

from __future__ import annotations

from contextvars import ContextVar

from piccolo.conf.apps import AppRegistry
from piccolo.engine.postgres import PostgresEngine

__all__ = ["APP_REGISTRY", "migrating"]

APP_REGISTRY = AppRegistry(apps=["pixinfra.postgres.piccolo_app"])

migrating: ContextVar[PostgresEngine | None] = ContextVar("pixweb_migration_engine", default=None)


def __getattr__(name: str) -> PostgresEngine:
    # Piccolo reads ``DB`` (``getattr(module, "DB", None)``); it is there only while migrating.
    if name == "DB" and (engine := migrating.get()) is not None:
        return engine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
