"""``pixweb.body_errors.body_errors``: every mistake of a body, worded as msgspec words each alone."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from collections.abc import Iterator
from functools import partial
from types import SimpleNamespace
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec
import pytest
from litestar.di import Provide

import pixweb
from pixcore.clock import SystemClock
from pixcore.errors import ValidationError
from pixweb.body_errors import body_errors, problems_of, rules_of


class Inner(msgspec.Struct):
    code: str
    count: int = 0


class Outer(msgspec.Struct, rename="camel"):
    pix_key: Annotated[str, msgspec.Meta(max_length=5)]
    inner: Inner
    maybe: Inner | None = None
    items: list[Inner] | None = None
    capped: Annotated[list[Inner], msgspec.Meta(max_length=1)] | None = None
    loose: Any = None


class Strict(msgspec.Struct, forbid_unknown_fields=True):
    a: int


def _alone(value: Any, struct: type[msgspec.Struct]) -> str:
    """What msgspec says of the value by itself (its first mistake)."""
    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.convert(value, struct, strict=False)
    return str(caught.value)


def test_every_missing_field_and_every_wrong_type_at_once() -> None:
    assert body_errors({}, Outer) == [
        ("data", "Object missing required field `pixKey`"),
        ("data", "Object missing required field `inner`"),
    ]
    value = {
        "pixKey": "toolong",
        "inner": {"count": "x"},
        "maybe": {"code": 5},
        "items": [{"code": "ok"}, {"code": 1}, 3],
        "capped": [{"code": "a"}, {"code": "b"}],
        "loose": {"anything": 1},
    }
    assert body_errors(value, Outer) == [
        ("pixKey", "Expected `str` of length <= 5"),
        ("inner", "Object missing required field `code`"),
        ("inner.count", "Expected `int`, got `str`"),
        ("maybe.code", "Expected `str`, got `int`"),
        ("items[1].code", "Expected `str`, got `int`"),
        ("items[2]", "Expected `object`, got `int`"),
        ("capped", "Expected `array` of length <= 1"),
    ]


def test_each_message_is_msgspecs_own() -> None:
    assert _alone({"pixKey": 5, "inner": {"code": "x"}}, Outer).startswith("Expected `str`, got `int`")
    assert body_errors({"pixKey": 5, "inner": {"code": "x"}}, Outer) == [
        ("pixKey", "Expected `str`, got `int`")
    ]
    assert (
        _alone({"pixKey": "a", "inner": {"code": 1}}, Outer)
        == "Expected `str`, got `int` - at `$.inner.code`"
    )


def test_unknown_fields_where_the_struct_forbids_them() -> None:
    assert body_errors({"b": 1, "a": "x"}, Strict) == [
        ("data", "Object contains unknown field `b`"),
        ("a", "Expected `int`, got `str`"),
    ]


def test_a_body_that_fits_has_no_errors() -> None:
    assert body_errors({"pixKey": "k", "inner": {"code": "c", "count": "3"}}, Outer) == []


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": 1, "inner": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",  # past the recursion limit
        b'{"name": "\xff\xfe", "count": "x"}',  # invalid UTF-8 after a type mistake
        b'{"name": 1, "count": [1, 2',  # malformed after a type mistake
        b"\xff",
    ],
    ids=["deep", "invalid-utf8", "truncated", "garbage"],
)
def test_an_unreadable_body_adds_nothing_and_raises_nothing(body: bytes) -> None:
    """Whatever the order of the middleware, a hostile body leaves the answer to the handler's
    decoder (a 400): finding its mistakes never raises."""
    assert problems_of(body, Hostile) == []


class Hostile(msgspec.Struct):
    name: str
    count: int = 0
    inner: list[int] = msgspec.field(default_factory=list)


# -- the rules of the fields that fit, in the same answer ------------------------------------------


class Item(msgspec.Struct):
    name: str
    size: int = 0


class Order(msgspec.Struct, rename="camel"):
    key: str
    amount: Any = None
    items: list[Item] | None = None
    note: str | None = None
    inner: Inner | None = None


def _judge_order(body: Order) -> None:
    """A parser in pixcore's manner: every broken rule, ``field: message``, in one ValidationError."""
    problems: list[str] = []
    if not body.key.startswith("k"):
        problems.append("key: must start with k")
    if not isinstance(body.amount, int) or body.amount <= 0:
        problems.append("amount: a positive whole number")
    for index, item in enumerate(body.items or []):
        if not item.name:
            problems.append(f"items[{index}]: a name is required")
    if body.items is not None and len({item.name for item in body.items}) < len(body.items):
        problems.append("items: names must differ")
    if body.note is not None and len(body.note) > 3:
        problems.append("note: at most 3 characters")
    if problems:
        raise ValidationError("Invalid order: " + "; ".join(problems), details=problems)


def _order_problems(value: Any) -> list[str]:
    return problems_of(msgspec.json.encode(value), Order, _judge_order)


