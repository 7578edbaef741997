"""A problem names its fields by reference: the domain renders it with its words, the edge with
the wire's paths."""

from __future__ import annotations

import enum

from pixcore.errors import InvalidQuery, ValidationError
from pixcore.problems import Field, Problem, domain_name
from pixcore.validation import collect


class _Window(Field):
    START = enum.auto()
    END = enum.auto()
    PAGE_SIZE = enum.auto()


_WIRE = {_Window.START: "inicio", _Window.END: "fim", _Window.PAGE_SIZE: "paginacao.itensPorPagina"}


def test_a_problem_is_rendered_with_the_domains_names_or_the_wires_paths() -> None:
    problem = Problem.of(_Window.END, "must not be before {}", _Window.START)
    assert problem.render() == "end: must not be before start"
    assert problem.render(_WIRE.__getitem__) == "fim: must not be before inicio"
    both = Problem.of((_Window.START, _Window.END), "out of the supported range")
    assert both.render(_WIRE.__getitem__) == "inicio, fim: out of the supported range"
    assert domain_name(_Window.PAGE_SIZE) == "page size"


def test_only_the_placeholders_of_references_are_filled() -> None:
    # A text without references is said as it is, braces and all (a header's name, a URL).
    assert Problem.of(_Window.START, "'{}' is not a token").render() == "start: '{}' is not a token"


def test_a_validation_error_renders_its_message_and_details_both_ways() -> None:
    problems = [
        Problem.of(_Window.END, "must not be before {}", _Window.START),
        Problem.of(_Window.PAGE_SIZE, "must be an integer from 1 to 1000"),
    ]
    error = InvalidQuery(problems=problems, summary="Invalid query parameters: {}.")
    assert error.message == (
        "Invalid query parameters: end: must not be before start;"
        " page size: must be an integer from 1 to 1000."
    )
    assert error.details == ["end: must not be before start", "page size: must be an integer from 1 to 1000"]
    assert str(error) == error.message
    message, details = error.render(_WIRE.__getitem__)
    assert message == (
        "Invalid query parameters: fim: must not be before inicio;"
        " paginacao.itensPorPagina: must be an integer from 1 to 1000."
    )
    assert details == [
        "fim: must not be before inicio",
        "paginacao.itensPorPagina: must be an integer from 1 to 1000",
    ]


def test_a_message_may_be_one_problem_with_other_details() -> None:
    error = ValidationError(Problem.of(_Window.START, "is 3"), problems=[Problem.of(_Window.END, "is 2")])
    assert (error.message, error.details) == ("start: is 3", ["end: is 2"])
    assert error.render(_WIRE.__getitem__) == ("inicio: is 3", ["fim: is 2"])


def test_an_error_without_problems_renders_as_it_is() -> None:
    error = ValidationError("Invalid batch id: 7", details=["id: 7"])
    assert error.render(_WIRE.__getitem__) == ("Invalid batch id: 7", ["id: 7"])


def test_collect_notes_a_reference_or_a_text() -> None:
    def refuse() -> int:
        raise ValidationError("must be positive")

    by_reference: list[Problem] = []
    assert collect(by_reference, _Window.PAGE_SIZE, refuse) is None
    assert by_reference == [Problem.of(_Window.PAGE_SIZE, "must be positive")]
    as_text: list[str] = []
    assert collect(as_text, "valor", refuse) is None
    assert as_text == ["valor: must be positive"]
