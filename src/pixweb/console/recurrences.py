"""Recurrences (Pix Automático): the account's list, newest first, and a recurrence's page with
its terms, its payer, its history and its recurring charges with their attempts. The same use
cases as ``GET /rec``, ``GET /rec/{idRec}`` and ``GET /cobr``; read only (the API makes them)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from litestar import Request, Response, get
from litestar.params import FromPath

from pixcore.clock import Clock
from pixcore.queries.standard import MAX_ITEMS, Page
from pixcore.recurrences import (
    ChargeListQuery,
    Periodicity,
    Recurrence,
    RecurrenceListQuery,
    RecurringCharge,
    RetryPolicy,
    list_recurrences,
    list_recurring_charges,
    read_recurrence,
)
from pixcore.recurrences.closing import today_of
from pixcore.unit_of_work import ReadUnitsOfWork, UnitOfWorkFactory
from pixweb.api.deps import Injected
from pixweb.console.language import Language, noop
from pixweb.console.web import account_of, language_of, page

__all__ = ["newest_recurrences", "recurrence_detail", "recurrence_rows", "recurrences"]

LISTED = 50  # the newest recurrences the list shows
SINCE = datetime(2000, 1, 1, tzinfo=UTC)
"""Before any recurrence: the lists' window opens here and closes now."""

PERIODICITIES: dict[Periodicity, str] = {
    Periodicity.SEMANAL: noop("Weekly"),
    Periodicity.MENSAL: noop("Monthly"),
    Periodicity.TRIMESTRAL: noop("Quarterly"),
    Periodicity.SEMESTRAL: noop("Every six months"),
    Periodicity.ANUAL: noop("Yearly"),
}
"""What each periodicity is called (``calendario.periodicidade``, translated)."""

RETRY_POLICIES: dict[RetryPolicy, str] = {
    RetryPolicy.NAO_PERMITE: noop("No retries"),
    RetryPolicy.PERMITE_3R_7D: noop("Up to 3 retries within 7 days"),
}
"""What each retry policy (``politicaRetentativa``) allows, in words."""


@dataclass(frozen=True, slots=True)
class RecurrenceRow:
    """A line of the list: its amount is the fixed one (``valorRec``) or, when the amount varies,
    the receiver's minimum (``minimum`` true), or none."""

    rec_id: str
    debtor: str
    purpose: str | None
    periodicity: str
    amount: int | None
    minimum: bool
    status: str


def _amount(recurrence: Recurrence) -> tuple[int | None, bool]:
    if recurrence.fixed_amount is not None:
        return recurrence.fixed_amount, False
    return recurrence.minimum_amount, recurrence.minimum_amount is not None


def recurrence_rows(recurrences: Iterable[Recurrence], now: datetime, lang: Language) -> list[RecurrenceRow]:
    """The lines of the recurrences' table, each status as a reader sees it at ``now``."""
    today = today_of(now)
    rows = []
    for recurrence in recurrences:
        amount, minimum = _amount(recurrence)
        rows.append(
            RecurrenceRow(
                rec_id=recurrence.rec_id,
                debtor=recurrence.debtor.name,
                purpose=recurrence.purpose,
                periodicity=lang.gettext(PERIODICITIES[recurrence.periodicity]),
                amount=amount,
                minimum=minimum,
                status=recurrence.status_at(today).value,
            )
        )
    return rows


async def newest_recurrences(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, limit: int = LISTED
) -> tuple[int, list[Recurrence]]:
    """The account's ``limit`` newest recurrences, newest first, and how many it has in all.
    ``GET /rec`` pages them oldest first: the last page (with the one before it, when the last
    is short) holds the newest."""

    async def page_of(number: int) -> tuple[int, tuple[Recurrence, ...]]:
        query = RecurrenceListQuery(SINCE, clock.now(), page=Page(number, limit))
        listing = await list_recurrences(uow, clock, account_id=account_id, query=query)
        return listing.total, listing.recurrences

    total, found = await page_of(0)
    if total > limit:
        last = (total - 1) // limit
        found = (await page_of(last - 1))[1] + (await page_of(last))[1]
    return total, list(reversed(found))[:limit]


@get("/recurrences", name="console:recurrences", include_in_schema=False)
async def recurrences(
    request: Request[Any, Any, Any], *, reads: Injected[ReadUnitsOfWork], clock: Injected[Clock]
) -> Response[Any]:
    """The account's newest recurrences, each linking to its page."""
    lang = language_of(request)
    account_id = account_of(request)
    total, found = await newest_recurrences(reads.uow(account_id), clock, account_id=account_id)
    return page(
        request,
        "recurrences.html",
        title=lang.gettext("Recurrences"),
        rows=recurrence_rows(found, clock.now(), lang),
        total=total,
        listed=LISTED,
    )


async def _charges_of(
    uow: UnitOfWorkFactory, clock: Clock, account_id: int, rec_id: str
) -> list[RecurringCharge]:
    """The recurrence's recurring charges, by due date (one per cycle: a page holds them all)."""
    query = ChargeListQuery(SINCE, clock.now(), rec_id=rec_id, page=Page(0, MAX_ITEMS))
    listing = await list_recurring_charges(uow, account_id=account_id, query=query)
    return sorted(listing.charges, key=lambda charge: (charge.due_date, charge.id))


@get("/recurrences/{rec_id:str}", name="console:recurrence", include_in_schema=False)
async def recurrence_detail(
    request: Request[Any, Any, Any],
    rec_id: FromPath[str],
    *,
    uow: Injected[UnitOfWorkFactory],
    clock: Injected[Clock],
) -> Response[Any]:
    """A recurrence of the account (another's is not found), its history, its requests to the
    payer's bank and its recurring charges with their attempts."""
    lang = language_of(request)
    account_id = account_of(request)
    view = await read_recurrence(uow, clock, account_id=account_id, rec_id=rec_id)
    recurrence = view.recurrence
    amount, minimum = _amount(recurrence)
    return page(
        request,
        "recurrence.html",
        title=lang.gettext("Recurrence %(rec_id)s", rec_id=recurrence.rec_id),
        recurrence=recurrence,
        state=view.status.value,
        periodicity=lang.gettext(PERIODICITIES[recurrence.periodicity]),
        retry_policy=lang.gettext(RETRY_POLICIES[recurrence.retry_policy]),
        amount=amount,
        minimum=minimum,
        requests=[(request_, request_.status_at(clock.now()).value) for request_ in view.requests],
        charges=await _charges_of(uow, clock, account_id, recurrence.rec_id),
    )
