"""Every mistake of a JSON body at once (docs/decisions/all-body-errors.md).

A handler's ``data`` is a msgspec Struct, and msgspec stops at the first field that does not fit:
a body with three mistakes took three tries. :class:`AllBodyErrors` runs before the handler: when
the body does not convert to the handler's Struct, :func:`body_errors` walks the Struct field by
field (nested Structs included), each mistake worded exactly as msgspec words it alone
(``pixKey: Expected `str`, got `int```, ``data: Object missing required field `pixKey```). The
rules the domain judges (amounts, keys, documents) are the ``pixcore`` parser's that the handler
runs (declared with :func:`judge_body`): it judges the fields that fit, a stand-in taking the place
of each that does not, and what it says of a stand-in is dropped. The error handler answers
Litestar's own refusal with the lot in ``details``, in field order. A body with one mistake keeps
Litestar's own answer; one that converts goes to its handler, whose parser reports every broken rule.
"""

from __future__ import annotations

import logging
import re
import types
from collections.abc import Callable
from typing import Any, TypeVar, Union, get_args, get_origin

import msgspec
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import ValidationException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from pixcore.errors import ValidationError
from pixweb.api.structs import bare, body_struct, element_struct, struct_of
from pixweb.field_paths import on_the_wire
from pixweb.standard.bodies import standard_body
from pixweb.standard.face import on_standard_face
from pixweb.wire import decode_body, encode_json

__all__ = ["AllBodyErrors", "Judge", "body_details", "body_errors", "judge_body", "problems_of", "rules_of"]

log = logging.getLogger("pixweb.body_errors")

_AT = re.compile(r" - at `\$(.*)`$")
_ROOT = "data"  # Litestar's key for the body itself
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# One mistake: where it is shown (``data`` for the body itself), msgspec's words, and the field it
# breaks (None for an unknown field: no field of the Struct is broken by it).
_Problem = tuple[str, str, str | None]


def _convert_errors(value: Any, annotation: Any, path: str) -> list[_Problem]:
    try:
        msgspec.convert(value, annotation, strict=False, str_keys=True)
    except msgspec.ValidationError as exc:
        message = str(exc)
        at = _AT.search(message)
        where = path
        if at is not None:
            message = message[: at.start()]
            inner = at.group(1)
            where = f"{path}{inner}" if inner.startswith("[") else _join(path, inner.removeprefix("."))
        return [(where or _ROOT, message, where)]
    return []


def _walk(value: Any, struct: type[msgspec.Struct], path: str) -> list[_Problem]:
    config = struct.__struct_config__
    if not isinstance(value, dict) or config.array_like or config.tag is not None:
        return _convert_errors(value, struct, path)
    problems: list[_Problem] = []
    fields = msgspec.structs.fields(struct)
    if config.forbid_unknown_fields:
        known = {f.encode_name for f in fields}
        problems.extend(
            (path or _ROOT, f"Object contains unknown field `{key}`", None)
            for key in value
            if key not in known
        )
    for field in fields:
        where = _join(path, field.encode_name)
        if field.encode_name not in value:
            if field.required:
                problems.append(
                    (path or _ROOT, f"Object missing required field `{field.encode_name}`", where)
                )
            continue
        item = value[field.encode_name]
        inner = struct_of(field.type)
        element = element_struct(field.type)
        if inner is not None and isinstance(item, dict):
            problems.extend(_walk(item, inner, where))
        elif element is not None and isinstance(item, list):
            for index, each in enumerate(item):
                problems.extend(_walk(each, element, f"{where}[{index}]"))
        else:
            problems.extend(_convert_errors(item, field.type, where))
    return problems


def body_errors(value: Any, struct: type[msgspec.Struct], path: str = "") -> list[tuple[str, str]]:
    """Every ``(where, message)`` that keeps ``value`` from converting to ``struct``, in field order."""
    return [(where, message) for where, message, _ in _walk(value, struct, path)]


# -- the rules of the fields that fit --------------------------------------------------------------
#
# A body with a wrong type in one field and a broken rule in another is judged in one go: the
# fields that fit are converted, each field that does not is given a stand-in of its type (so the
# handler's own mapping and the pixcore parser run unchanged), and the parser's complaints about
# the stand-ins are dropped. No rule is restated here: the parser is the one the handler runs.

