"""The queries of Pix Automático's lists, judged by the standard lists' pieces: every broken rule at
once, ``status`` and ``convenio`` any text with ``any_text`` (the standard's face), and a text no
record has matching nothing."""

from __future__ import annotations

import pytest

from pixcore.charges.cob import ChargeStatus
from pixcore.errors import InvalidQuery
from pixcore.problems import Field
from pixcore.queries.standard import PeriodText, QueryField, parse_charge_query, parse_status
from pixcore.recurrences import (
    RecurrenceQueryField,
    RecurrenceStatus,
    RecurringChargeStatus,
    parse_charge_list_query,
    parse_location_list_query,
    parse_recurrence_list_query,
)

PERIOD = PeriodText("2026-01-01T00:00:00Z", "2026-01-31T23:59:59Z")
REC_ID = "RR1234567820260115abcdefghijk"


def _fields(refused: pytest.ExceptionInfo[InvalidQuery]) -> set[Field]:
    return {field for problem in refused.value.problems for field in problem.fields}


def test_status_is_any_text_only_when_asked() -> None:
    assert parse_status(RecurrenceStatus, "APROVADA") == (RecurrenceStatus.APROVADA, None)
    assert parse_status(RecurrenceStatus, "") == (None, None)
    assert parse_status(RecurrenceStatus, "ATIVA", any_text=True) == (None, "ATIVA")
    assert parse_status(RecurrenceStatus, "", any_text=True) == (None, "")
    assert parse_status(ChargeStatus, "ATIVA", any_text=True) == (ChargeStatus.ATIVA, None)
    with pytest.raises(InvalidQuery, match="must be one of CRIADA, APROVADA"):
        parse_status(RecurrenceStatus, "ATIVA")


def test_a_status_no_record_has_matches_nothing() -> None:
    other = parse_recurrence_list_query(PERIOD, status="PAGA", any_text=True)
    assert (other.status, other.other_status, other.matches_nothing) == (None, "PAGA", True)
    known = parse_charge_list_query(PERIOD, status="ATIVA", any_text=True)
    assert (known.status, known.other_status, known.matches_nothing) == (
        RecurringChargeStatus.ATIVA,
        None,
        False,
    )


@pytest.mark.parametrize(
    ("text", "nothing"), [("Academia", False), ("", True), ("  ", True), ("a\x00", True)]
)
def test_an_agreement_no_recurrence_can_have_matches_nothing(text: str, nothing: bool) -> None:
    assert parse_location_list_query(PERIOD, agreement=text, any_text=True).matches_nothing is nothing
    assert parse_recurrence_list_query(PERIOD, agreement=text, any_text=True).agreement == text


def test_off_the_standards_face_an_empty_text_is_no_filter() -> None:
    query = parse_charge_list_query(PERIOD, status="", agreement="")
    assert (query.status, query.other_status, query.agreement, query.matches_nothing) == (
        None,
        None,
        None,
        False,
    )


def test_every_broken_rule_at_once_named_as_the_cob_lists_name_them() -> None:
    period = PeriodText("yesterday", "2026-01-31T23:59:59Z", cpf="123", page="-1")
    with pytest.raises(InvalidQuery) as recurring:
        parse_charge_list_query(period, rec_id="short", status="PAGA", agreement="c" * 61)
    assert _fields(recurring) == {
        QueryField.START,
        QueryField.CPF,
        QueryField.PAGE,
        QueryField.STATUS,
        RecurrenceQueryField.REC_ID,
        RecurrenceQueryField.AGREEMENT,
    }
    with pytest.raises(InvalidQuery) as charges:
        parse_charge_query(inicio="yesterday", fim=period.end, cpf="123", page="-1", status="PAGA")
    assert _fields(charges) == _fields(recurring) - set(RecurrenceQueryField)


def test_a_valid_query_keeps_every_filter() -> None:
    period = PeriodText(PERIOD.start, PERIOD.end, cpf="11144477735", page="2", size="10")
    query = parse_charge_list_query(period, rec_id=REC_ID, status="CONCLUIDA", agreement="Academia")
    assert (query.rec_id, query.cpf, query.status, query.agreement) == (
        REC_ID,
        "11144477735",
        RecurringChargeStatus.CONCLUIDA,
        "Academia",
    )
    assert (query.page.number, query.page.size, query.start < query.end) == (2, 10, True)
    located = parse_location_list_query(PERIOD, rec_present="false")
    assert located.rec_present is False
