"""Piccolo's configuration, for running `piccolo` commands from the project folder.

The service itself does not read this file: it makes Piccolo's engine only while it migrates
(``pixinfra.postgres.database.migrate``). A `piccolo` command is a process of its own, so its
engine is made here, where that process starts, on the database resolved the same way
(``PIX_DATABASE_URL``, or the embedded server under ``PIX_DATA_DIR``):

    .venv/bin/piccolo migrations check
"""

from __future__ import annotations

from piccolo.engine.postgres import PostgresEngine

from pixinfra.postgres.database import resolve_database_url
from pixinfra.postgres.piccolo_conf import APP_REGISTRY
from pixinfra.settings import get_settings

__all__ = ["APP_REGISTRY", "DB"]

DB = PostgresEngine(config={"dsn": resolve_database_url(get_settings())}, extensions=())
