"""Due-date charges (``cobv``): the hand-worked tables of docs/due-charges.md, properties of the
amount over every day of the window, and every rule of the request, all reported at once."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pixcore.business_days import business_days_between, easter, holidays, is_business_day, next_business_day
from pixcore.charges.cob import ABSENT
from pixcore.charges.cobv import (
    Discount,
    DiscountDate,
    DiscountDateFields,
    DiscountFields,
    DiscountModality,
    DueAmount,
    DueCalendarFields,
    DueTerms,
    DueValueFields,
    Fine,
    FineModality,
    Interest,
    InterestModality,
    RateFields,
    Rebate,
    RebateModality,
    amount_breakdown,
    amount_due,
    parse_due_terms,
    payer_day,
)
from pixcore.errors import DueChargeClosed, ValidationError
from pixcore.money import MAX_CENTS, format_amount_string, parse_amount_string
from pixinfra.due_terms import terms_wire, text, whole, whole_or_absent
from tests.unit.wire_rendering import wire_details, wire_message

DOC = Path(__file__).parents[3] / "docs" / "due-charges.md"
CREATED = date(2020, 1, 1)  # the day every charge of the document was created
AMOUNT_RULE = 'required, a string of 1 to 10 digits, a dot and 2 decimals (e.g. "2.00")'
FULLWIDTH_DATE = "\uff12\uff10\uff12\uff15-04-10"  # digits that are not ASCII


# -- the edge's mapping, as the web layer does it ---------------------------------


def _rate(given: Any) -> RateFields | None:
    return None if given is None else RateFields(whole(given.get("modalidade")), text(given.get("valorPerc")))


def fields(body: dict[str, Any]) -> tuple[DueCalendarFields | None, DueValueFields | None]:
    """``calendario`` and ``valor`` of a JSON body under the domain's names, each leaf's type judged
    as the edge judges it (``pixinfra.due_terms``)."""
    calendar, value = body.get("calendario"), body.get("valor")
    calendar_fields = (
        None
        if calendar is None
        else DueCalendarFields(
            text(calendar.get("dataDeVencimento")),
            whole_or_absent(calendar.get("validadeAposVencimento", msgspec.UNSET)),
        )
    )
    if value is None:
        return calendar_fields, None
    discount = value.get("desconto")
    discount_fields = None
    if discount is not None:
        items = discount.get("descontoDataFixa")
        discount_fields = DiscountFields(
            whole(discount.get("modalidade")),
            text(discount.get("valorPerc")),
            None
            if items is None
            else tuple(DiscountDateFields(text(i.get("data")), text(i.get("valorPerc"))) for i in items),
        )
    return calendar_fields, DueValueFields(
        text(value.get("original")),
        _rate(value.get("multa")),
        _rate(value.get("juros")),
        _rate(value.get("abatimento")),
        discount_fields,
    )


def parse(body: dict[str, Any], today: date = CREATED) -> DueTerms:
    return parse_due_terms(*fields(body), today=today)


def problems(body: dict[str, Any], today: date = CREATED) -> list[str]:
    with pytest.raises(ValidationError) as raised:
        parse(body, today)
    return wire_details(raised.value)


# -- the document's tables ----------------------------------------------------------


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def amount_tables() -> list[tuple[dict[str, Any], list[list[str]]]]:
    """Each JSON block of the document with the table that follows it."""
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"```json\n(.*?)```\n\n((?:\|[^\n]*\|\n)+)", text, flags=re.DOTALL)
    tables = []
    for block, table in found:
        header, _rule, *rows = table.strip().splitlines()
        assert _cells(header) == ["paid on", "abatimento", "desconto", "multa", "juros", "final"]
        tables.append((json.loads(block), [_cells(row) for row in rows]))
    return tables


def window_rows() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    [table] = re.findall(r"\| dataDeVencimento .*?\n\|---.*?\n((?:\|.*\|\n)+)", text)
    return [_cells(row) for row in table.strip().splitlines()]


TABLES = amount_tables()


def test_the_document_has_a_table_for_every_modality() -> None:
    bodies = [body["valor"] for body, _rows in TABLES]
    assert {v["multa"]["modalidade"] for v in bodies if "multa" in v} == {1, 2}
    assert {v["juros"]["modalidade"] for v in bodies if "juros" in v} == set(range(1, 9))
    assert {v["abatimento"]["modalidade"] for v in bodies if "abatimento" in v} == {1, 2}
    assert {v["desconto"]["modalidade"] for v in bodies if "desconto" in v} == set(range(1, 7))
    assert sum(len(rows) for _body, rows in TABLES) >= 80


@pytest.mark.parametrize(("body", "rows"), TABLES, ids=[json.dumps(b["valor"])[:60] for b, _ in TABLES])
def test_the_amount_is_that_of_the_hand_worked_table(body: dict[str, Any], rows: list[list[str]]) -> None:
    terms = parse(body)
    for day_text, rebate, discount, fine, interest, final in rows:
        day = date.fromisoformat(day_text)
        if final == "closed":
            with pytest.raises(DueChargeClosed):
                amount_due(terms, day)
            continue
        expected = DueAmount(
            terms.original,
            parse_amount_string(rebate),
            parse_amount_string(discount),
            parse_amount_string(fine),
            parse_amount_string(interest),
        )
        assert amount_breakdown(terms, day) == expected, day_text
        assert format_amount_string(amount_due(terms, day)) == final, day_text


@pytest.mark.parametrize(("body", "rows"), TABLES, ids=[json.dumps(b["valor"])[:60] for b, _ in TABLES])
def test_the_terms_are_written_back_as_they_were_given(body: dict[str, Any], rows: list[list[str]]) -> None:
    calendar, value = terms_wire(parse(body))
    assert calendar == body["calendario"]
    assert value == body["valor"]
    assert parse({"calendario": calendar, "valor": value}) == parse(body)


@pytest.mark.parametrize("row", window_rows(), ids=lambda row: f"{row[0]}+{row[1]}")
def test_the_window_to_pay_is_that_of_the_standards_examples(row: list[str]) -> None:
    due, days, effective, last = row
    terms = parse({"calendario": {"dataDeVencimento": due, "validadeAposVencimento": int(days)},
                   "valor": {"original": "10.00"}})  # fmt: skip
    assert terms.effective_due_date() == date.fromisoformat(effective)
    assert terms.last_payable_day() == date.fromisoformat(last)
    day = terms.due_date
    while day <= terms.last_payable_day():
        assert amount_due(terms, day) == 1000
        day += timedelta(days=1)
    with pytest.raises(DueChargeClosed, match=last):
        amount_due(terms, day)


def test_the_documents_python_example_runs() -> None:
    [example] = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    exec(compile(example, str(DOC), "exec"), {})  # noqa: S102 - our own document's example


def test_the_default_window_is_30_days() -> None:
    terms = parse({"calendario": {"dataDeVencimento": "2025-04-10"}, "valor": {"original": "1.00"}})
    assert terms.days_after_due == 30
    assert terms.last_payable_day() == date(2025, 5, 12)


# -- business days ------------------------------------------------------------------


def test_the_holidays_of_2025_are_the_banks_national_calendar() -> None:
    # ANBIMA's 2025 calendar of national holidays.
    expected = {
        "2025-01-01", "2025-03-03", "2025-03-04", "2025-04-18", "2025-04-21", "2025-05-01", "2025-06-19",
        "2025-09-07", "2025-10-12", "2025-11-02", "2025-11-15", "2025-11-20", "2025-12-25",
    }  # fmt: skip
    assert {d.isoformat() for d in holidays(2025)} == expected
    assert date(2023, 11, 20) not in holidays(2023)  # national from 2024


# Easter Sunday 2001 to 2030, from the published tables.
EASTERS = [
    "2001-04-15",
    "2002-03-31",
    "2003-04-20",
    "2004-04-11",
    "2005-03-27",
    "2006-04-16",
    "2007-04-08",
    "2008-03-23",
    "2009-04-12",
    "2010-04-04",
    "2011-04-24",
    "2012-04-08",
    "2013-03-31",
    "2014-04-20",
    "2015-04-05",
    "2016-03-27",
    "2017-04-16",
    "2018-04-01",
    "2019-04-21",
    "2020-04-12",
    "2021-04-04",
    "2022-04-17",
    "2023-04-09",
    "2024-03-31",
    "2025-04-20",
    "2026-04-05",
    "2027-03-28",
    "2028-04-16",
    "2029-04-01",
    "2030-04-21",
]


@pytest.mark.parametrize("sunday", EASTERS)
def test_easter_of_the_published_tables(sunday: str) -> None:
    assert easter(int(sunday[:4])).isoformat() == sunday


def _lichtenberg_easter(year: int) -> date:
    """Easter by Gauss's rule as Lichtenberg wrote it (another algorithm than the module's)."""
    k = year // 100
    m = 15 + (3 * k + 3) // 4 - (8 * k + 13) // 25
    s = 2 - (3 * k + 3) // 4
    a = year % 19
    d = (19 * a + m) % 30
    r = (d + a // 11) // 29
    full_moon = 21 + d - r
    first_sunday = 7 - (year + year // 4 + s) % 7
    sunday = full_moon + 7 - (full_moon - first_sunday) % 7  # the day of March (32 is 1 April)
    return date(year, 3, 1) + timedelta(days=sunday - 1)


def test_easter_agrees_with_another_algorithm_every_year() -> None:
    for year in range(1583, 10_000):
        assert easter(year) == _lichtenberg_easter(year), year
        assert easter(year).weekday() == 6


@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)), st.integers(0, 1200))
def test_business_days_counted_arithmetically_match_a_day_by_day_count(start: date, span: int) -> None:
    end = start + timedelta(days=span)
    by_hand = sum(1 for n in range(1, span + 1) if is_business_day(start + timedelta(days=n)))
    assert business_days_between(start, end) == by_hand
    assert business_days_between(end, start) == 0 if span else True
    following = next_business_day(start)
    assert is_business_day(following)
    assert all(not is_business_day(start + timedelta(days=n)) for n in range((following - start).days))


def test_the_payers_day_is_brasilias() -> None:
    from datetime import UTC, datetime

    assert payer_day(datetime(2025, 4, 11, 2, 59, tzinfo=UTC)) == date(2025, 4, 10)
    assert payer_day(datetime(2025, 4, 11, 3, 0, tzinfo=UTC)) == date(2025, 4, 11)
    with pytest.raises(ValueError, match=r"^payer_day needs an aware datetime$"):
        payer_day(datetime(2025, 4, 11, 12, 0))  # noqa: DTZ001 - the naive datetime refused


# -- properties over random terms ---------------------------------------------------

_CENTS = st.integers(1, 10_000_000)
_PERCENT = st.integers(0, 99_99)


@st.composite
def due_terms(draw: st.DrawFn) -> DueTerms:
    original = draw(_CENTS)
    due_date = draw(st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 12, 31)))
    days_after_due = draw(st.integers(0, 60))
    fine = draw(st.none() | st.builds(Fine, st.sampled_from(FineModality), st.integers(0, 100_000)))
    interest = draw(
        st.none() | st.builds(Interest, st.sampled_from(InterestModality), st.integers(0, 10_000))
    )
    rebate = draw(
        st.none()
        | st.builds(Rebate, st.just(RebateModality.FIXED), st.integers(0, original - 1))
        | st.builds(Rebate, st.just(RebateModality.PERCENT), _PERCENT)
    )
    modality = draw(st.sampled_from(DiscountModality))
    bound = HUNDRED if modality.percent else original
    discount: Discount | None
    if modality.fixed_dates:
        offsets = draw(st.lists(st.integers(0, 90), min_size=1, max_size=3, unique=True))
        dates = tuple(
            DiscountDate(due_date - timedelta(days=o), draw(st.integers(0, bound - 1)))
            for o in sorted(offsets)
        )
        discount = Discount(modality, dates=tuple(sorted(dates, key=lambda d: d.until)))
    else:
        discount = Discount(modality, value=draw(st.integers(0, bound - 1)))
    return DueTerms(
        original, due_date, days_after_due, fine, interest, rebate, draw(st.none() | st.just(discount))
    )


HUNDRED = 100_00


def _window(terms: DueTerms) -> list[date]:
    first = terms.due_date - timedelta(days=100)
    return [first + timedelta(days=n) for n in range((terms.last_payable_day() - first).days + 1)]


@settings(max_examples=150)
@given(due_terms())
def test_the_amount_never_falls_as_the_days_pass_and_stays_in_its_bounds(terms: DueTerms) -> None:
    previous = 0
    for day in _window(terms):
        parts = amount_breakdown(terms, day)
        assert parts.final >= previous, day
        previous = parts.final
        assert parts.final >= 1
        assert min(parts.rebate, parts.discount, parts.fine, parts.interest) >= 0
        assert parts.original == terms.original
        on_time = day <= terms.effective_due_date()
        if on_time:
            assert parts.fine == parts.interest == 0
            assert parts.final <= terms.original
        else:
            assert parts.discount == 0  # a late payer earns no discount
            assert parts.final >= terms.original - parts.rebate
        if terms.rebate is None:
            assert parts.rebate == 0
        else:  # the rebate applies on every day, the same
            assert parts.rebate == amount_breakdown(terms, terms.last_payable_day()).rebate
        if terms.discount is None:
            assert parts.discount == 0
    with pytest.raises(DueChargeClosed):
        amount_due(terms, terms.last_payable_day() + timedelta(days=1))


@settings(max_examples=150)
@given(due_terms())
def test_the_window_opens_on_a_business_day_and_closes_on_one(terms: DueTerms) -> None:
    effective, last = terms.effective_due_date(), terms.last_payable_day()
    assert is_business_day(effective)
    assert is_business_day(last)
    assert effective >= terms.due_date
    assert (effective - terms.due_date).days <= 5  # the longest run: a holiday week-end plus Carnival
    assert (last - effective).days >= terms.days_after_due


@settings(max_examples=150)
@given(due_terms(), st.integers(1, 40))
def test_business_day_interest_does_not_grow_on_days_off(terms: DueTerms, late: int) -> None:
    if terms.interest is None or not terms.interest.modality.business_days:
        return
    day = terms.effective_due_date() + timedelta(days=late)
    if day > terms.last_payable_day() or is_business_day(day):
        return
    before = day - timedelta(days=1)
    if before > terms.effective_due_date():
        assert amount_breakdown(terms, day).interest == amount_breakdown(terms, before).interest


@settings(max_examples=150)
@given(due_terms(), st.integers(1, 60))
def test_business_day_discount_does_not_shrink_across_days_off(terms: DueTerms, early: int) -> None:
    if terms.discount is None or not terms.discount.modality.business_days:
        return
    day = terms.due_date - timedelta(days=early)
    if is_business_day(day):
        return
    before = day - timedelta(days=1)
    assert amount_breakdown(terms, before).discount == amount_breakdown(terms, day).discount


@settings(max_examples=150)
@given(due_terms(), st.integers(-100, 10))
def test_a_fixed_date_discount_holds_up_to_its_dates_only(terms: DueTerms, offset: int) -> None:
    discount = terms.discount
    if discount is None or not discount.modality.fixed_dates:
        return
    day = terms.due_date + timedelta(days=offset)
    if day > terms.last_payable_day():
        return
    parts = amount_breakdown(terms, day)
    held = [item for item in discount.dates if day <= next_business_day(item.until)]
    if not held:
        assert parts.discount == 0
        return
    base = terms.original - parts.rebate  # a percentage discount is of what the rebate leaves
    for item in held:  # every item still in force is at least given (the floor of 0.01 aside)
        exact = Decimal(base * item.value) / HUNDRED if discount.modality.percent else Decimal(item.value)
        value = int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))
        assert parts.discount >= value or parts.discount == base - 1


@settings(max_examples=150)
@given(due_terms())
def test_terms_written_back_read_the_same(terms: DueTerms) -> None:
    calendar, value = terms_wire(terms)
    assert parse({"calendario": calendar, "valor": value}, today=terms.due_date) == terms


@given(st.integers(1, MAX_CENTS), st.integers(0, 99_99))
def test_a_percentage_is_rounded_half_up_to_the_centavo(original: int, percent: int) -> None:
    terms = DueTerms(original, date(2025, 4, 10), 0, rebate=Rebate(RebateModality.PERCENT, percent))
    rebate = amount_breakdown(terms, date(2025, 4, 10)).rebate
    exact = Decimal(original) * Decimal(percent) / Decimal(10_000)  # centavos, exact (28 digits suffice)
    assert rebate == min(int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP)), original - 1)


# -- the rules of the request ---------------------------------------------------------------


def test_a_plain_charge_parses() -> None:
    terms = parse({"calendario": {"dataDeVencimento": "2020-01-01", "validadeAposVencimento": 0},
                   "valor": {"original": "0.01"}})  # fmt: skip
    assert terms == DueTerms(1, date(2020, 1, 1), 0)


def test_every_broken_rule_is_listed_at_once() -> None:
    body = {
        "calendario": {"dataDeVencimento": "2019-12-31", "validadeAposVencimento": -1},
        "valor": {
            "original": "0.00",
            "multa": {"modalidade": 3, "valorPerc": "2.5"},
            "juros": {"modalidade": 0, "valorPerc": 1},
            "abatimento": {"modalidade": 2, "valorPerc": "100.00"},
            "desconto": {"modalidade": 1, "valorPerc": "1.00"},
        },
    }
    assert problems(body) == [
        "calendario.dataDeVencimento: must not be before today (2020-01-01)",
        "calendario.validadeAposVencimento: a whole number of days, 0 to 2147483647",
        "valor.original: must be above zero",
        "valor.multa.modalidade: required, 1 to 2",
        f"valor.multa.valorPerc: {AMOUNT_RULE}",
        "valor.juros.modalidade: required, 1 to 8",
        f"valor.juros.valorPerc: {AMOUNT_RULE}",
        "valor.abatimento.valorPerc: a percentage below 100.00",
        "valor.desconto.valorPerc: must be left out with modalidade 1 or 2 (use descontoDataFixa)",
        "valor.desconto.descontoDataFixa: required with modalidade 1 or 2, 1 to 3 items",
    ]


def test_the_error_says_every_rule_in_its_message_too() -> None:
    with pytest.raises(ValidationError) as raised:
        parse({"calendario": {"dataDeVencimento": "x"}, "valor": {"original": "0.00"}})
    assert wire_message(raised.value) == (
        "Invalid due charge: calendario.dataDeVencimento: required, a date YYYY-MM-DD;"
        " valor.original: must be above zero"
    )


def test_discount_dates_are_not_judged_against_a_refused_due_date() -> None:
    dates = [{"data": "2019-12-01", "valorPerc": "1.00"}]
    body = {
        "calendario": {"dataDeVencimento": "2019-12-31"},
        "valor": {"original": "10.00", "desconto": {"modalidade": 1, "descontoDataFixa": dates}},
    }
    assert problems(body) == ["calendario.dataDeVencimento: must not be before today (2020-01-01)"]


def test_the_fixed_dates_of_a_discount_are_each_judged() -> None:
    body = {
        "calendario": {"dataDeVencimento": "2025-04-30"},
        "valor": {
            "original": "10.00",
            "desconto": {
                "modalidade": 1,
                "descontoDataFixa": [
                    {"data": "2025-05-01", "valorPerc": "1.00"},
                    {"data": "2025-02-30", "valorPerc": "10.00"},
                    {"data": "2025-04-01", "valorPerc": "1.00"},
                ],
            },
        },
    }
    assert problems(body) == [
        "valor.desconto.descontoDataFixa[0].data: must not be after calendario.dataDeVencimento",
        "valor.desconto.descontoDataFixa[1].data: required, a date YYYY-MM-DD that exists",
        "valor.desconto.descontoDataFixa[1].valorPerc: must be below valor.original (10.00)",
    ]
    body["valor"]["desconto"]["descontoDataFixa"] = [{"data": "2025-04-01", "valorPerc": "1.00"}] * 2
    assert problems(body) == ["valor.desconto.descontoDataFixa[1].data: each date at most once"]
    body["valor"]["desconto"]["descontoDataFixa"] = [
        {"data": f"2025-04-0{n}", "valorPerc": "1.00"} for n in range(1, 5)
    ]
    assert problems(body) == [
        "valor.desconto.descontoDataFixa: required with modalidade 1 or 2, 1 to 3 items"
    ]
    body["valor"]["desconto"]["descontoDataFixa"] = []
    assert problems(body) == [
        "valor.desconto.descontoDataFixa: required with modalidade 1 or 2, 1 to 3 items"
    ]
    body["valor"]["desconto"] = {
        "modalidade": 2,
        "descontoDataFixa": [{"data": "2025-04-01", "valorPerc": "100.00"}],
    }
    assert problems(body) == ["valor.desconto.descontoDataFixa[0].valorPerc: a percentage below 100.00"]
    body["valor"]["desconto"] = {"modalidade": 2, "descontoDataFixa": [{"data": None, "valorPerc": None}]}
    assert problems(body) == [
        "valor.desconto.descontoDataFixa[0].data: required, a date YYYY-MM-DD",
        f"valor.desconto.descontoDataFixa[0].valorPerc: {AMOUNT_RULE}",
    ]


@pytest.mark.parametrize("modality", [3, 4, 5, 6])
def test_a_discount_per_day_takes_a_value_and_no_dates(modality: int) -> None:
    body: dict[str, Any] = {
        "calendario": {"dataDeVencimento": "2025-04-30"},
        "valor": {"original": "10.00", "desconto": {"modalidade": modality, "descontoDataFixa": []}},
    }
    assert problems(body) == [
        "valor.desconto.descontoDataFixa: must be left out with modalidade 3 to 6 (use valorPerc)",
        f"valor.desconto.valorPerc: {AMOUNT_RULE}",
    ]
    percent = modality in (5, 6)
    body["valor"]["desconto"] = {"modalidade": modality, "valorPerc": "100.00" if percent else "10.00"}
    expected = "a percentage below 100.00" if percent else "must be below valor.original (10.00)"
    assert problems(body) == [f"valor.desconto.valorPerc: {expected}"]
    body["valor"]["desconto"]["valorPerc"] = "99.99" if percent else "9.99"
    assert parse(body).discount == Discount(DiscountModality(modality), value=9999 if percent else 999)


def test_a_rebate_must_be_below_the_original() -> None:
    rebate = {"modalidade": 1, "valorPerc": "10.00"}
    body = {
        "calendario": {"dataDeVencimento": "2025-04-30"},
        "valor": {"original": "10.00", "abatimento": rebate},
    }
    assert problems(body) == ["valor.abatimento.valorPerc: must be below valor.original (10.00)"]


@pytest.mark.parametrize(
    ("calendar", "value", "expected"),
    [
        (None, None, ["calendario: required, with dataDeVencimento", "valor: required, an object"]),
        ({}, {}, ["calendario.dataDeVencimento: required, a date YYYY-MM-DD",
                  f"valor.original: {AMOUNT_RULE}"]),
        ({"dataDeVencimento": "2025-04-10\n"}, {"original": 10}, [
            "calendario.dataDeVencimento: required, a date YYYY-MM-DD",
            f"valor.original: {AMOUNT_RULE}"]),
        ({"dataDeVencimento": "2025-04-1\x00"}, {"original": "1.00\x00"}, [
            "calendario.dataDeVencimento: required, a date YYYY-MM-DD",
            f"valor.original: {AMOUNT_RULE}"]),
        ({"dataDeVencimento": FULLWIDTH_DATE}, {"original": "\uff11.00"}, [
            "calendario.dataDeVencimento: required, a date YYYY-MM-DD",
            f"valor.original: {AMOUNT_RULE}"]),
        ({"dataDeVencimento": 20250410, "validadeAposVencimento": "30"}, {"original": "1.00"}, [
            "calendario.dataDeVencimento: required, a date YYYY-MM-DD",
            "calendario.validadeAposVencimento: a whole number of days, 0 to 2147483647"]),
        ({"dataDeVencimento": "2025-04-10", "validadeAposVencimento": True}, {"original": "1.00"}, [
            "calendario.validadeAposVencimento: a whole number of days, 0 to 2147483647"]),
        ({"dataDeVencimento": "2025-04-10", "validadeAposVencimento": 2**31}, {"original": "1.00"}, [
            "calendario.validadeAposVencimento: a whole number of days, 0 to 2147483647"]),
        ({"dataDeVencimento": "2025-04-10", "validadeAposVencimento": 2**31 - 1}, {"original": "1.00"}, [
            "calendario.validadeAposVencimento: the last day to pay would fall after 9999-12-31"]),
        ({"dataDeVencimento": "9999-12-31", "validadeAposVencimento": 1}, {"original": "1.00"}, [
            "calendario.validadeAposVencimento: the last day to pay would fall after 9999-12-31"]),
        ({"dataDeVencimento": "2025-04-10"},
         {"original": "1.00", "multa": {"modalidade": True, "valorPerc": "1.00"}},
         ["valor.multa.modalidade: required, 1 to 2"]),
        ({"dataDeVencimento": "2025-04-10"},
         {"original": "1.00", "juros": {"modalidade": 9, "valorPerc": "1.00"}},
         ["valor.juros.modalidade: required, 1 to 8"]),
        ({"dataDeVencimento": "2025-04-10"},
         {"original": "1.00", "desconto": {"modalidade": 7, "valorPerc": "1.00"}},
         ["valor.desconto.modalidade: required, 1 to 6"]),
        ({"dataDeVencimento": "2025-04-10"}, {"original": "1.00", "abatimento": {}},
         ["valor.abatimento.modalidade: required, 1 to 2",
          f"valor.abatimento.valorPerc: {AMOUNT_RULE}"]),
    ],
)  # fmt: skip
def test_a_broken_rule_is_named_by_its_path(calendar: Any, value: Any, expected: list[str]) -> None:
    body: dict[str, Any] = {}
    if calendar is not None:
        body["calendario"] = calendar
    if value is not None:
        body["valor"] = value
    assert problems(body) == expected


def test_terms_whose_last_day_would_owe_more_than_the_wire_holds_are_refused() -> None:
    body = {
        "calendario": {"dataDeVencimento": "2025-04-10", "validadeAposVencimento": 1000},
        "valor": {"original": "9999999999.00", "juros": {"modalidade": 2, "valorPerc": "1.00"}},
    }
    [problem] = problems(body)
    assert problem.startswith("valor: with multa and juros the amount due would reach ")
    assert problem.endswith("by the last day to pay (2028-01-05), above 9999999999.99")
    body["valor"] = {"original": "9999999999.99", "multa": {"modalidade": 1, "valorPerc": "0.00"}}
    assert parse(body).original == MAX_CENTS  # zero changes nothing, and is accepted


def test_a_due_date_of_today_is_accepted_and_of_yesterday_refused() -> None:
    body = {"calendario": {"dataDeVencimento": "2025-04-10"}, "valor": {"original": "1.00"}}
    assert parse(body, today=date(2025, 4, 10)).due_date == date(2025, 4, 10)
    assert problems(body, today=date(2025, 4, 11)) == [
        "calendario.dataDeVencimento: must not be before today (2025-04-11)"
    ]


def test_the_error_names_the_last_day_to_pay() -> None:
    terms = DueTerms(100, date(2025, 4, 10), 1)
    with pytest.raises(DueChargeClosed) as raised:
        amount_due(terms, date(2025, 4, 14))
    assert (
        wire_message(raised.value)
        == "The due charge could be paid until 2025-04-11; it cannot be paid on 2025-04-14."
    )


_JUNK = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=30)
    | st.sampled_from(["2025-04-10", "2025-02-29", "0000-01-01", "1.00", "99.99", "100.00", "0.00", "\x00"])
    | st.sampled_from([0, 1, 2, 3, 6, 8, 9, -1, 2**31, 2**63])
)
_RATES = st.none() | st.builds(RateFields, _JUNK, _JUNK)
_DATES = st.none() | st.lists(st.builds(DiscountDateFields, _JUNK, _JUNK), max_size=4).map(tuple)


@settings(max_examples=300)
@given(
    st.none() | st.builds(DueCalendarFields, _JUNK, _JUNK | st.just(ABSENT)),
    st.none()
    | st.builds(
        DueValueFields,
        _JUNK,
        _RATES,
        _RATES,
        _RATES,
        st.none() | st.builds(DiscountFields, _JUNK, _JUNK, _DATES),
    ),
)
def test_any_input_is_judged_never_a_crash(
    calendar: DueCalendarFields | None, value: DueValueFields | None
) -> None:
    try:
        terms = parse_due_terms(calendar, value, today=date(2025, 4, 1))
    except ValidationError as error:
        details = error.details
    else:
        assert 1 <= terms.original <= MAX_CENTS
        assert amount_due(terms, terms.last_payable_day()) <= MAX_CENTS
        return
    assert details  # at least one rule, named by its path
    assert all(": " in problem for problem in details)


def test_a_fine_above_100_percent_is_valid_and_the_written_form_is_plain() -> None:
    body = {
        "calendario": {"dataDeVencimento": "2025-04-10", "validadeAposVencimento": 1},
        "valor": {
            "original": "0010.00",
            "multa": {"modalidade": 2, "valorPerc": "150.00"},
            "desconto": {
                "modalidade": 1,
                "descontoDataFixa": [
                    {"data": "2025-04-09", "valorPerc": "1.00"},
                    {"data": "2025-04-01", "valorPerc": "2.00"},
                ],
            },
        },
    }
    terms = parse(body)
    assert amount_due(terms, date(2025, 4, 10)) == 1000
    assert amount_breakdown(terms, date(2025, 4, 11)) == DueAmount(1000, 0, 0, 1500, 0)
    assert amount_due(terms, date(2025, 4, 11)) == 2500
    _calendar, value = terms_wire(terms)
    assert value["original"] == "10.00"
    assert [item["data"] for item in value["desconto"]["descontoDataFixa"]] == ["2025-04-01", "2025-04-09"]


def test_a_discount_without_its_modality_still_has_each_member_judged_by_its_form() -> None:
    body = {
        "calendario": {"dataDeVencimento": "2025-04-30"},
        "valor": {
            "original": "100.00",
            "desconto": {"valorPerc": "1.0", "descontoDataFixa": [{"data": "30/04", "valorPerc": "x"}]},
        },
    }
    found = problems(body)
    assert "valor.desconto.modalidade: required, 1 to 6" in found
    assert any(p.startswith("valor.desconto.valorPerc: required, a string") for p in found)
    assert any(p.startswith("valor.desconto.descontoDataFixa[0].data:") for p in found)
    assert any(p.startswith("valor.desconto.descontoDataFixa[0].valorPerc: required") for p in found)