def test_wrong_types_and_broken_rules_come_together_in_field_order() -> None:
    assert _order_problems({"key": "x", "amount": 0, "note": 5}) == [
        "key: must start with k",
        "amount: a positive whole number",
        "note: Expected `str | null`, got `int`",
    ]
    assert _order_problems({"amount": -1, "items": [{"name": ""}, {"name": 3}], "note": "long"}) == [
        "data: Object missing required field `key`",
        "amount: a positive whole number",
        "items[0]: a name is required",  # the item that fits is judged
        "items[1].name: Expected `str`, got `int`",
        "note: at most 3 characters",
    ]


def test_nothing_is_said_of_a_stand_in() -> None:
    # key: 5 stands in as "" (no "must start with k"); items[1].name as "" (no "a name is required"
    # for it, nor the list's "names must differ", which only its stand-in causes); items[0] is judged.
    assert _order_problems({"key": 5, "amount": 1, "items": [{"name": ""}, {"name": 3}]}) == [
        "key: Expected `str`, got `int`",
        "items[0]: a name is required",
        "items[1].name: Expected `str`, got `int`",
    ]


def test_a_body_that_fits_is_left_to_its_handler() -> None:
    """Its broken rules are the handler's to raise (the parser runs there): nothing is added."""
    assert _order_problems({"key": "x", "amount": 0}) == []


def test_a_parser_that_cannot_read_a_stand_in_leaves_the_type_mistakes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def fragile(body: Order) -> None:
        raise TypeError(body.key)

    body = msgspec.json.encode({"key": 5, "note": 1})
    assert problems_of(body, Order, fragile) == [
        "key: Expected `str`, got `int`",
        "note: Expected `str | null`, got `int`",
    ]
    assert "could not judge" in caplog.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"key": 1, "inner": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"key": "\xff\xfe", "amount": 1, "note": 2}',
        b'{"key": 1, "note": [1, 2',
        b"[1, 2]",
    ],
    ids=["deep", "invalid-utf8", "truncated", "not-an-object"],
)
def test_an_unreadable_body_is_not_judged(body: bytes) -> None:
    def never(_: Order) -> None:
        raise AssertionError("judged")

    assert problems_of(body, Order, never) == []


def _wrong_for(annotation: Any) -> Any:
    """A JSON value the field's type refuses, or None for a field that takes anything."""
    for value in ([[["x"]]], {"x": [1]}, 1.5, "x", True, 7):
        try:
            msgspec.convert(value, annotation, strict=False)
        except msgspec.ValidationError:
            return value
    return None


def _wrong_fields(struct: type[msgspec.Struct], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """For each field of ``struct`` (nested Structs too) that a value can be wrong for: its path,
    and a body where only that field is given, with a wrong value."""
    for field in msgspec.structs.fields(struct):
        where = f"{path}.{field.encode_name}" if path else field.encode_name
        wrong = _wrong_for(field.type)
        if wrong is not None:
            yield where, {field.encode_name: wrong}
        for inner in _structs_in(field.type):
            for deeper, body in _wrong_fields(inner, where):
                yield deeper, {field.encode_name: body}


def _structs_in(annotation: Any) -> list[type[msgspec.Struct]]:
    """The Structs a field holds directly (``S``, ``S | None``, not inside a list)."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    options = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    return [o for o in options if isinstance(o, type) and issubclass(o, msgspec.Struct)]


def _api_structs() -> set[type[msgspec.Struct]]:
    found: set[type[msgspec.Struct]] = set()
    for info in pkgutil.walk_packages(pixweb.__path__, "pixweb."):
        for value in vars(importlib.import_module(info.name)).values():
            if inspect.isclass(value) and issubclass(value, msgspec.Struct):
                found.add(value)
    return found


def test_every_parser_of_the_api_judges_a_body_with_any_field_of_a_wrong_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each body Struct of the API that declares its parser, each field (nested ones too) given a
    wrong type in turn, the other fields left out: the parser reads every stand-in (no warning),
    and the answer has the wrong type."""
    settings = SimpleNamespace(webhook_allow_private=False)
    clock = SystemClock()
    provided = {  # what the route's providers hand its judge (pixweb.api.deps.provided)
        "settings": Provide(lambda: settings, sync_to_thread=False),
        "clock": Provide(lambda: clock, sync_to_thread=False),
    }
    request: Any = SimpleNamespace(
        route_handler=SimpleNamespace(resolve_dependencies=lambda: provided),
        path_params={"chave": "maria@example.com"},  # PUT /webhook/{chave}'s parser reads the path's key
    )
    judged = {struct: rules for struct in _api_structs() if (rules := rules_of(struct)) is not None}
    names = {struct.__name__ for struct in judged}
    assert {
        "TransferIn",
        "CobIn",
        "CobPatchIn",
        "CobVIn",
        "CobVPatchIn",
        "CashInIn",
        "RefundIn",
        "WebhookIn",
        "KeyWebhookIn",
    } <= names
    tried = 0
    for struct, rules in judged.items():
        for where, body in _wrong_fields(struct):
            problems = problems_of(msgspec.json.encode(body), struct, partial(_with, rules, request))
            said = (f"{where}: ", f"{where}[")  # a list's wrong items are named by index
            assert any(p.startswith(said) for p in problems), (struct.__name__, body, problems)
            tried += 1
    assert tried >= 15
    assert "could not judge" not in caplog.text


def _with(rules: Any, request: Any, body: Any) -> object:
    return rules(body, request)
