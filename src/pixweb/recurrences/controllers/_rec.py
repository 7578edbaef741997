"""``POST/GET /rec``, ``GET/PATCH /rec/{idRec}``: recurrences (the receiver's side)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, patch, post
from litestar.di import NamedDependency
from litestar.params import FromPath

from pixcore.accounts.accounts_service import get_account
from pixcore.clock import Clock
from pixcore.recurrences import (
    RecurrenceListQuery,
    create_recurrence,
    list_recurrences,
    read_recurrence,
    revise_recurrence,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import json_body
from pixweb.api.standard import QueryParameter
from pixweb.body_errors import judge_body
from pixweb.recurrences.codes import composite_code
from pixweb.recurrences.mapping import recurrence_out, recurrences_out
from pixweb.recurrences.queries import RECURRING_QUERIES
from pixweb.recurrences.requests import recurrence_revision, recurrence_terms
from pixweb.recurrences.schemas import RecIn, RecOut, RecPatchIn, RecsOut
from pixweb.wire import PixResponse

__all__ = ["RecurrenceController"]

judge_body(RecIn, lambda body, _request: recurrence_terms(body))
judge_body(RecPatchIn, lambda body, _request: recurrence_revision(body))

_REC_IN = {
    "vinculo": {"contrato": "63100862", "devedor": {"cpf": "45164632481", "nome": "Fulano de Tal"}},
    "calendario": {"dataInicial": "2026-04-01", "periodicidade": "MENSAL"},
    "valor": {"valorRec": "35.00"},
    "politicaRetentativa": "NAO_PERMITE",
}
TxidQuery = Annotated[
    str | None,
    QueryParameter(
        "txid",
        "A charge of the account: its code composed with the recurrence's (JORNADA_3: a cob,"
        " JORNADA_4: a cobv).",
        "33beb661beda44a8928fef47dbeb2dc5",
    ),
]


class RecurrenceController(Controller):
    """The standard's ``/rec`` (its face only: our own API has no recurrences)."""

    path = "/rec"
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    @post("/", operation_id="createRecurrence", status_code=201, summary="Create a recurrence")
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[RecIn, json_body("The recurrence.", _REC_IN)],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecOut]:
        account_id = principal_of(request).account_id
        recurrence = await create_recurrence(uow, clock, account_id=account_id, terms=recurrence_terms(data))
        view = await read_recurrence(uow, clock, account_id=account_id, rec_id=recurrence.rec_id)
        account = await get_account(uow, account_id)
        out = recurrence_out(recurrence, account, settings.location_prefix, location=view.location)
        return PixResponse(out, status_code=201)

    @get(
        "/",
        operation_id="listRecurrences",
        summary="List the account's recurrences",
        dependencies=RECURRING_QUERIES["rec"],
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[RecurrenceListQuery],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecsOut]:
        account_id = principal_of(request).account_id
        listing = await list_recurrences(uow, clock, account_id=account_id, query=filters)
        account = await get_account(uow, account_id)
        return PixResponse(recurrences_out(filters, listing, account, settings.location_prefix))

    @get("/{id_rec:str}", operation_id="getRecurrence", summary="Read a recurrence")
    async def read(
        self,
        request: Request[Any, Any, Any],
        id_rec: FromPath[str],
        txid: TxidQuery = None,
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecOut]:
        account_id = principal_of(request).account_id
        view = await read_recurrence(uow, clock, account_id=account_id, rec_id=id_rec)
        account = await get_account(uow, account_id)
        qr = await composite_code(uow, view, account, txid, settings.location_prefix)
        now = clock.now()
        out = recurrence_out(
            view.recurrence,
            account,
            settings.location_prefix,
            status=view.status,
            location=view.location,
            requests=[(r, r.status_at(now)) for r in view.requests],
            qr=qr,
            complete=True,
        )
        return PixResponse(out)

    @patch("/{id_rec:str}", operation_id="reviseRecurrence", summary="Revise or cancel a recurrence")
    async def revise(
        self,
        request: Request[Any, Any, Any],
        id_rec: FromPath[str],
        data: Annotated[RecPatchIn, json_body("The change.", {"status": "CANCELADA"})],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecOut]:
        account_id = principal_of(request).account_id
        revised = await revise_recurrence(
            uow, clock, account_id=account_id, rec_id=id_rec, revision=recurrence_revision(data)
        )
        view = await read_recurrence(uow, clock, account_id=account_id, rec_id=revised.rec_id)
        account = await get_account(uow, account_id)
        out = recurrence_out(
            view.recurrence, account, settings.location_prefix, status=view.status, location=view.location
        )
        return PixResponse(out)
