"""Reading pages: the overview and the transactions, through the API's own use cases and its
display values (``pixweb.transfers.transactions.transaction_out``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any
from urllib.parse import urlencode

from litestar import Request, Response, get
from litestar.params import FromPath, QueryParameter

from pixcore.accounts.accounts_service import get_balance
from pixcore.clock import Clock
from pixcore.errors import InvalidQuery
from pixcore.queries.query_service import daily_flows, get_transaction, latest_transactions, list_transactions
from pixcore.queries.rules import (
    ListKind,
    Movement,
    TransactionQueries,
    TransactionView,
    movement_of,
    parse_list_query,
)
from pixcore.records import TransactionStatus
from pixcore.unit_of_work import ReadUnitsOfWork, UnitOfWorkFactory
from pixweb.api.deps import Injected
from pixweb.console.chart import daily_chart
from pixweb.console.language import Language
from pixweb.console.statuses import TYPES
from pixweb.console.timeline import transaction_timeline
from pixweb.console.web import FormErrors, account_of, language_of, page
from pixweb.transfers.transactions import list_out, status_record_out, transaction_out

__all__ = ["overview", "transaction_detail", "transaction_lines", "transaction_live", "transactions"]

Query = Annotated[str | None, QueryParameter(max_length=200)]
RECENT = 10  # the overview's last records
MINUS = "\N{MINUS SIGN}"  # a debit's sign, as typeset
FILTERS = ("page", "size", "status", "type", "startDate", "endDate", "externalId", "endToEndId")


def transaction_lines(items: Iterable[TransactionView], lang: Language) -> list[tuple[object, ...]]:
    """The cells of each record of a transactions table (``macros.html``), as the page shows them:
    id, date and time (UTC), type, status (for ``status()``), counterpart, credit or debit, signed
    amount."""
    lines: list[tuple[object, ...]] = []
    for view in items:
        credit = movement_of(view.type) is Movement.CREDIT
        lines.append(
            (
                view.id,
                lang.moment(view.created_at),
                lang.gettext(TYPES[view.type]),
                view.status,
                view.counterpart_name or "",
                "credit" if credit else "debit",
                ("+" if credit else MINUS) + lang.money(view.final_amount),
            )
        )
    return lines


@get("/", name="console:overview", include_in_schema=False)
async def overview(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    queries: Injected[TransactionQueries],
    reads: Injected[ReadUnitsOfWork],
) -> Response[Any]:
    """Balances, the last 10 records and the chart: three statements, whatever the account holds
    (the last records without counting the others, the chart one aggregate, ``daily_flows``).
    One after the other: run at once on three connections, they cost more CPU than they save
    waiting (measured at 10,000 records)."""
    account_id = account_of(request)
    now = clock.now()
    balance = await get_balance(reads.uow(account_id), account_id)
    recent = await latest_transactions(queries, account_id=account_id, now=now, count=RECENT)
    flows = await daily_flows(queries, account_id=account_id, now=now)
    lang = language_of(request)
    return page(
        request,
        "overview.html",
        title=lang.gettext("Overview"),
        balance={"available": balance.available, "blocked": balance.blocked, "total": balance.total},
        recent=transaction_lines(recent, lang),
        chart=daily_chart(flows, lang),
    )


@get("/transactions", name="console:transactions", include_in_schema=False)
async def transactions(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    queries: Injected[TransactionQueries],
    page_number: Annotated[str | None, QueryParameter(name="page", max_length=20)] = None,
    size: Query = None,
    status: Query = None,
    kind: Annotated[str | None, QueryParameter(name="type", max_length=200)] = None,
    start_date: Annotated[str | None, QueryParameter(name="startDate", max_length=200)] = None,
    end_date: Annotated[str | None, QueryParameter(name="endDate", max_length=200)] = None,
    external_id: Annotated[str | None, QueryParameter(name="externalId", max_length=200)] = None,
    end_to_end_id: Annotated[str | None, QueryParameter(name="endToEndId", max_length=200)] = None,
) -> Response[Any]:
    """The same filters and pages as ``GET /api/transactions`` (empty fields count as absent)."""
    raw = {
        "page": page_number,
        "size": size,
        "status": status,
        "type": kind,
        "startDate": start_date,
        "endDate": end_date,
        "externalId": external_id,
        "endToEndId": end_to_end_id,
    }
    given = {name: value for name, value in raw.items() if value}
    lang = language_of(request)
    try:
        query = parse_list_query(
            ListKind.TRANSACTIONS,
            now=clock.now(),
            page=given.get("page"),
            size=given.get("size"),
            status=given.get("status"),
            type=given.get("type"),
            start_date=given.get("startDate"),
            end_date=given.get("endDate"),
            external_id=given.get("externalId"),
            end_to_end_id=given.get("endToEndId"),
        )
    except InvalidQuery as exc:
        errors = FormErrors(exc, {name: (name,) for name in FILTERS})
        return page(
            request,
            "transactions.html",
            status_code=400,
            title=lang.gettext("Transactions"),
            filters=given,
            errors=errors,
            result=None,
            links={},
        )
    listed = await list_transactions(queries, account_id=account_of(request), query=query)
    found = list_out(listed)

    def link(number: int) -> str:
        return "/console/transactions?" + urlencode(given | {"page": str(number)})

    meta = found.metadata
    links = {
        "previous": link(meta.page - 1) if meta.has_previous else None,
        "next": link(meta.page + 1) if meta.has_next else None,
    }
    return page(
        request,
        "transactions.html",
        title=lang.gettext("Transactions"),
        filters=given,
        errors=FormErrors(),
        result=found,
        lines=transaction_lines(listed.items, lang),
        links=links,
    )


async def _transaction_page(
    request: Request[Any, Any, Any],
    template: str,
    identifier: str,
    queries: TransactionQueries,
    uow: UnitOfWorkFactory,
) -> Response[Any]:
    """A record's page or its changing part (``transaction_live.html``: its details and timeline),
    which names its own URL to be asked again while the record is pending or a notification about
    it is still to be delivered."""
    view = await get_transaction(queries, account_id=account_of(request), identifier=identifier)
    timeline = await transaction_timeline(uow, view)
    changing = view.status is TransactionStatus.PENDING or timeline.waiting
    return page(
        request,
        template,
        title=language_of(request).gettext("Transaction %(id)s", id=view.id),
        item=transaction_out(view),
        record=status_record_out(view),
        kind=TYPES[view.type],
        timeline=timeline.events,
        live=f"/console/transactions/{view.id}/live" if changing else None,
    )


@get("/transactions/{identifier:str}", name="console:transaction", include_in_schema=False)
async def transaction_detail(
    request: Request[Any, Any, Any],
    identifier: FromPath[str],
    *,
    queries: Injected[TransactionQueries],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """One record, by id or externalId, as ``GET /api/pix/transaction/{id}`` finds it (404 otherwise)."""
    return await _transaction_page(request, "transaction.html", identifier, queries, uow)


@get("/transactions/{identifier:str}/live", name="console:transaction-live", include_in_schema=False)
async def transaction_live(
    request: Request[Any, Any, Any],
    identifier: FromPath[str],
    *,
    queries: Injected[TransactionQueries],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The changing part of a record's page, for the page's script to ask again while it changes."""
    return await _transaction_page(request, "transaction_live.html", identifier, queries, uow)
