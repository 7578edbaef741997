"""The query of every list of the standard Pix API, made in one place: each list's parameters are
declared once, in the signature of a Litestar dependency that refuses a parameter given twice
(:func:`~pixweb.api.standard.given_once`), then hands the text to its ``pixcore`` parser, which
judges every parameter at once. A handler takes the parsed query as ``filters`` and
``dependencies=QUERIES[...]``; Litestar documents the dependency's parameters as the handler's.

    GET /cob        charge_query      GET /pix        received_query
    GET /cobv       due_charge_query  GET /lotecobv   batch_query
    GET /webhook    webhook_query
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request
from litestar.di import Provide

from pixcore.charges.cob import ChargeStatus
from pixcore.charges.locations import LocationType
from pixcore.queries.standard import (
    RFC3339_PATTERN,
    TXID_FILTER_PATTERN,
    BatchQuery,
    ChargeQuery,
    LocationQuery,
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
    INT32_PATTERN,
    Cnpj,
    Cpf,
    End,
    ItemsPerPage,
    PageNumber,
    QueryParameter,
    Start,
    given_once,
)

__all__ = [
    "QUERIES",
    "batch_query",
    "charge_query",
    "due_charge_query",
    "location_query",
    "received_query",
    "webhook_query",
]

_TXID_EXAMPLE = "7d3b9f1a2c4e6g8h0j2k4m6n8p0q2r4s"  # pixweb.charges.cob.TXID_EXAMPLE
_FLAG = "true or false"

LocationPresent = Annotated[
    str | None,
    QueryParameter(
        "locationPresente", f"{_FLAG}: only charges with (or without) a location.", "true", schema=FLAG
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
        "1",
        pattern=INT32_PATTERN,
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


def charge_query(  # noqa: PLR0917 - the standard's query parameters
    request: Request[Any, Any, Any],
    inicio: Start,
    fim: End,
    cpf: Cpf = None,
    cnpj: Cnpj = None,
    location_presente: LocationPresent = None,
    status: Status = None,
    pagina_atual: PageNumber = None,
    itens_por_pagina: ItemsPerPage = None,
) -> ChargeQuery:
    """``GET /cob``'s query."""
    given_once(request)
    return parse_charge_query(
        inicio=inicio,
        fim=fim,
        cpf=cpf,
        cnpj=cnpj,
        location_present=location_presente,
        status=status,
        page=pagina_atual,
        size=itens_por_pagina,
    )


def due_charge_query(  # noqa: PLR0917 - the standard's query parameters
    request: Request[Any, Any, Any],
    inicio: Start,
    fim: End,
    cpf: Cpf = None,
    cnpj: Cnpj = None,
    location_presente: LocationPresent = None,
    status: Status = None,
    pagina_atual: PageNumber = None,
    itens_por_pagina: ItemsPerPage = None,
    lote_cob_v_id: BatchId = None,
) -> ChargeQuery:
    """``GET /cobv``'s query: ``GET /cob``'s and ``loteCobVId``."""
    given_once(request)
    return parse_charge_query(
        inicio=inicio,
        fim=fim,
        cpf=cpf,
        cnpj=cnpj,
        location_present=location_presente,
        status=status,
        page=pagina_atual,
        size=itens_por_pagina,
        batch=lote_cob_v_id,
    )


def received_query(  # noqa: PLR0917 - the standard's query parameters
    request: Request[Any, Any, Any],
    inicio: Start,
    fim: End,
    txid: Txid = None,
    tx_id_presente: TxidPresent = None,
    devolucao_presente: RefundPresent = None,
    cpf: Cpf = None,
    cnpj: Cnpj = None,
    pagina_atual: PageNumber = None,
    itens_por_pagina: ItemsPerPage = None,
) -> ReceivedQuery:
    """``GET /pix``'s query."""
    given_once(request)
    return parse_received_query(
        inicio=inicio,
        fim=fim,
        txid=txid,
        txid_present=tx_id_presente,
        refund_present=devolucao_presente,
        cpf=cpf,
        cnpj=cnpj,
        page=pagina_atual,
        size=itens_por_pagina,
    )


def batch_query(
    request: Request[Any, Any, Any],
    inicio: Start,
    fim: End,
    pagina_atual: PageNumber = None,
    itens_por_pagina: ItemsPerPage = None,
) -> BatchQuery:
    """``GET /lotecobv``'s query."""
    given_once(request)
    return parse_batch_query(inicio=inicio, fim=fim, page=pagina_atual, size=itens_por_pagina)


def webhook_query(
    request: Request[Any, Any, Any],
    inicio: WebhookStart = None,
    fim: WebhookEnd = None,
    pagina_atual: PageNumber = None,
    itens_por_pagina: ItemsPerPage = None,
) -> WebhookQuery:
    """``GET /webhook``'s query (``inicio`` and ``fim`` optional there)."""
    given_once(request)
    return parse_webhook_query(inicio=inicio, fim=fim, page=pagina_atual, size=itens_por_pagina)


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


def location_query(  # noqa: PLR0917 - the standard's query parameters
    request: Request[Any, Any, Any],
    inicio: Start = None,
    fim: End = None,
    tx_id_presente: TxIdPresente = None,
    tipo_cob: TipoCob = None,
    pagina_atual: PageNumber = None,
    itens_por_pagina: ItemsPerPage = None,
) -> LocationQuery:
    """``GET /loc``'s query."""
    given_once(request)
    return parse_location_query(
        inicio=inicio,
        fim=fim,
        txid_present=tx_id_presente,
        location_type=tipo_cob,
        page=pagina_atual,
        size=itens_por_pagina,
    )


def _provide(dependency: Any) -> dict[str, Provide]:
    return {"filters": Provide(dependency, sync_to_thread=False)}


QUERIES = {
    "cob": _provide(charge_query),
    "cobv": _provide(due_charge_query),
    "pix": _provide(received_query),
    "lotecobv": _provide(batch_query),
    "webhook": _provide(webhook_query),
    "loc": _provide(location_query),
}
"""Each list's ``dependencies``: its parsed query as the handler's ``filters``."""
