"""``pixweb.body_errors.body_errors``: every mistake of a body, worded as msgspec words each alone."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest

from pixweb.body_errors import body_errors, problems_of


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