Judge = Callable[[Any], object]
"""A body (an instance of its Struct) to the domain's request; a broken rule raises pixcore's
``ValidationError`` listing every problem in ``details``, each ``field: message``."""

BodyRules = Callable[[Any, Request[Any, Any, Any]], object]
_RULES: dict[type[msgspec.Struct], BodyRules] = {}

S = TypeVar("S", bound=msgspec.Struct)


def judge_body(struct: type[S], rules: Callable[[S, Request[Any, Any, Any]], object]) -> None:
    """Declare the ``pixcore`` parser that judges a ``struct`` body (the very call its handler
    makes, given the body and the request): :class:`AllBodyErrors` runs it on the fields of a body
    that fit, so a body with type mistakes also reports its broken rules in the same answer."""
    _RULES[struct] = rules


def rules_of(struct: type[msgspec.Struct]) -> BodyRules | None:
    """The parser declared for ``struct`` by :func:`judge_body`, if any."""
    return _RULES.get(struct)


_CANDIDATES: tuple[Any, ...] = ("", 0, False, [], {})


def _stand_in(annotation: Any) -> Any:
    """A value of ``annotation``'s type that stands for a field that is missing or does not fit:
    ``None`` where the type allows it, a Struct of stand-ins, else the first of ``"" 0 false [] {}``
    the type takes. Its constraints (lengths, patterns) are not asked: the parser judges it, and
    what it says of a stand-in is dropped."""
    annotation = bare(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        options = [bare(a) for a in get_args(annotation)]
        if type(None) in options:
            return None
        annotation = options[0]
    if annotation is Any or annotation is None:
        return None
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        required = {f.name: _stand_in(f.type) for f in msgspec.structs.fields(annotation) if f.required}
        return annotation(**required)
    for candidate in _CANDIDATES:
        try:
            return msgspec.convert(candidate, annotation, strict=False)
        except (msgspec.ValidationError, TypeError):
            continue
    return None


def _under(path: str, root: str) -> bool:
    """``path`` is ``root`` or inside it (``root.x``, ``root[0]``)."""
    return path == root or path.startswith((f"{root}.", f"{root}["))


def _touches(path: str, broken: set[str]) -> bool:
    """``path`` is a broken field, inside one, or holds one (a rule of a list of items may be
    worded at the list and still be about the stand-in of one item)."""
    return any(_under(path, b) or _under(b, path) for b in broken)


def _build(value: dict[str, Any], struct: type[msgspec.Struct], path: str, broken: set[str]) -> Any:
    """``value`` as ``struct`` with a stand-in for every broken field (the rest as decoding gives it)."""
    given: dict[str, Any] = {}
    for field in msgspec.structs.fields(struct):
        where = _join(path, field.encode_name)
        present = field.encode_name in value
        if not any(_under(b, where) for b in broken):
            if present:
                given[field.name] = msgspec.convert(
                    value[field.encode_name], field.type, strict=False, str_keys=True
                )
            continue
        item = value.get(field.encode_name)
        inner = struct_of(field.type)
        element = element_struct(field.type)
        if present and where not in broken and inner is not None and isinstance(item, dict):
            given[field.name] = _build(item, inner, where, broken)
        elif present and where not in broken and element is not None and isinstance(item, list):
            given[field.name] = [
                _stand_in(element)
                if f"{where}[{i}]" in broken
                else _build(each, element, f"{where}[{i}]", broken)
                for i, each in enumerate(item)
            ]
        else:
            broken.add(where)
            given[field.name] = _stand_in(field.type)
    return struct(**given)


_FIELD = re.compile(r"([A-Za-z_]\w*(?:\[\d+\]|\.[A-Za-z_]\w*)*): ")


def _rule_problems(
    value: dict[str, Any], struct: type[msgspec.Struct], judge: Judge, broken: set[str]
) -> list[str]:
    """What the parser says of the fields of ``value`` that fit (nothing of the broken ones)."""
    try:
        judge(_build(value, struct, "", broken))
    except ValidationError as exc:
        message, details = on_the_wire(exc)
        said = details or [message]
    except Exception:  # a parser that cannot read a stand-in: the type mistakes still stand, no 500
        log.warning(
            "the rules of %s could not judge a body with type mistakes", struct.__name__, exc_info=True
        )
        return []
    else:
        return []
    return [p for p in said if not ((m := _FIELD.match(p)) is not None and _touches(m.group(1), broken))]


_SEGMENT = re.compile(r"\[(\d+)\]|([A-Za-z_]\w*)")
_LAST = 1 << 30


def _rank(path: str | None, struct: type[msgspec.Struct]) -> tuple[int, ...]:
    """Where ``path`` comes in ``struct``'s field order (items by index); unknown places last."""
    if path is None:
        return (_LAST,)
    rank: list[int] = []
    current: type[msgspec.Struct] | None = struct
    for index, name in _SEGMENT.findall(path):
        if index:
            rank.append(int(index))
            continue
        fields = msgspec.structs.fields(current) if current is not None else ()
        found = [i for i, f in enumerate(fields) if f.encode_name == name]
        if not found:
            rank.append(_LAST)
            current = None
            continue
        rank.append(found[0])
        kind = fields[found[0]].type
        current = struct_of(kind) or element_struct(kind)
    return tuple(rank)


_STATE_KEY = "pix_body_errors"


class AllBodyErrors(ASGIMiddleware):
    """Finds every mistake of a JSON body before its handler runs, for :func:`body_details`.

    It refuses nothing itself: Litestar's own validation still decides (and reports the other
    parameters, a missing header say); the error handler puts these in place of its one body error.
    """

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        struct = body_struct(scope)
        if struct is not None:
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            if request.content_type[0] not in _FORMS:
                rules = rules_of(struct)
                judge = None if rules is None else _judge(rules, request)
                problems = problems_of(await _body(request, struct), struct, judge)
                if len(problems) > 1:
                    request.state[_STATE_KEY] = problems
        await next_app(scope, receive, send)


async def _body(request: Request[Any, Any, Any], struct: type[msgspec.Struct]) -> bytes:
    """The body as its handler will read it: on the standard's face, without the members its
    Struct does not know (a body with a ``null`` is refused there before any of this counts)."""
    body = await request.body()
    if not on_standard_face(request.scope):
        return body
    try:
        return encode_json(standard_body(decode_body(body), struct))
    except (*_UNREADABLE, ValidationException):
        return body


def _judge(rules: BodyRules, request: Request[Any, Any, Any]) -> Judge:
    return lambda body: rules(body, request)


def body_details(request: Request[Any, Any, Any]) -> list[str] | None:
    """Every mistake of the request's body that :class:`AllBodyErrors` found (two or more), or None."""
    found = request.state.get(_STATE_KEY)
    return list(found) if isinstance(found, list) else None


# What decoding a hostile body raises besides a type mistake: malformed JSON, invalid UTF-8 in a
# string, nesting past the interpreter's recursion limit. TextGuard refuses the last two before
# this middleware runs; they are caught here too so that no order of middleware makes them a 500.
_UNREADABLE = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)


