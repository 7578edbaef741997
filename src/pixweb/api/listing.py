"""The query of every list of the standard Pix API, made in one place: each parameter is declared
once, in the signature of a Litestar dependency (the window ``inicio``/``fim``, the document
``cpf``/``cnpj``, the page ``paginacao.*``, the filters ``GET /cob`` and ``GET /cobv`` share); a
list's own dependency takes those it needs by name, refuses a parameter given twice
(:func:`~pixweb.api.standard.given_once`) and hands the texts to its ``pixcore`` parser, which
judges every parameter at once; a parameter of another list is none of its business, given
twice or empty. A handler takes the parsed query as ``filters`` and
``dependencies=QUERIES[...]``; Litestar documents the dependencies' parameters as the handler's,
in their signatures' order. Pix Automático's lists (``pixweb.recurrences.queries``) are built of
the same pieces: :func:`list_dependencies`, the shared dependencies and :data:`LocationPresent`.

    GET /cob        charge_query      GET /pix        received_query
    GET /cobv       due_charge_query  GET /lotecobv   batch_query
    GET /webhook    webhook_query
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, get_type_hints

from litestar import Request
from litestar.di import NamedDependency, Provide
from litestar.params import ParameterKwarg

from pixcore.charges.cob import ChargeStatus
from pixcore.charges.locations import LocationType
from pixcore.queries.standard import (
    RFC3339_PATTERN,
    TXID_FILTER_PATTERN,
    BatchQuery,
    ChargeQuery,
    LocationQuery,
    PeriodText,
    QueryField,
    ReceivedQuery,
    WebhookQuery,
    parse_batch_query,
    parse_charge_query,
    parse_location_query,
    parse_received_query,
    parse_webhook_query,
)
from pixweb.api.standard import (
    FLAG,
    INT32_SCHEMA,
    Cnpj,
    Cpf,
    End,
    ItemsPerPage,
    PageNumber,
    QueryParameter,
    Start,
    given_once,
)
from pixweb.field_paths import wire_paths
from pixweb.standard.face import on_standard_face

__all__ = [
    "QUERIES",
    "ChargeFilters",
    "Document",
    "LocationPresent",
    "Paging",
    "Window",
    "batch_query",
    "charge_filters",
    "charge_query",
    "due_charge_query",
    "list_dependencies",
    "location_query",
    "parameters_of",
    "period_text",
    "received_query",
    "webhook_query",
]

_TXID_EXAMPLE = "7d3b9f1a2c4e6g8h0j2k4m6n8p0q2r4s"  # pixweb.charges.schemas.TXID_EXAMPLE
_FLAG = "true or false"

LocationPresent = Annotated[
    str | None,
    QueryParameter(
        "locationPresente", f"{_FLAG}: only those with (or without) a location.", "true", schema=FLAG
    ),
]
Status = Annotated[
    str | None,
    QueryParameter(
        "status",
        "Only charges with this status now: " + ", ".join(ChargeStatus) + ".",
        "ATIVA",
        schema={"enum": [status.value for status in ChargeStatus]},
    ),
]
BatchId = Annotated[
    str | None,
    QueryParameter(
        "loteCobVId",
        "Only the charges created in this batch of due-date charges (an int32, `/lotecobv/{id}`).",
        1,
        schema=INT32_SCHEMA,
    ),
]
Txid = Annotated[
    str | None,
    QueryParameter(
        "txid",
        "Only the PIX that paid this charge (1 to 35 letters and digits).",
        _TXID_EXAMPLE,
        pattern=TXID_FILTER_PATTERN,
    ),
]
TxidPresent = Annotated[
    str | None,
    QueryParameter(
        "txIdPresente", f"{_FLAG}: only PIX that paid (or did not pay) a charge.", "true", schema=FLAG
    ),
]
RefundPresent = Annotated[
    str | None,
    QueryParameter(
        "devolucaoPresente", f"{_FLAG}: only PIX with (or without) a refund.", "false", schema=FLAG
    ),
]
WebhookStart = Annotated[
    str | None,
    QueryParameter(
        "inicio",
        "Only webhooks set at or after this moment (RFC 3339 with an offset).",
        "2026-03-01T00:00:00Z",
        pattern=RFC3339_PATTERN,
    ),
]
WebhookEnd = Annotated[
    str | None,
    QueryParameter(
        "fim",
        "Only webhooks set at or before this moment (RFC 3339 with an offset).",
        "2026-03-31T23:59:59Z",
        pattern=RFC3339_PATTERN,
    ),
]


QUERY_PATHS = wire_paths(
    {
        QueryField.START: "inicio",
        QueryField.END: "fim",
        QueryField.CPF: "cpf",
        QueryField.CNPJ: "cnpj",
        QueryField.PAGE: "paginacao.paginaAtual",
        QueryField.PAGE_SIZE: "paginacao.itensPorPagina",
        QueryField.LOCATION_PRESENT: "locationPresente",
        QueryField.STATUS: "status",
        QueryField.BATCH: "loteCobVId",
        QueryField.REVISION: "revisao",
        QueryField.TXID: "txid",
        QueryField.TXID_PRESENT: "txIdPresente",
        QueryField.REFUND_PRESENT: "devolucaoPresente",
        QueryField.LOCATION_TYPE: "tipoCob",
    }
)
"""The query string's names of the parameters the standard's parsers name (``revisao`` is
``GET /cob/{txid}``'s and ``GET /cobv/{txid}``'s)."""


@dataclass(frozen=True, slots=True)
class Window:
    """``inicio`` and ``fim`` as the query string gave them."""

    start: str | None
    end: str | None


@dataclass(frozen=True, slots=True)
class Document:
    """``cpf`` and ``cnpj`` as the query string gave them."""

    cpf: str | None
    cnpj: str | None


@dataclass(frozen=True, slots=True)
class Paging:
    """``paginacao.paginaAtual`` and ``paginacao.itensPorPagina`` as the query string gave them."""

    page: str | None
    size: str | None


@dataclass(frozen=True, slots=True)
class ChargeFilters:
    """The parameters of ``GET /cob``, which ``GET /cobv`` shares, as the query string gave them."""

    window: Window
    document: Document
    location_present: str | None
    status: str | None
    paging: Paging

    def parse(self, batch: str | None = None, *, any_text: bool = False) -> ChargeQuery:
        return parse_charge_query(
            any_text=any_text,
            inicio=self.window.start,
            fim=self.window.end,
            cpf=self.document.cpf,
            cnpj=self.document.cnpj,
            location_present=self.location_present,
            status=self.status,
            page=self.paging.page,
            size=self.paging.size,
            batch=batch,
        )


def period_text(window: Window, paging: Paging, document: Document | None = None) -> PeriodText:
    """The texts of a list's period: its window, its page and, for a list that takes one, its document."""
    cpf, cnpj = (document.cpf, document.cnpj) if document is not None else (None, None)
    return PeriodText(window.start, window.end, cpf, cnpj, paging.page, paging.size)


