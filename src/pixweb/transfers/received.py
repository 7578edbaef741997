"""Received PIX, as the standard Pix API has them: ``GET /pix`` and ``GET /pix/{e2eid}``.

A received PIX is a CONFIRMED PAYMENT record of the account (a payment of one of its keys or
charges, from another institution or another account of this service), with its refunds to the
payer (``devolucoes``). Errors are the standard's ``application/problem+json``.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency

from pixcore.charges.cob_service import ReceivedListing, read_received, search_received
from pixcore.queries.standard import ReceivedQuery
from pixcore.unit_of_work import ReadUnitsOfWork
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer
from pixweb.api.fields import doc
from pixweb.api.listing import QUERIES
from pixweb.api.standard import (
    WindowOut,
    parameters_example,
    window_fields,
)
from pixweb.charges.mapping import pix_out
from pixweb.charges.schemas import TXID_EXAMPLE, CobPixOut
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.refunds.refunds import E2eId
from pixweb.wire import PixResponse

__all__ = ["ReceivedPixController"]


class PixQueryOut(WindowOut, rename="camel", omit_defaults=True):
    """The standard's ``ParametrosConsultaPix``: the query as the service read it (``cpf`` or
    ``cnpj``: the payer's)."""

    txid: Annotated[str | None, doc("The txid asked for.")] = None
    tx_id_presente: Annotated[bool | None, doc("The txid filter asked for.")] = None
    devolucao_presente: Annotated[bool | None, doc("The refund filter asked for.")] = None


class PixListOut(msgspec.Struct):
    """The standard's ``PixConsultados``: a page of the PIX the account received."""

    parametros: PixQueryOut
    pix: Annotated[list[CobPixOut], doc("The PIX of the page, oldest first, each with its refunds.")]


def received_out(query: ReceivedQuery, listing: ReceivedListing) -> PixListOut:
    return PixListOut(
        parametros=PixQueryOut(
            **window_fields(query, listing.total),
            txid=query.txid,
            tx_id_presente=query.txid_present,
            devolucao_presente=query.refund_present,
        ),
        pix=[pix_out(p) for p in listing.pix],
    )


_PIX_OUT: dict[str, Any] = {
    "endToEndId": "E98765432202603151440xY7wV5uT3sR",
    "valor": "37.50",
    "componentesValor": {"original": {"valor": "37.50"}},
    "horario": "2026-03-15T14:40:51.310Z",
    "devolucoes": [],
    "txid": TXID_EXAMPLE,
    "chave": "maria.silva@example.com",
}
_PIX_LIST_OUT = {"parametros": parameters_example(txIdPresente=True), "pix": [_PIX_OUT]}
_LIST_PROBLEMS = {400: "PixConsultaInvalida"}
_READ_PROBLEMS = {400: "RequisicaoInvalida", 404: "PixNaoEncontrado"}
_Flag = "true or false"


class ReceivedPixController(Controller):
    path = "/pix"
    tags = ["Received PIX"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/",
        operation_id="listReceivedPix",
        responses=answer(200, PixListOut, "A page of the PIX received, oldest first", _PIX_LIST_OUT)
        | problem_responses(_LIST_PROBLEMS, 400, 401),
        summary="List the PIX the account received",
        description=(
            "The standard's `GET /pix`: the PIX the account received between `inicio` and `fim`"
            " (both required, inclusive, on `horario`), oldest first, each with its refunds;"
            " filters `txid`, `txIdPresente` (paid a charge or not), `devolucaoPresente` (has a"
            " refund or not), `cpf`/`cnpj` (the payer's); `paginacao.paginaAtual` from 0,"
            " `paginacao.itensPorPagina` 1 to 1000 (default 100). Errors are"
            " `application/problem+json` (`PixConsultaInvalida`)."
        ),
        opt={PROBLEMS: _LIST_PROBLEMS},
        dependencies=QUERIES["pix"],
    )
    async def search(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[ReceivedQuery],
        *,
        reads: Injected[ReadUnitsOfWork],
    ) -> Response[PixListOut]:
        account_id = principal_of(request).account_id
        listing = await search_received(reads.uow(account_id), account_id=account_id, query=filters)
        return PixResponse(received_out(filters, listing))

    @get(
        "/{e2eid:str}",
        operation_id="getReceivedPix",
        responses=answer(200, CobPixOut, "The PIX with its refunds", _PIX_OUT)
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        summary="Read a PIX the account received",
        description=(
            "The standard's `GET /pix/{e2eid}`: the PIX with its refunds to the payer"
            " (`devolucoes`, oldest first) and the `txid` of the charge it paid, if any. 404"
            " (`PixNaoEncontrado`): no PIX with this id reached this account (another account's"
            " never does)."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def read(
        self, request: Request[Any, Any, Any], e2eid: E2eId, *, reads: Injected[ReadUnitsOfWork]
    ) -> Response[CobPixOut]:
        account_id = principal_of(request).account_id
        pix = await read_received(reads.uow(account_id), account_id=account_id, end_to_end_id=e2eid)
        return PixResponse(pix_out(pix))
