"""Text the service cannot store (docs/decisions/hostile-text.md), mixed into the fuzzer's requests: a NUL
character, lone surrogates, very long text and JSON nested far deeper than 64 levels replace a
string of a generated body or a path or query parameter. Invalid UTF-8 cannot travel in what
schemathesis sends (it encodes text itself), so :func:`raw_bodies` makes whole bodies as bytes for
a test of its own. Whatever the service answers must not be a 5xx (``tests/fuzz/checks.py``)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["hostile_body", "hostile_parameters", "raw_bodies", "raw_form_bodies"]

_DEEPEST = 200  # far past the limit (64); schemathesis and the client recurse on what they send
_LONGEST = 200_000  # several times every field's maximum, well within the 1 MiB body limit
_LONGEST_IN_URL = 4_000  # an ASGI server refuses longer request lines before the app sees them


def _with_nul(text: str, at: int) -> str:
    at %= len(text) + 1
    return text[:at] + "\x00" + text[at:]


def _text_with_nul() -> st.SearchStrategy[str]:
    return st.builds(_with_nul, st.text(max_size=20), st.integers(min_value=0))


def _long_text(longest: int, alphabet: str = "x7é€") -> st.SearchStrategy[str]:
    return st.builds(
        lambda size, char: char * size,
        st.integers(min_value=1_000, max_value=longest),
        st.sampled_from(alphabet),
    )


def hostile_text(*, surrogates: bool = True) -> st.SearchStrategy[str]:
    """Text the service cannot store. Lone surrogates only where JSON carries them (escaped): a
    client cannot encode them in a form or a URL."""
    lone = st.sampled_from(["\ud800", "a\udfffb", "\udc00\ud800", "x" * 10 + "\udbff"])
    return st.one_of(_text_with_nul(), _long_text(_LONGEST), *([lone] if surrogates else []))


def deep_value() -> st.SearchStrategy[Any]:
    def nest(depth: int, in_objects: bool) -> Any:
        value: Any = "x"
        for _ in range(depth):
            value = {"a": value} if in_objects else [value]
        return value

    return st.builds(nest, st.integers(min_value=65, max_value=_DEEPEST), st.booleans())


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every leaf (any JSON value that is not a container) of ``value``."""
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    if isinstance(value, list):
        return [leaf for index, item in enumerate(value) for leaf in _leaves(item, (*path, index))]
    return [path]


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value[head], rest, new)}
    return [_replaced(item, rest, new) if index == head else item for index, item in enumerate(value)]


def hostile_body(body: Any, *, json: bool = True) -> st.SearchStrategy[Any]:
    """``body`` as generated, or with one of its leaves (a string first of all, but any leaf: an
    amount may be given as text too) replaced by hostile text or, in JSON, a deep value."""
    leaves = _leaves(body)
    if not isinstance(body, dict | list) or not leaves:
        return st.just(body)
    values = st.one_of(hostile_text(), deep_value()) if json else hostile_text(surrogates=False)
    changed = st.builds(_replaced, st.just(body), st.sampled_from(leaves), values)
    return st.one_of(st.just(body), changed)


def hostile_parameters(values: dict[str, Any] | None) -> st.SearchStrategy[dict[str, Any] | None]:
    """Path or query parameters as generated, or with one of them a NUL-bearing or long text (the
    client percent-encodes it: a NUL arrives as ``%00``)."""
    if not values:
        return st.just(values)
    # ASCII, so that the encoded URL stays within what the server reads; no surrogates (see above).
    text = st.one_of(_text_with_nul(), _long_text(_LONGEST_IN_URL, "x7"))
    changed = st.builds(lambda name, new: {**values, name: new}, st.sampled_from(sorted(values)), text)
    return st.one_of(st.just(values), changed)


def _nested_bytes(depth: int) -> bytes:
    return b'{"a": ' + b"[" * depth + b"1" + b"]" * depth + b"}"


def raw_bodies() -> st.SearchStrategy[bytes]:
    """Whole JSON bodies as bytes: invalid UTF-8 (stray bytes, truncated and overlong sequences,
    encoded surrogates) inside a string, NUL escapes in keys and values, and deep nesting."""
    invalid = st.sampled_from(
        [b"\xff", b"\xfe\xff", b"\xc3", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"]
    )
    in_string = st.builds(
        lambda prefix, bad: b'{"a": "' + prefix.encode() + bad + b'"}',
        st.text(max_size=10).filter(lambda t: '"' not in t and "\\" not in t),
        invalid,
    )
    nul = st.sampled_from([b'{"a\\u0000": 1}', b'{"a": "\\u0000"}', b'["x", ["\\u0000"]]'])
    deep = st.integers(min_value=65, max_value=100_000).map(_nested_bytes)
    return st.one_of(in_string, nul, deep)


def raw_form_bodies() -> st.SearchStrategy[bytes]:
    """Form bodies (``/oauth/token``) whose values decode to invalid UTF-8 or carry a NUL."""
    escapes = st.sampled_from([b"%FF", b"%C3", b"%C0%80", b"%ED%A0%80", b"%00", b"a%00b"])
    field = st.sampled_from([b"client_id", b"client_secret", b"grant_type"])
    return st.builds(
        lambda name, value: b"grant_type=client_credentials&" + name + b"=" + value, field, escapes
    )
