"""No wire key is read or written inside ``pixcore``: the edge (``pixweb``) maps each body onto a
typed value with the domain's names, ``pixcore`` reads attributes, never a body's keys, and the
adapters write the JSON of what ``pixcore`` hands them (``pixinfra.event_payloads``).

Three scans of ``src/pixcore``'s syntax trees:

* no dict key read by name: ``x["key"]``, ``x.get("key")`` (``pop``, ``setdefault``) or
  ``"key" in x`` with a string that is a name. Numeric keys are allowed: they are the BR Code's
  own two-digit tags (``pixcore.brcode`` parses the EMV format, which is the domain's).
* no dict written with a key that is not the domain's: ``{"key": ...}``, ``x["key"] = ...``,
  ``dict(key=...)`` with a name that no pixcore dataclass has as a field; and no wire name (a field
  of any of the API's structs, requests, answers and notifications, that is not the domain's, or
  a camelCase name) compared (``x == "key"``, ``x in ("key", ...)``, ``case "key":``) or
  assigned (``x = "key"``).
* no parameter named after a field of the API's request bodies, unless the domain uses that
  name for its own values too (``amount``, ``description``): ``RefundRequest.parse(valor=...)``
  fails it. The wire names come from the structs of ``pixweb`` themselves, so a new endpoint is
  covered without an edit here.

And a fourth of its strings: no message names a field by the wire's name (``"valor: required"``,
``f"fim: must not be before inicio"``): a problem names its field by a typed reference
(``pixcore.problems``) and ``pixweb`` renders it with the wire's path, so the messages users see
stay word for word. The wire's names here are those of the request bodies, the paths the features
declare for their fields (query parameters too), and any camelCase name.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

import pixcore
import pixweb
import pixweb.app  # every feature's module declares its fields' wire paths
from pixweb.field_paths import declared_paths

SRC = Path(__file__).resolve().parents[3] / "src"
PIXCORE = SRC / "pixcore"
_NAME = re.compile(r"[A-Za-z_]\w*")
_READS = frozenset({"get", "pop", "setdefault"})

# (file under src/, function): the notifier's one read of a payload stored in the outbox. The use
# cases write typed events (pixcore.events; the outbox adapter writes their JSON with
# pixinfra.event_payloads); the outbox stores where each goes beside it, so the notifier routes
# without reading the payload and only encodes the envelope it sends.
ALLOWED_READS = frozenset(
    {
        ("pixcore/webhooks/delivery.py", "encode_body"),  # the {type, data} envelope it signs
    }
)

# (file under src/, function): where pixcore writes a wire key all the same. The notifier's envelope:
# it sends a payload stored in the outbox as ``{type, data}``, rebuilt in that order from the
# stored JSON whatever order its store gives the keys in.
ALLOWED_WRITES = frozenset(
    {
        ("pixcore/webhooks/delivery.py", "encode_body"),
    }
)

# Keys of a library's own API that pixcore writes: the ``transitions`` package's transition specs.
LIBRARY_KEYS = frozenset({"trigger", "source", "dest", "conditions", "unless", "before", "after"})

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


_CAMEL = re.compile(r"[a-z][a-z0-9]*[A-Z]\w*")


def _strings(node: ast.AST | None) -> Iterator[str]:
    """The string constants ``node`` is, or holds as the items of a tuple, list or set display."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for item in node.elts:
            yield from _strings(item)


def _keys_written(node: ast.AST) -> Iterator[str]:
    """The string keys ``node`` writes into a mapping: a dict display's, a subscript assigned or
    deleted, the keywords of a ``dict(...)`` call."""
    if isinstance(node, ast.Dict):
        for key in node.keys:
            yield from _strings(key) if isinstance(key, ast.Constant) else ()
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        yield from _strings(node.slice) if isinstance(node.slice, ast.Constant) else ()
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        yield from (keyword.arg for keyword in node.keywords if keyword.arg is not None)


