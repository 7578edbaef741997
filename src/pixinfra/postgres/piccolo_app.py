"""The Piccolo app of the service: its migrations folder (no tables: every query is SQL on asyncpg)."""

from __future__ import annotations

from pathlib import Path

from piccolo.conf.apps import AppConfig

__all__ = ["APP_CONFIG"]

APP_CONFIG = AppConfig(
    app_name="pixweb",
    migrations_folder_path=str(Path(__file__).parent / "piccolo_migrations"),
    table_classes=[],
    migration_dependencies=[],
    commands=[],
)
