"""Whether a database is current is decided from the migration files' ids, read without Piccolo:
they must be the ids Piccolo itself reads from the same files."""

from __future__ import annotations

import importlib

from pixinfra.postgres.database import MIGRATIONS, migration_ids


def test_the_ids_read_from_the_files_are_the_modules_ids() -> None:
    modules = sorted(path.stem for path in MIGRATIONS.glob("*.py") if path.stem != "__init__")
    ids = {importlib.import_module(f"pixinfra.postgres.piccolo_migrations.{name}").ID for name in modules}

    assert len(ids) == len(modules) > 20
    assert migration_ids() == ids