def _strings_compared_or_assigned(node: ast.AST) -> Iterator[str]:
    """The strings ``node`` compares something with (``==``, ``!=``, ``in``, a ``case``) or
    assigns to a name or attribute."""
    if isinstance(node, ast.Compare):
        for operand in (node.left, *node.comparators):
            yield from _strings(operand)
    elif isinstance(node, ast.MatchValue | ast.Assign | ast.AnnAssign):
        yield from _strings(node.value)  # a subscript assigned is a key written, checked as one


def key_writes(source: str, path: str, *, domain: set[str], wire: set[str]) -> list[Found]:
    """The wire keys ``source`` writes: a key written into a mapping that is a name and not one
    of ``domain`` (nor of :data:`LIBRARY_KEYS`), a string compared or assigned that is one of
    ``wire`` or camelCase."""
    found: list[Found] = []
    for function, node in _functions(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        keys = [k for k in _keys_written(node) if _NAME.fullmatch(k) and k not in domain | LIBRARY_KEYS]
        texts = [t for t in _strings_compared_or_assigned(node) if t in wire or _CAMEL.fullmatch(t)]
        found.extend(Found(path, function, line, name) for name in (*keys, *texts))
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


def _structs() -> dict[str, type[msgspec.Struct]]:
    """Every msgspec struct ``pixweb`` defines, by name: its bodies, answers and notifications."""
    structs: dict[str, type[msgspec.Struct]] = {}
    for info in pkgutil.walk_packages(pixweb.__path__, "pixweb."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, msgspec.Struct)
                and value.__module__ == module.__name__
            ):
                structs[f"{module.__name__}.{name}"] = value
    return structs


def _request_structs() -> set[type[msgspec.Struct]]:
    """The request bodies of the API: the ``*In`` structs of ``pixweb``, nested ones too."""
    return {struct for struct in _structs().values() if struct.__name__.endswith("In")}


def _names(structs: Iterable[type[msgspec.Struct]]) -> set[str]:
    return {field.encode_name for struct in structs for field in msgspec.structs.fields(struct)}


def wire_names() -> set[str]:
    """Every field name the API's request bodies carry on the wire (``pixKey``, ``valor`` ...)."""
    return _names(_request_structs())


def written_wire_names() -> set[str]:
    """Every field name the API's structs carry on the wire, bodies, answers and notifications
    (``endToEndId``, ``horario``, ``devolucoes`` ...), that is not the domain's own."""
    return _names(_structs().values()) - domain_names()


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


def test_the_write_scan_finds_a_builder() -> None:
    # The write check below passes only because it finds nothing: it must find a builder.
    source = (
        "def pix_item(event):\n"
        "    item = {'endToEndId': event.e2e, 'valor': text, 'amount': 1, '00': tag}\n"
        "    item['chave'] = event.key\n"
        "    body = dict(horario=now)\n"
        "    field = 'devolucoes'\n"
        "    if name == 'infoPagador' or name in ('solicitacaoPagador', 'status'):\n"
        "        pass\n"
        "    match name:\n"
        "        case 'txId':\n"
        "            pass\n"
        "    spec = {'trigger': 'settle', 'source': 'A', 'dest': 'B'}\n"
        "    return item, body, field, spec, 'valor'\n"
    )
    found = key_writes(source, "x.py", domain={"amount", "status"}, wire={"valor", "devolucoes", "chave"})
    assert [(f.function, f.name) for f in found] == [
        ("pix_item", "endToEndId"),
        ("pix_item", "valor"),
        ("pix_item", "chave"),
        ("pix_item", "horario"),
        ("pix_item", "devolucoes"),
        ("pix_item", "infoPagador"),
        ("pix_item", "solicitacaoPagador"),
        ("pix_item", "txId"),
    ]


def test_the_written_wire_names_include_the_answers_and_the_notifications() -> None:
    written = written_wire_names()
    assert {"endToEndId", "horario", "devolucoes", "creditDebitType", "webhookId", "sentAt"} <= written
    assert {"amount", "status", "txid"} <= domain_names() - written  # the domain's own names are its own
    assert not LIBRARY_KEYS & written_wire_names()


