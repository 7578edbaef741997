"""No module in ``src/`` holds a database pool, connection or engine at import: the process's
``Database`` is created where the process starts and handed to whoever needs it."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import asyncpg
import pytest
from piccolo.engine.base import Engine
from piccolo.engine.postgres import PostgresEngine

import pixcore
import pixinfra
import pixnotify
import pixservice
import pixweb
from pixinfra.postgres.pool import Database

HELD = (asyncpg.Pool, asyncpg.Connection, Engine, Database)


def every_module() -> list[ModuleType]:
    modules: list[ModuleType] = []
    for package in (pixcore, pixinfra, pixweb, pixnotify, pixservice):
        modules.append(package)
        names = [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
        modules.extend(importlib.import_module(name) for name in names)
    return modules


def held_at_module_level(module: ModuleType) -> list[str]:
    """The module's attributes that are a pool, a connection, an engine or a Database, also one
    level inside a container (a dict of engines is a module-level engine too)."""
    found = []
    for name, value in vars(module).items():
        inside = (
            list(value.values())
            if isinstance(value, dict)
            else value
            if isinstance(value, list | tuple | set)
            else []
        )
        if isinstance(value, HELD) or any(isinstance(item, HELD) for item in inside):
            found.append(f"{module.__name__}.{name}")
    return found


def test_no_module_holds_a_pool_or_an_engine() -> None:
    modules = every_module()
    assert len(modules) > 50
    held = [name for module in modules for name in held_at_module_level(module)]
    assert held == []


def test_piccolo_finds_an_engine_only_while_migrating() -> None:
    from pixinfra.postgres import piccolo_conf

    with pytest.raises(AttributeError):
        _ = piccolo_conf.DB
    engine = piccolo_conf.PostgresEngine.__new__(
        piccolo_conf.PostgresEngine
    )  # no version check: no server here
    token = piccolo_conf.migrating.set(engine)
    try:
        assert piccolo_conf.DB is engine
    finally:
        piccolo_conf.migrating.reset(token)
    with pytest.raises(AttributeError):
        _ = piccolo_conf.DB


def test_a_planted_engine_is_found() -> None:
    planted = ModuleType("planted")
    planted.DB = Database()  # type: ignore[attr-defined]
    planted.ENGINES = {"main": PostgresEngine.__new__(PostgresEngine)}  # type: ignore[attr-defined]
    planted.harmless = 1  # type: ignore[attr-defined]
    assert held_at_module_level(planted) == ["planted.DB", "planted.ENGINES"]
