"""No private attribute of another object is read or written in ``src/``: not a library's (an
upgrade could change it under the money paths without a word), nor another module's of ours.

``x._name`` is allowed only where ``x`` is ``self`` or ``cls`` (an object's own state); dunders
are public. ``from module import _name`` and ``getattr(x, "_name")`` count as reaching in too.
There is no allow-list: the fakes of ``pixcore.testing``, which share their store's tables,
sequences and locks across modules, do it through public names.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def reaching_in(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` for every private name of another object or module used in ``source``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in {"self", "cls"}):
                found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ImportFrom):
            found.extend((node.lineno, alias.name) for alias in node.names if _private(alias.name))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "setattr", "hasattr", "delattr"}
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            found.append((node.lineno, node.args[1].value))
    return sorted(found)


def scan(root: Path) -> dict[tuple[str, str], list[int]]:
    """Every use of another's private name under ``root``, by (file, name)."""
    uses: dict[tuple[str, str], list[int]] = {}
    for path in sorted(root.rglob("*.py")):
        for line, name in reaching_in(path.read_text(encoding="utf-8")):
            uses.setdefault((path.relative_to(root).as_posix(), name), []).append(line)
    return uses


def test_src_reaches_into_no_private_attribute() -> None:
    uses = scan(SRC)
    assert not uses, sorted(f"src/{file}:{lines[0]}: {name}" for (file, name), lines in uses.items())


def test_the_scan_finds_each_way_of_reaching_in() -> None:
    planted = """
transport._pool = make_pool()
was = transaction._rolled_back or not transaction._committed
engine.current_transaction.reset(token)
from piccolo.engine import _helper
flag = getattr(transaction, "_committed", False)
setattr(transport, "_pool", pool)
self._own = 1
cls._registry = {}
name = obj.__class__.__name__
self._uow.store._next_id += 1
"""
    assert reaching_in(planted) == [
        (2, "_pool"),
        (3, "_committed"),
        (3, "_rolled_back"),
        (5, "_helper"),
        (6, "_committed"),
        (7, "_pool"),
        (11, "_next_id"),
    ]


def test_a_planted_file_fails_the_scan(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "client.py").write_text("client._transport._pool = None\n", encoding="utf-8")
    assert scan(tmp_path) == {("pkg/client.py", "_transport"): [1], ("pkg/client.py", "_pool"): [1]}
