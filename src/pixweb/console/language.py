"""The console's languages: which one a request gets, and its words, money and dates.

Brazilian Portuguese unless the browser prefers English (``Accept-Language``); the header's
switch (``POST /console/language``) overrides both for the browser with the cookie
:data:`COOKIE`. The words come from the gettext catalogs in ``locale/`` (docs/console.md says
how to add one); money and dates are Babel's, in the language's format.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path

from babel.dates import format_date, format_skeleton, format_time
from babel.numbers import format_currency
from babel.support import NullTranslations, Translations

from pixcore.money import cents_to_decimal

__all__ = ["COOKIE", "DEFAULT", "LANGUAGES", "LOCALE_DIR", "SOURCE", "Language", "choose", "language", "noop"]

LOCALE_DIR = Path(__file__).parent / "locale"
COOKIE = "pix_console_lang"
DEFAULT = "pt_BR"
SOURCE = "en"
"""The language the texts are written in (the catalogs' ``msgid``, and the domain's messages)."""
LANGUAGES = {"pt_BR": "Português", "en": "English"}
"""Each language of the console, by its catalog's name, with its own name for the switch."""
_DATES = {"pt_BR": "short", "en": "medium"}  # 05/01/2025; Jan 5, 2025
_MAX_HEADER = 500  # an Accept-Language longer than this is read no further


def noop(message: str) -> str:
    """Marks a text for the catalogs where it is translated later (a status's label)."""
    return message


@dataclass(frozen=True, slots=True)
class Language:
    """One language of the console: its catalog, and money and dates as its readers write them."""

    code: str
    translations: NullTranslations

    @property
    def tag(self) -> str:
        """The page's ``lang`` (``pt-BR``)."""
        return self.code.replace("_", "-")

    def gettext(self, message: str, **values: object) -> str:
        """``message`` in this language, ``%(name)s`` filled in from ``values``."""
        text = self.translations.gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, count: int, **values: object) -> str:
        return self.translations.ngettext(singular, plural, count) % ({"num": count} | values)

    def money(self, cents: int) -> str:
        """``R$ 1.234,56`` (``R$1,234.56`` in English), from integer centavos."""
        return format_currency(cents_to_decimal(cents), "BRL", locale=self.code)

    def reais(self, amount: str | Decimal) -> str:
        """The API's amount text (``"1234.56"``) as :meth:`money` writes it."""
        return format_currency(Decimal(amount), "BRL", locale=self.code)

    def day(self, moment: date | str) -> str:
        """``05/01/2025`` (``Jan 5, 2025``); a moment is its UTC day."""
        when = _moment(moment)
        day = when.astimezone(UTC).date() if isinstance(when, datetime) else when
        return format_date(day, _DATES[self.code], locale=self.code)

    def day_month(self, day: date) -> str:
        """A day without its year, for an axis: ``05/01`` (``1/5``)."""
        return format_skeleton("dM", day, locale=self.code)

    def moment(self, moment: date | str) -> str:
        """``05/01/2025 15:04:05`` (``Jan 5, 2025 3:04:05 PM``), in UTC as every page says."""
        when = _moment(moment)
        if not isinstance(when, datetime):
            return self.day(when)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        clock = format_time(when, "medium", tzinfo=UTC, locale=self.code)
        return f"{self.day(when)} {clock}"


def _moment(value: date | str) -> date:
    """A date or a moment; the API's ISO 8601 text read as one."""
    if not isinstance(value, str):
        return value
    text = value.replace("Z", "+00:00")
    return datetime.fromisoformat(text) if "T" in text or " " in text else date.fromisoformat(text)


@cache
def language(code: str) -> Language:
    """The language ``code`` of :data:`LANGUAGES`, its catalog read once per process."""
    if code not in LANGUAGES:
        raise KeyError(code)
    return Language(code, Translations.load(str(LOCALE_DIR), [code]))


def _supported(tag: str) -> str | None:
    """The console's language for one language tag (``pt``, ``pt-PT``, ``en-GB``...)."""
    primary = tag.strip().replace("_", "-").split("-")[0].lower()
    return {"pt": "pt_BR", "en": "en"}.get(primary)


def _preferred(header: str) -> str | None:
    """The first language of ``Accept-Language`` the console has, by quality then order."""
    ranked: list[tuple[float, int, str]] = []
    for place, part in enumerate(header[:_MAX_HEADER].split(",")):
        tag, _, params = part.partition(";")
        quality = 1.0
        name, _, value = params.strip().partition("=")
        if name.strip() == "q":
            try:
                quality = float(value)
            except ValueError:
                continue
        code = _supported(tag)
        if code is not None and 0 < quality <= 1:
            ranked.append((-quality, place, code))
    return min(ranked)[2] if ranked else None


def choose(cookie: str | None, accept_language: str | None) -> Language:
    """The switch's cookie, else the browser's preference, else Brazilian Portuguese."""
    if cookie is not None and cookie in LANGUAGES:
        return language(cookie)
    return language(_preferred(accept_language or "") or DEFAULT)