def test_pixcore_writes_no_wire_key() -> None:
    domain, wire = domain_names(), written_wire_names()
    writes = [
        f for path, source in _pixcore_sources() for f in key_writes(source, path, domain=domain, wire=wire)
    ]
    unexpected = [f for f in writes if (f.path, f.function) not in ALLOWED_WRITES]
    assert not unexpected, "wire keys written inside pixcore (write the JSON in the adapter):\n" + "\n".join(
        map(str, unexpected)
    )
    # Every allowance is still needed: one that writes nothing any more is removed from the list.
    assert {(f.path, f.function) for f in writes} >= ALLOWED_WRITES


def test_no_pixcore_parameter_is_named_after_a_wire_field() -> None:
    foreign = foreign_names()
    named = [f for path, source in _pixcore_sources() for f in parameters(source, path) if f.name in foreign]
    assert not named, "pixcore parameters named after the wire's fields (use the domain's names):\n" + (
        "\n".join(map(str, named))
    )


_FIELD_PREFIX = re.compile(r"(?:^|(?<=[\s(]))([A-Za-z_][\w.\[\]]*(?:, [A-Za-z_][\w.\[\]]*)*): ")
_SEGMENT = re.compile(r"[A-Za-z_]\w*")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that stand alone as statements (docstrings)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _texts(tree: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Every string the code writes (an f-string with ``{}`` for its values), docstrings left out."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(part) for part in node.values)
            yield (
                "".join(
                    p.value if isinstance(p, ast.Constant) and isinstance(p.value, str) else "{}"
                    for p in node.values
                ),
                node,
            )
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.value, node


def message_fields(source: str, path: str, *, wire: set[str]) -> list[Found]:
    """The wire's field names ``source``'s strings give as a message's field (``name: why``,
    ``a.b, c: why``): one of ``wire``, or camelCase."""
    found: list[Found] = []
    tree = ast.parse(source)
    lines: dict[int, tuple[str, int]] = {}
    for function, node in _functions(tree):
        lines[id(node)] = (function, getattr(node, "lineno", 0))
    for text, node in _texts(tree):
        for match in _FIELD_PREFIX.finditer(text):
            names = _SEGMENT.findall(match.group(1))
            if any(name in wire or _CAMEL.fullmatch(name) for name in names):
                function, line = lines.get(id(node), ("<module>", 0))
                found.append(Found(path, function, line, match.group(1)))
    return found


def message_wire_names() -> set[str]:
    """The names a message may not give a field: the request bodies' and the declared paths'
    that are not the domain's."""
    declared = {name for path in declared_paths().values() for name in _SEGMENT.findall(path)}
    return (wire_names() | declared) - domain_names()


def test_the_message_scan_finds_a_wire_field() -> None:
    # The check below passes only because it finds nothing: it must find a message naming a wire field.
    source = (
        "def parse(x):\n"
        "    problems.append('valor: required')\n"
        "    problems.append(f'fim: must not be before inicio ({x})')\n"
        "    raise ValidationError(f'Invalid: paginacao.paginaAtual: {x}')\n"
        "    problems.append(f'cpf, cnpj: give one of them, not both')\n"
        "    problems.append(Problem.of(QueryField.END, 'must not be before {}', QueryField.START))\n"
        "    problems.append('amount: must be positive; see https://example.com')\n"
    )
    found = message_fields(source, "x.py", wire={"valor", "fim", "cnpj"})
    assert [(f.function, f.name) for f in found] == [
        ("parse", "fim"),
        ("parse", "paginacao.paginaAtual"),
        ("parse", "cpf, cnpj"),
        ("parse", "valor"),
    ]


def test_the_message_wire_names_include_the_query_parameters() -> None:
    assert {
        "inicio",
        "fim",
        "valor",
        "chave",
        "webhookUrl",
        "paginaAtual",
        "startDate",
    } <= message_wire_names()


def test_pixcore_messages_name_no_wire_field() -> None:
    wire = message_wire_names()
    named = [f for path, source in _pixcore_sources() for f in message_fields(source, path, wire=wire)]
    assert not named, "wire names in pixcore's messages (name the field by reference):\n" + "\n".join(
        map(str, named)
    )
