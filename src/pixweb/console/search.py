"""The console's search (the header's box): an end-to-end id, a txid or an amount as typed, and
the signed-in account's transactions and charges that match it (``pixcore.queries.search``)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get
from litestar.exceptions import ValidationException

from pixcore.clock import Clock
from pixcore.errors import InvalidQuery
from pixcore.queries.rules import TransactionQueries
from pixcore.queries.search import CONTROL_CHARACTERS, parse_search, search_records
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.api.deps import Injected
from pixweb.console.charges import charge_rows
from pixweb.console.pages import transaction_lines
from pixweb.console.session import ConsoleSession
from pixweb.console.web import FormErrors, account_of, language_of, page

__all__ = ["search"]


def _unreadable(request: Request[Any, Any, Any], _: ValidationException) -> Response[Any]:
    """The edge refused the query string (a NUL byte, ``pixweb.edge``) before the session was read:
    the search page says why, as the rule would."""
    if not hasattr(request.state, "console_session"):
        request.state.console_session = ConsoleSession.anonymous()
    errors = FormErrors(InvalidQuery(CONTROL_CHARACTERS))
    title = language_of(request).gettext("Search")
    return page(request, "search.html", status_code=400, title=title, q="", errors=errors, result=None)


@get(
    "/search",
    name="console:search",
    include_in_schema=False,
    exception_handlers={ValidationException: _unreadable},
)
async def search(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    queries: Injected[TransactionQueries],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """``?q=``: read as the search rule reads it; a text it refuses (empty, too long, a control
    character, neither an id nor an amount) is the page again with the rule's message (400)."""
    text = request.query_params.get("q")
    lang = language_of(request)
    title = lang.gettext("Search")
    if text is None:
        return page(request, "search.html", title=title, q="", errors=FormErrors(), result=None)
    try:
        terms = parse_search(text)
    except InvalidQuery as exc:
        shown = text if len(text) <= 200 and text.isprintable() else ""  # kept when it can be shown
        return page(
            request,
            "search.html",
            status_code=400,
            title=title,
            q=shown,
            errors=FormErrors(exc),
            result=None,
        )
    now = clock.now()
    found = await search_records(queries, uow, account_id=account_of(request), terms=terms, now=now)
    return page(
        request,
        "search.html",
        title=title,
        q=terms.text,
        errors=FormErrors(),
        terms=terms,
        amount=terms.amount,
        result=found,
        lines=transaction_lines(found.transactions, lang),
        charges=charge_rows(found.charges, now),
    )