# The parameters every list shares, each declared once: a list's dependency takes them by name.


def window(inicio: Start = None, fim: End = None) -> Window:
    return Window(inicio, fim)


def document(cpf: Cpf = None, cnpj: Cnpj = None) -> Document:
    return Document(cpf, cnpj)


def paging(pagina_atual: PageNumber = None, itens_por_pagina: ItemsPerPage = None) -> Paging:
    return Paging(pagina_atual, itens_por_pagina)


def charge_filters(
    window: NamedDependency[Window],
    document: NamedDependency[Document],
    location_presente: LocationPresent = None,
    status: Status = None,
    *,
    paging: NamedDependency[Paging],
) -> ChargeFilters:
    return ChargeFilters(window, document, location_presente, status, paging)


def charge_query(
    request: Request[Any, Any, Any], charge_filters: NamedDependency[ChargeFilters]
) -> ChargeQuery:
    """``GET /cob``'s query."""
    given_once(request, parameters_of(charge_query))
    return charge_filters.parse(any_text=on_standard_face(request.scope))


def due_charge_query(
    request: Request[Any, Any, Any],
    charge_filters: NamedDependency[ChargeFilters],
    lote_cob_v_id: BatchId = None,
) -> ChargeQuery:
    """``GET /cobv``'s query: ``GET /cob``'s and ``loteCobVId``."""
    given_once(request, parameters_of(due_charge_query))
    return charge_filters.parse(batch=lote_cob_v_id, any_text=on_standard_face(request.scope))


