"""Which language a console request gets, and money and dates in each."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from pixweb.console.language import LANGUAGES, choose, language


@pytest.mark.parametrize(
    ("cookie", "header", "chosen"),
    [
        (None, None, "pt_BR"),  # nothing said: Brazilian Portuguese
        (None, "", "pt_BR"),
        (None, "de-DE,fr;q=0.8", "pt_BR"),  # none the console has
        (None, "en-US,en;q=0.9", "en"),
        (None, "en-GB", "en"),
        (None, "pt-BR,pt;q=0.9,en;q=0.8", "pt_BR"),
        (None, "pt-PT", "pt_BR"),
        (None, "fr, en;q=0.5, pt;q=0.4", "en"),  # the first the console has, by quality
        (None, "pt;q=0.2, en;q=0.7", "en"),
        (None, "en;q=0, pt;q=0.1", "pt_BR"),  # q=0: not acceptable
        (None, "en;q=nan", "pt_BR"),
        (None, "en;q=abc", "pt_BR"),
        ("en", "pt-BR", "en"),  # the switch's cookie over the browser
        ("pt_BR", "en-US", "pt_BR"),
        ("xx", "en", "en"),  # a cookie of no language is ignored
        ("../../etc", None, "pt_BR"),
    ],
)
def test_the_cookie_then_accept_language_then_portuguese(
    cookie: str | None, header: str | None, chosen: str
) -> None:
    assert choose(cookie, header).code == chosen


def test_a_huge_header_is_read_no_further_than_its_start() -> None:
    assert choose(None, "en," + "x" * 100_000).code == "en"
    assert choose(None, "x" * 100_000 + ",en").code == "pt_BR"


def test_money_in_brazils_format_and_in_english() -> None:
    pt, en = language("pt_BR"), language("en")
    assert pt.money(123456) == "R$\xa01.234,56"  # a no-break space keeps R$ with its number
    assert pt.money(9721) == "R$\xa097,21"
    assert pt.money(0) == "R$\xa00,00"
    assert pt.money(-500) == "-R$\xa05,00"
    assert en.money(123456) == "R$1,234.56"
    assert pt.reais("1234.56") == "R$\xa01.234,56"  # the API's amount text
    assert en.reais("0.10") == "R$0.10"


def test_dates_as_dd_mm_yyyy_in_portuguese_in_utc() -> None:
    pt, en = language("pt_BR"), language("en")
    assert pt.day(date(2026, 1, 5)) == "05/01/2026"
    assert en.day(date(2026, 1, 5)) == "Jan 5, 2026"
    moment = datetime(2026, 1, 5, 23, 4, 5, tzinfo=UTC)
    assert pt.moment(moment) == "05/01/2026 23:04:05"
    assert en.moment(moment) == "Jan 5, 2026 11:04:05\u202fPM"  # CLDR: a narrow no-break space
    assert pt.moment("2026-01-05T23:04:05.123Z") == "05/01/2026 23:04:05"  # the API's timestamps
    assert pt.moment("2026-01-05T20:04:05-03:00") == "05/01/2026 23:04:05"  # shown in UTC


def test_each_language_has_its_catalog() -> None:
    assert language("pt_BR").gettext("Overview") == "Visão geral"
    assert language("en").gettext("Overview") == "Overview"
    assert language("pt_BR").gettext("Transaction %(id)s", id=7) == "Transação 7"
    assert set(LANGUAGES) == {"pt_BR", "en"}
    with pytest.raises(KeyError):
        language("fr")
