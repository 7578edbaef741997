"""Piccolo's configuration, for running `piccolo` commands from the project folder.

The service itself does not read this file: it binds the engine at start-up
(``pixweb.runtime``). Here the database is resolved the same way, so that
``PIX_DATABASE_URL``, or the embedded server under ``PIX_DATA_DIR``, is used:

    .venv/bin/piccolo migrations check
"""

from __future__ import annotations

from pixweb.persistence import engine
from pixweb.persistence.database import resolve_database_url
from pixweb.persistence.piccolo_conf import APP_REGISTRY, DB
from pixweb.settings import get_settings

__all__ = ["APP_REGISTRY", "DB"]

if not DB.config:
    engine.bind(resolve_database_url(get_settings()))
