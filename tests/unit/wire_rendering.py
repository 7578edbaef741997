"""A domain error as users see it: each field it names rendered with the wire's path that the
feature's ``pixweb`` module declares (importing the app declares them all)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import pixweb.app  # noqa: F401 - every feature's module declares its fields' wire paths
from pixcore.errors import PixError
from pixweb.field_paths import on_the_wire

__all__ = ["wire_details", "wire_message", "wire_raises"]


def wire_message(error: PixError) -> str:
    return on_the_wire(error)[0]


def wire_details(error: PixError) -> list[str]:
    return on_the_wire(error)[1]


@contextmanager
def wire_raises(kind: type[PixError], *, match: str) -> Iterator[None]:
    """``pytest.raises(kind, match=...)`` on the message as users see it."""
    with pytest.raises(kind) as caught:
        yield
    message = wire_message(caught.value)
    assert re.search(match, message), f"{match!r} not in {message!r}"
