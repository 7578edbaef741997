"""The error tree: one root, docstrings as messages, the tree drawn in the module docstring."""

from __future__ import annotations

import re

import pytest

from pixcore import errors
from pixcore.errors import PixError

ERROR_CLASSES = [getattr(errors, name) for name in errors.__all__]


def _first_line(cls: type[PixError]) -> str:
    assert cls.__doc__, f"{cls.__name__} has no docstring"
    return cls.__doc__.strip().splitlines()[0]


def test_all_lists_only_error_classes() -> None:
    assert ERROR_CLASSES
    for cls in ERROR_CLASSES:
        assert isinstance(cls, type)
        assert issubclass(cls, PixError)


def test_every_error_class_is_exported() -> None:
    defined = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }
    assert defined == set(errors.__all__)


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda cls: cls.__name__)
def test_default_message_is_the_docstring_first_line(cls: type[PixError]) -> None:
    error = cls()
    assert error.message == _first_line(cls)
    assert str(error) == error.message
    assert error.details == []
    assert isinstance(error, PixError)


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=lambda cls: cls.__name__)
def test_message_and_details_can_be_given(cls: type[PixError]) -> None:
    details = ["amount: must be positive"]
    error = cls("Something specific.", details=details)
    assert error.message == str(error) == "Something specific."
    assert error.details == details
    assert error.details is not details  # copied, so later changes by the caller do not leak in


def test_module_docstring_draws_the_real_tree() -> None:
    assert errors.__doc__
    drawn: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in errors.__doc__.splitlines():
        match = re.match(r"^(\s*(?:[│├└─ ]*))([A-Z][A-Za-z]+)\b", line)
        if match is None or not hasattr(errors, match[2]):
            continue
        depth, name = len(match[1]), match[2]
        while stack and stack[-1][0] >= depth:
            stack.pop()
        drawn[name] = stack[-1][1] if stack else ""
        stack.append((depth, name))
    assert set(drawn) == set(errors.__all__)
    for name, parent in drawn.items():
        cls = getattr(errors, name)
        expected = "" if cls is PixError else cls.__bases__[0].__name__
        assert parent == expected, f"{name} is drawn under {parent or 'nothing'}, but derives from {expected}"
