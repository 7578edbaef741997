"""The Piccolo app of the service: its tables and its migrations folder."""

from __future__ import annotations

from pathlib import Path

from piccolo.conf.apps import AppConfig

from pixweb.persistence.tables import TABLES

__all__ = ["APP_CONFIG"]

APP_CONFIG = AppConfig(
    app_name="pixweb",
    migrations_folder_path=str(Path(__file__).parent / "piccolo_migrations"),
    table_classes=list(TABLES),
    migration_dependencies=[],
    commands=[],
)