def problems_of(body: bytes, struct: type[msgspec.Struct], judge: Judge | None = None) -> list[str]:
    """Every mistake of a body that does not convert to ``struct``, ``field: message`` in field
    order: each wrong type or missing field (msgspec's words), and, with ``judge``, every broken
    rule of the fields that fit (the parser's words). Empty when it converts."""
    try:
        msgspec.json.decode(body, type=struct, strict=False)
    except msgspec.ValidationError:
        try:
            value = decode_body(body)  # as the handler reads it: amounts exact, never floats
        except _UNREADABLE:
            return []  # unreadable, found after a type mistake: the handler's decoder says so
        return _every_mistake(value, struct, judge) if isinstance(value, dict) else []
    except _UNREADABLE:
        return []  # unreadable: the handler's decoder says so
    return []  # it fits: nothing to add (the usual case, one pass in C)


def _every_mistake(value: dict[str, Any], struct: type[msgspec.Struct], judge: Judge | None) -> list[str]:
    typed = _walk(value, struct, "")
    ranked = [
        (
            _rank(field, struct) if field is not None else (*_rank(_parent(where), struct), -1),
            f"{where}: {message}",
        )
        for where, message, field in typed
    ]
    broken = {field for _, _, field in typed if field is not None}
    if judge is not None and typed and "" not in broken:
        for problem in _rule_problems(value, struct, judge, broken):
            match = _FIELD.match(problem)
            ranked.append((_rank(match.group(1) if match else None, struct), problem))
    return [problem for _, problem in sorted(ranked, key=lambda item: item[0])]


def _parent(where: str) -> str:
    return "" if where == _ROOT else where
