"""The tests' support holds no database: no module of ``tests/support/`` keeps a container at module
level (what a session fixture could fill with the run's ``Database`` for helpers to read), nor any
name typed or made as a database, pool, connection or unit of work. A helper that needs the
database is handed it, or a unit-of-work factory on it (the ``pg_uow`` fixture)."""

from __future__ import annotations

import ast
from pathlib import Path

SUPPORT = Path(__file__).resolve().parents[2] / "support"

MUTABLE_CALLS = frozenset(
    {"list", "dict", "set", "bytearray", "defaultdict", "deque", "OrderedDict", "Counter"}
)
HOLDERS = ("Database", "Pool", "Connection", "UnitOfWork", "ContextVar")
"""Names that, in a module-level name's annotation or value, say it holds a database (or a way to
one that a fixture could set for the helpers)."""


def _called(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        return (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
    return None


def module_level_holders(source: str, module: str) -> list[str]:
    """The module-level names of ``source`` bound to a mutable container or to anything (by its
    annotation or its value) of ``HOLDERS``; ``__all__`` (which lists names) and type aliases
    (which name a type, not a value) aside."""
    found = []
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.Assign):
            targets, annotation, value = statement.targets, None, statement.value
        elif isinstance(statement, ast.AnnAssign):
            if ast.unparse(statement.annotation) in {"TypeAlias", "typing.TypeAlias"}:
                continue
            targets, annotation, value = [statement.target], statement.annotation, statement.value
        elif isinstance(statement, ast.AugAssign):
            targets, annotation, value = [statement.target], None, statement.value
        else:
            continue
        names = [target.id for target in targets if isinstance(target, ast.Name) and target.id != "__all__"]
        mutable = isinstance(
            value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp
        ) or (value is not None and _called(value) in MUTABLE_CALLS)
        typed = " ".join(ast.unparse(part) for part in (annotation, value) if part is not None)
        if mutable or any(holder in typed for holder in HOLDERS):
            found.extend(f"{module}.{name}" for name in names)
    return found


def test_no_module_of_the_test_support_holds_a_database() -> None:
    modules = sorted(SUPPORT.glob("*.py"))
    assert {path.name for path in modules} >= {"__init__.py", "clients.py", "databases.py", "processes.py"}
    held = [name for path in modules for name in module_level_holders(path.read_text(), path.stem)]
    assert held == []


def test_a_planted_holder_is_found() -> None:
    planted = """
from pixinfra.postgres.pool import Database
from pixinfra.persistence.uow import PostgresUnitOfWork

__all__ = ["helper"]
RUN_DATABASE: list[Database] = []
CACHE = {}
SEEN = set()
OPENED = [name for name in ()]
THE_ONE: Database | None = None
FACTORY = lambda: PostgresUnitOfWork(THE_ONE)
HASHER = object()
LIMIT: int = 3
NAMES = ("a", "b")
Units: TypeAlias = Callable[[], PostgresUnitOfWork]
"""
    assert module_level_holders(planted, "planted") == [
        "planted.RUN_DATABASE",
        "planted.CACHE",
        "planted.SEEN",
        "planted.OPENED",
        "planted.THE_ONE",
        "planted.FACTORY",
    ]
