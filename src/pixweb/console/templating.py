"""The console's Jinja environment: autoescaped templates, each compiled once per process, with
``jinja2.ext.i18n`` (``{% trans %}``, ``_()``) speaking the request's language, and the filters
that write money and dates in it.

A page's context carries its :class:`~pixweb.console.language.Language` as ``lang``
(``pixweb.console.web.page``); the gettext functions and filters read it there, so a template
that imports macros imports them ``with context``.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from pixweb.console.language import Language
from pixweb.console.statuses import STATUSES, TYPES, status_for

__all__ = ["console_environment", "language_in"]

TEMPLATES = Path(__file__).parent / "templates"


def language_in(context: Context) -> Language:
    """The page's language; a template rendered without one is a mistake, said at once."""
    lang = context.get("lang")
    if not isinstance(lang, Language):
        problem = "no language in the context (import macros 'with context')"
        raise TypeError(f"{context.name}: {problem}")
    return lang


@pass_context
def _gettext(context: Context, message: str) -> str:
    return language_in(context).translations.gettext(message)


@pass_context
def _ngettext(context: Context, singular: str, plural: str, count: int) -> str:
    return language_in(context).translations.ngettext(singular, plural, count)


@pass_context
def _pgettext(context: Context, within: str, message: str) -> str:
    """``message`` as said in ``within`` (the same English word, another translation: a timeline's
    "Created" is not a label's)."""
    return str(language_in(context).translations.pgettext(within, message))


@pass_context
def _money(context: Context, cents: int) -> str:
    return language_in(context).money(cents)


@pass_context
def _reais(context: Context, amount: str | Decimal) -> str:
    return language_in(context).reais(amount)


@pass_context
def _date(context: Context, moment: date | str | None) -> str:
    return language_in(context).day(moment) if moment else "—"


@pass_context
def _datetime(context: Context, moment: date | str | None) -> str:
    return language_in(context).moment(moment) if moment else "—"


@pass_context
def _status(context: Context, kind: str, state: object, id: str | None = None) -> Markup:  # noqa: A002
    """A state's one word in a coloured badge (``pixweb.console.statuses``); ``id``: the badge's,
    for a page's script or a test to find it."""
    shown = status_for(kind, state)
    label = language_in(context).translations.gettext(shown.label)
    badge = Markup('<span class="status status-{}"{}>{}</span>')
    return badge.format(shown.tone.value, Markup(' id="{}"').format(id) if id else "", label)


def console_environment() -> Environment:
    """Templates from the package, autoescaped, compiled once (``auto_reload`` off: the files do
    not change under a running service, so no page asks the file system whether they did)."""
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        auto_reload=False,
        extensions=["jinja2.ext.i18n"],
    )
    install: Any = environment.install_gettext_callables  # type: ignore[attr-defined]
    install(_gettext, _ngettext, newstyle=True, pgettext=_pgettext)
    environment.filters.update(money=_money, reais=_reais, date=_date, datetime=_datetime)
    environment.globals.update(
        status=_status,
        statuses=STATUSES,
        transaction_types=[(kind.value, label) for kind, label in TYPES.items()],
    )
    return environment
