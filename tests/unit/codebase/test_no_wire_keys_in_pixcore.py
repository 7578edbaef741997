"""No wire key is read inside ``pixcore``: the edge (``pixweb.api``) maps each body onto a typed
value with the domain's names, and ``pixcore`` reads attributes, never a body's keys.

Two scans of ``src/pixcore``'s syntax trees:

* no dict key read by name: ``x["key"]``, ``x.get("key")`` (``pop``, ``setdefault``) or
  ``"key" in x`` with a string that is a name. Numeric keys are allowed: they are the BR Code's
  own two-digit tags (``pixcore.brcode`` parses the EMV format, which is the domain's).
* no parameter named after a field of the API's request bodies, unless the domain uses that
  name for its own values too (``amount``, ``description``): ``RefundRequest.parse(valor=...)``
  fails it. The wire names come from the request structs of ``pixweb.api`` themselves, so a new
  endpoint is covered without an edit here.

The messages users see still name the body's fields (``valor: required ...``): they are strings,
not keys, and stay word for word.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import msgspec

import pixcore
import pixweb

SRC = Path(__file__).resolve().parents[3] / "src"
PIXCORE = SRC / "pixcore"
_NAME = re.compile(r"[A-Za-z_]\w*")
_READS = frozenset({"get", "pop", "setdefault"})

# (file under src/, function): the notifier's one read of a payload stored in the outbox. The use
# cases write typed events (pixcore.events, whose ``payload`` writes the keys and reads none); the
# outbox stores where each goes beside it, so the notifier routes without reading the payload and
# only encodes the envelope it sends.
ALLOWED_READS = frozenset(
    {
        ("pixcore/webhooks/delivery.py", "encode_body"),  # the {type, data} envelope it signs
    }
)

# English words the wire and the domain share that no field of a pixcore dataclass happens to carry
# (the payer of a receipt is a Counterpart; a transfer's currency is checked, never stored).
SHARED = frozenset({"currency", "payer"})


@dataclasses.dataclass(frozen=True)
class Found:
    path: str
    function: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function}(): {self.name!r}"


def _functions(tree: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Every node with the name of the innermost function around it (``<module>`` outside any)."""

    def walk(node: ast.AST, where: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else where
            yield inner, child
            yield from walk(child, inner)

    yield from walk(tree, "<module>")


def _key_read(node: ast.AST) -> str | None:
    """The string key ``node`` reads from a mapping, if it reads one."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return node.slice.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _READS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    if (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and all(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
    ):
        return node.left.value
    return None


def key_reads(source: str, path: str) -> list[Found]:
    """The reads of a mapping by a key that is a name, in ``source``."""
    found: list[Found] = []
    for function, node in _functions(ast.parse(source)):
        key = _key_read(node)
        if key is not None and _NAME.fullmatch(key):
            found.append(Found(path, function, getattr(node, "lineno", 0), key))
    return found


def parameters(source: str, path: str) -> list[Found]:
    """Every parameter name of every function and lambda in ``source``."""
    found: list[Found] = []
    for function, node in _functions(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            name = node.name if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else function
            found.extend(Found(path, name, a.lineno, a.arg) for a in every if a is not None)
    return found


def _pixcore_sources() -> Iterator[tuple[str, str]]:
    for file in sorted(PIXCORE.rglob("*.py")):
        yield file.relative_to(SRC).as_posix(), file.read_text(encoding="utf-8")


def _request_structs() -> set[type[msgspec.Struct]]:
    """The request bodies of the API: the ``*In`` structs of ``pixweb``, nested ones too."""
    structs: set[type[msgspec.Struct]] = set()
    for info in pkgutil.walk_packages(pixweb.__path__, "pixweb."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, msgspec.Struct)
                and name.endswith("In")
                and value.__module__ == module.__name__
            ):
                structs.add(value)
    return structs


def wire_names() -> set[str]:
    """Every field name the API's request bodies carry on the wire (``pixKey``, ``valor`` ...)."""
    return {field.encode_name for struct in _request_structs() for field in msgspec.structs.fields(struct)}


def domain_names() -> set[str]:
    """The names pixcore gives its own values: the fields of its dataclasses, and :data:`SHARED`."""
    names: set[str] = set(SHARED)
    for info in pkgutil.walk_packages(pixcore.__path__, "pixcore."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and dataclasses.is_dataclass(value):
                names.update(field.name for field in dataclasses.fields(value))
    return names


def foreign_names() -> set[str]:
    """The wire's names that are not the domain's own."""
    return wire_names() - domain_names()


def test_the_scans_find_what_they_look_for() -> None:
    # The checks below pass only because they find nothing: they must find a wire read when there is one.
    source = (
        "def parse(valor, *, natureza=None):\n"
        "    found = body['valor'], body.get('natureza'), 'descricao' in body, tags['00']\n"
        "    return found, f(lambda chave: 1)\n"
    )
    assert [(f.function, f.name) for f in key_reads(source, "x.py")] == [
        ("parse", "valor"),
        ("parse", "natureza"),
        ("parse", "descricao"),
    ]
    assert [(f.function, f.name) for f in parameters(source, "x.py")] == [
        ("parse", "valor"),
        ("parse", "natureza"),
        ("parse", "chave"),
    ]


def test_the_wire_names_are_those_of_the_request_bodies() -> None:
    foreign = foreign_names()
    # The Portuguese keys of the standard's bodies, and the English wire's camelCase ones.
    assert {"valor", "natureza", "descricao", "calendario", "expiracao", "chave", "devedor"} <= foreign
    assert {"pixKey", "externalId", "expirationTime", "solicitacaoPagador", "infoAdicionais"} <= foreign
    # A name both sides use is the domain's too, and allowed.
    assert {"amount", "description"} <= wire_names() & domain_names()
    assert wire_names() >= SHARED  # a shared word the wire no longer carries leaves the list


def test_pixcore_reads_no_body_key() -> None:
    reads = [f for path, source in _pixcore_sources() for f in key_reads(source, path)]
    unexpected = [f for f in reads if (f.path, f.function) not in ALLOWED_READS]
    assert not unexpected, "wire keys read inside pixcore (map them at the edge):\n" + "\n".join(
        map(str, unexpected)
    )
    # Every allowance is still needed: one that reads nothing any more is removed from the list.
    assert {(f.path, f.function) for f in reads} >= ALLOWED_READS


def test_no_pixcore_parameter_is_named_after_a_wire_field() -> None:
    foreign = foreign_names()
    named = [f for path, source in _pixcore_sources() for f in parameters(source, path) if f.name in foreign]
    assert not named, "pixcore parameters named after the wire's fields (use the domain's names):\n" + (
        "\n".join(map(str, named))
    )
