"""What ``cob`` and ``cobv`` read alike, one handler made for each kind: the standard's lists
(``GET /cob``, ``GET /cobv``, with the query of :mod:`pixweb.api.listing`) and one charge at a
revision (``GET /cob/{txid}``, ``GET /cobv/{txid}``). The two kinds differ only in their
documentation and in how an answer is shown."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec

from pixcore.charges.cob import ChargeKind
from pixcore.charges.cob_service import ChargeListing, ChargeView, read_charge, search_charges
from pixcore.clock import Clock
from pixcore.queries.standard import ChargeQuery
from pixcore.unit_of_work import ReadUnitsOfWork, UnitOfWorkFactory
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer
from pixweb.api.listing import QUERIES
from pixweb.api.standard import Revision, read_revision
from pixweb.charges.schemas import Txid
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.standard import on_standard_face
from pixweb.wire import PixResponse

Show = Callable[[UnitOfWorkFactory, int, ChargeView, datetime, bool], Awaitable[Any]]
"""How a read shows a charge: (units of work, account id, the charge read, now, whether on the
standard's face) to the answer's struct."""
Page = Callable[[UnitOfWorkFactory, int, ChargeQuery, ChargeListing, bool], Awaitable[Any]]
"""How a list shows a page: (units of work, account id, query, listing, whether on the standard's
face) to the answer's struct."""


def charge_list(
    *,
    due: bool,
    page: Page,
    shape: type[Any],
    answered: str,
    example: dict[str, Any],
    error_type: str,
    summary: str,
    description: str,
    operation_id: str,
) -> HTTPRouteHandler:
    """The ``GET /`` of a charge controller: ``cobv``'s if ``due``, ``cob``'s otherwise."""
    problems = {400: error_type}

    @get(
        "/",
        operation_id=operation_id,
        responses=answer(200, shape, answered, example) | problem_responses(problems, 400, 401),
        summary=summary,
        description=description,
        opt={PROBLEMS: problems},
        dependencies=QUERIES["cobv" if due else "cob"],
    )
    async def search(
        self: Controller,  # noqa: ARG001 - a controller's handler is called as its method
        request: Request[Any, Any, Any],
        filters: NamedDependency[ChargeQuery],
        *,
        clock: Injected[Clock],
        reads: Injected[ReadUnitsOfWork],
    ) -> Response[Any]:
        account_id = principal_of(request).account_id
        uow = reads.uow(account_id)
        listing = await search_charges(uow, clock, account_id=account_id, query=filters, due=due)
        return PixResponse(await page(uow, account_id, filters, listing, on_standard_face(request.scope)))

    return search


def charge_read(
    *,
    kinds: frozenset[ChargeKind],
    show: Show,
    responses: dict[int, ResponseSpec],
    opt: dict[str, Any],
    summary: str,
    description: str,
    operation_id: str,
) -> HTTPRouteHandler:
    """The ``GET /{txid}`` of a charge controller: a charge of ``kinds``, as it is now or at a
    revision (``revisao``)."""

    @get(
        "/{txid:str}",
        operation_id=operation_id,
        responses=responses,
        summary=summary,
        description=description,
        opt=opt,
    )
    async def read(
        self: Controller,  # noqa: ARG001 - a controller's handler is called as its method
        request: Request[Any, Any, Any],
        txid: Txid,
        revisao: Revision = None,
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[Any]:
        view = await charge_view(uow, request, txid, revisao, kinds)
        account_id, standard = principal_of(request).account_id, on_standard_face(request.scope)
        return PixResponse(await show(uow, account_id, view, clock.now(), standard))

    return read


async def charge_view(
    uow: UnitOfWorkFactory,
    request: Request[Any, Any, Any],
    txid: str,
    revisao: str | None,
    kinds: frozenset[ChargeKind],
) -> ChargeView:
    """The charge ``GET /cob/{txid}`` or ``GET /cobv/{txid}`` (``kinds``) reads, at ``revisao``."""
    revision = read_revision(request, revisao)
    return await read_charge(
        uow, account_id=principal_of(request).account_id, txid=txid, kinds=kinds, revision=revision
    )
