"""``POST /solicrec``, ``GET/PATCH /solicrec/{idSolicRec}``: requests for the payer's authorization
(JORNADA_1)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, patch, post
from litestar.params import FromPath

from pixcore.accounts.accounts_service import get_account
from pixcore.clock import Clock
from pixcore.recurrences import (
    RequestView,
    cancel_recurrence_request,
    create_recurrence_request,
    read_recurrence_request,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import json_body
from pixweb.body_errors import judge_body
from pixweb.recurrences.mapping import request_out
from pixweb.recurrences.requests import request_cancel, request_terms
from pixweb.recurrences.schemas import SolicRecIn, SolicRecOut, SolicRecPatchIn
from pixweb.wire import PixResponse

__all__ = ["RecurrenceRequestController"]

judge_body(SolicRecIn, lambda body, _request: request_terms(body))
judge_body(SolicRecPatchIn, lambda body, _request: request_cancel(body))

_SOLICREC_IN = {
    "idRec": "RN1234567820260401abcdefghijk",
    "calendario": {"dataExpiracaoSolicitacao": "2026-04-10T12:00:00Z"},
    "destinatario": {"cpf": "45164632481", "conta": "12345678", "ispbParticipante": "12345678"},
}


async def _shown(uow: UnitOfWorkFactory, view: RequestView) -> SolicRecOut:
    account = await get_account(uow, view.request.account_id)
    return request_out(view.request, view.status, view.recurrence, account)


class RecurrenceRequestController(Controller):
    path = "/solicrec"
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    @post("/", operation_id="createRecurrenceRequest", status_code=201, summary="Ask the payer to authorize")
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[SolicRecIn, json_body("The request.", _SOLICREC_IN)],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[SolicRecOut]:
        view = await create_recurrence_request(
            uow, clock, account_id=principal_of(request).account_id, terms=request_terms(data)
        )
        return PixResponse(await _shown(uow, view), status_code=201)

    @get("/{id_solic_rec:str}", operation_id="getRecurrenceRequest", summary="Read a request")
    async def read(
        self,
        request: Request[Any, Any, Any],
        id_solic_rec: FromPath[str],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[SolicRecOut]:
        view = await read_recurrence_request(
            uow, clock, account_id=principal_of(request).account_id, request_id=id_solic_rec
        )
        return PixResponse(await _shown(uow, view))

    @patch(
        "/{id_solic_rec:str}",
        operation_id="cancelRecurrenceRequest",
        status_code=201,
        summary="Cancel a request",
    )
    async def cancel(
        self,
        request: Request[Any, Any, Any],
        id_solic_rec: FromPath[str],
        data: Annotated[SolicRecPatchIn, json_body("The change.", {"status": "CANCELADA"})],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[SolicRecOut]:
        request_cancel(data)
        view = await cancel_recurrence_request(
            uow, clock, account_id=principal_of(request).account_id, request_id=id_solic_rec
        )
        return PixResponse(await _shown(uow, view), status_code=201)