def received_query(
    request: Request[Any, Any, Any],
    window: NamedDependency[Window],
    txid: Txid = None,
    tx_id_presente: TxidPresent = None,
    devolucao_presente: RefundPresent = None,
    *,
    document: NamedDependency[Document],
    paging: NamedDependency[Paging],
) -> ReceivedQuery:
    """``GET /pix``'s query."""
    given_once(request, parameters_of(received_query))
    return parse_received_query(
        inicio=window.start,
        fim=window.end,
        txid=txid,
        txid_present=tx_id_presente,
        refund_present=devolucao_presente,
        cpf=document.cpf,
        cnpj=document.cnpj,
        page=paging.page,
        size=paging.size,
    )


def batch_query(
    request: Request[Any, Any, Any], window: NamedDependency[Window], paging: NamedDependency[Paging]
) -> BatchQuery:
    """``GET /lotecobv``'s query."""
    given_once(request, parameters_of(batch_query))
    return parse_batch_query(inicio=window.start, fim=window.end, page=paging.page, size=paging.size)


def webhook_query(
    request: Request[Any, Any, Any],
    inicio: WebhookStart = None,
    fim: WebhookEnd = None,
    *,
    paging: NamedDependency[Paging],
) -> WebhookQuery:
    """``GET /webhook``'s query (``inicio`` and ``fim`` optional there, and documented so)."""
    given_once(request, parameters_of(webhook_query))
    return parse_webhook_query(inicio=inicio, fim=fim, page=paging.page, size=paging.size)


TxIdPresente = Annotated[
    str | None,
    QueryParameter(
        "txIdPresente", "true or false: only locations serving (or not) a charge.", "true", schema=FLAG
    ),
]
TipoCob = Annotated[
    str | None,
    QueryParameter(
        "tipoCob",
        "Only locations of this kind: cob or cobv.",
        "cob",
        schema={"enum": [t.value for t in LocationType]},
    ),
]


def location_query(
    request: Request[Any, Any, Any],
    window: NamedDependency[Window],
    tx_id_presente: TxIdPresente = None,
    tipo_cob: TipoCob = None,
    *,
    paging: NamedDependency[Paging],
) -> LocationQuery:
    """``GET /loc``'s query."""
    given_once(request, parameters_of(location_query))
    return parse_location_query(
        inicio=window.start,
        fim=window.end,
        txid_present=tx_id_presente,
        location_type=tipo_cob,
        page=paging.page,
        size=paging.size,
    )


_SHARED_QUERIES: dict[str, Callable[..., Any]] = {
    "window": window,
    "document": document,
    "paging": paging,
    "charge_filters": charge_filters,
}
_SHARED = {name: Provide(query, sync_to_thread=False) for name, query in _SHARED_QUERIES.items()}


@cache
def parameters_of(query: Callable[..., Any]) -> frozenset[str]:
    """The query string's names of a list's parameters: those ``query`` (its dependency) declares,
    and those of the shared dependencies it takes by name."""
    names: set[str] = set()
    for name, hint in get_type_hints(query, include_extras=True).items():
        if name in _SHARED_QUERIES:
            names |= parameters_of(_SHARED_QUERIES[name])
        declared = getattr(hint, "__metadata__", ())
        names |= {kwarg.name for kwarg in declared if isinstance(kwarg, ParameterKwarg) and kwarg.name}
    return frozenset(names)


def list_dependencies(query: Any) -> dict[str, Provide]:
    """A list's ``dependencies``: ``query`` (its own dependency) as ``filters``, and the shared
    ones it may take by name."""
    return {"filters": Provide(query, sync_to_thread=False)} | _SHARED


QUERIES = {
    "cob": list_dependencies(charge_query),
    "cobv": list_dependencies(due_charge_query),
    "pix": list_dependencies(received_query),
    "lotecobv": list_dependencies(batch_query),
    "webhook": list_dependencies(webhook_query),
    "loc": list_dependencies(location_query),
}
"""Each list's ``dependencies``: its parsed query as the handler's ``filters``."""
