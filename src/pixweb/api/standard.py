"""What the list endpoints of the standard Pix API share (``GET /cob``, ``GET /pix``): their query
parameters, as the query string carries them (``pixcore.queries.standard`` judges them all at
once), and ``paginacao`` in the answer."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Protocol

from litestar import Request, params
from litestar.openapi.spec import Example, OpenAPIType

from pixcore.clock import format_timestamp
from pixcore.documents import CNPJ_PATTERN, CPF_PATTERN
from pixcore.errors import InvalidQuery
from pixcore.queries.standard import (
    DEFAULT_ITEMS,
    MAX_ITEMS,
    MAX_PAGE,
    RFC3339_PATTERN,
    ChargeQuery,
    Page,
    ReceivedQuery,
    parse_revision,
)
from pixweb.api.fields import Timestamp, doc, whole
from pixweb.api.schemas import WireStruct
from pixweb.standard.face import on_standard_face

__all__ = [
    "FLAG",
    "INT32_PATTERN",
    "INT32_SCHEMA",
    "READ_PARAMETERS",
    "Cnpj",
    "Cpf",
    "End",
    "ItemsPerPage",
    "PageNumber",
    "PageOut",
    "PeriodOut",
    "PeriodQuery",
    "QueryParameter",
    "Revision",
    "Start",
    "WindowOut",
    "given_once",
    "parameters_example",
    "period_fields",
    "read_revision",
    "window_fields",
]

MAX_QUERY_TEXT = 64


# The page numbers as patterns: ASCII digits (leading zeros allowed, as pixcore reads them) of
# 0 to 2147483647 and of 1 to 1000.
PAGE_PATTERN = (
    r"0*([0-9]{1,9}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}"
    r"|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])"
)
ITEMS_PATTERN = r"0*([1-9][0-9]{0,2}|1000)"
# An int32 (``loteCobVId``, ``revisao``): -2147483648 to 2147483647, leading zeros allowed, as
# pixcore reads it.
INT32_PATTERN = rf"-?{PAGE_PATTERN}|-0*2147483648"
FLAG = {"enum": ["true", "false"]}
INT32_SCHEMA = {"type": OpenAPIType.INTEGER, "format": "int32", "max_length": None}
"""An id that is an int32 (``loteCobVId``), read as text like every query parameter: the document
says the integer it is, with the type its other places (``/lotecobv/{id}``, ``LoteOut.id``) have."""


def QueryParameter(  # noqa: N802 - used as Litestar's Parameter is
    name: str,
    description: str,
    example: str | int,
    *,
    required: bool = False,
    pattern: str | None = None,
    schema: dict[str, Any] | None = None,
) -> params.QueryParameter:
    """A query parameter read as text (``pixcore`` parses it, so every broken rule is reported
    at once, in the standard's problem+json), documented with its maximum length and the
    ``pattern`` (matched whole) or ``schema`` (an enum) that the parser enforces."""
    # A query string carries text or nothing, never null: a plain string (Litestar would say
    # "string or null" for the ``str | None`` the handler takes to judge absence itself).
    extra = {"one_of": None, "type": OpenAPIType.STRING}
    extra |= ({"pattern": whole(pattern)} if pattern else {}) | (schema or {})
    return params.QueryParameter(
        name=name,
        description=description,
        required=required,
        max_length=MAX_QUERY_TEXT,
        examples=[Example(value=example)],
        schema_extra=extra,
    )


Revision = Annotated[
    str | None,
    QueryParameter(
        "revisao",
        "The charge as it was at this revision (0: as created), status included, without its"
        " payment; its current revision, or none given, is the charge as it is now. A revision it"
        " never had is a 400.",
        "1",
        pattern=INT32_PATTERN,
    ),
]
Start = Annotated[
    str | None,
    QueryParameter(
        "inicio",
        "Required. The window's start, RFC 3339 with an offset; inclusive.",
        "2026-03-01T00:00:00Z",
        required=True,
        pattern=RFC3339_PATTERN,
    ),
]
End = Annotated[
    str | None,
    QueryParameter(
        "fim",
        "Required. The window's end, RFC 3339 with an offset; inclusive.",
        "2026-03-31T23:59:59Z",
        required=True,
        pattern=RFC3339_PATTERN,
    ),
]
Cpf = Annotated[
    str | None,
    QueryParameter("cpf", "Only this CPF (11 digits); not with cnpj.", "52998224725", pattern=CPF_PATTERN),
]
Cnpj = Annotated[
    str | None,
    QueryParameter(
        "cnpj", "Only this CNPJ (14 characters); not with cpf.", "11222333000181", pattern=CNPJ_PATTERN
    ),
]
PageNumber = Annotated[
    str | None,
    QueryParameter(
        "paginacao.paginaAtual", f"The page, from 0 to {MAX_PAGE}; default 0.", "0", pattern=PAGE_PATTERN
    ),
]
ItemsPerPage = Annotated[
    str | None,
    QueryParameter(
        "paginacao.itensPorPagina",
        f"Items per page, 1 to {MAX_ITEMS}; default {DEFAULT_ITEMS}.",
        "100",
        pattern=ITEMS_PATTERN,
    ),
]


class PageOut(WireStruct):
    """The standard's ``Paginacao``."""

    pagina_atual: Annotated[int, doc("The page given, from 0.")]
    itens_por_pagina: Annotated[int, doc("The page's size asked for.")]
    quantidade_de_paginas: Annotated[int, doc("How many pages the query has (at least 1).")]
    quantidade_total_de_itens: Annotated[int, doc("How many items match in all.")]


class PeriodOut(WireStruct, omit_defaults=True):
    """What the parameters of every list of the standard share: the window and the page."""

    inicio: Annotated[Timestamp, doc("The window's start (UTC).")]
    fim: Annotated[Timestamp, doc("The window's end (UTC).")]
    paginacao: PageOut


class WindowOut(PeriodOut, omit_defaults=True):
    """The parameters of the lists of charges and of PIX received: the period and the document."""

    cpf: Annotated[str | None, doc("The CPF asked for.")] = None
    cnpj: Annotated[str | None, doc("The CNPJ asked for.")] = None


class PeriodQuery(Protocol):
    """A list's parsed query, as its ``parametros`` show the window and the page."""

    @property
    def start(self) -> datetime: ...
    @property
    def end(self) -> datetime: ...
    @property
    def page(self) -> Page: ...


def period_fields(query: PeriodQuery, total: int) -> dict[str, Any]:
    """The fields of :class:`PeriodOut`, for the ``parametros`` of a list's answer."""
    page = query.page
    return {
        "inicio": format_timestamp(query.start),
        "fim": format_timestamp(query.end),
        "paginacao": PageOut(
            pagina_atual=page.number,
            itens_por_pagina=page.size,
            quantidade_de_paginas=page.count(total),
            quantidade_total_de_itens=total,
        ),
    }


def window_fields(query: ChargeQuery | ReceivedQuery, total: int) -> dict[str, Any]:
    """The fields of :class:`WindowOut`, for the ``parametros`` of a list's answer."""
    return {**period_fields(query, total), "cpf": query.cpf, "cnpj": query.cnpj}


def parameters_example(**extra: Any) -> dict[str, Any]:
    """An example of ``parametros``: a month, the first page of one item, and ``extra``."""
    return {
        "inicio": "2026-03-01T00:00:00.000Z",
        "fim": "2026-03-31T23:59:59.000Z",
        "paginacao": {
            "paginaAtual": 0,
            "itensPorPagina": 100,
            "quantidadeDePaginas": 1,
            "quantidadeTotalDeItens": 1,
        },
    } | extra


READ_PARAMETERS = frozenset({"revisao"})
"""The parameter of the standard's reads of a charge (``GET /cob/{txid}``, ``GET /cobv/{txid}``)."""


def read_revision(request: Request[Any, Any, Any], revisao: str | None) -> int | None:
    """``revisao`` of a charge's read (``GET /cob/{txid}``, ``GET /cobv/{txid}``): given once, an int32."""
    given_once(request, READ_PARAMETERS)
    return parse_revision(revisao)


FREE_TEXT = frozenset({"status", "convenio"})
"""The list parameters the standard's document takes as any text (``status``, and Pix Automático's
``convenio``: at most 60 characters)."""


def given_once(request: Request[Any, Any, Any], names: frozenset[str]) -> None:
    """A list's parameter (one of ``names``; any other is ignored) given more than once
    (``?status=ATIVA&status=CONCLUIDA``) is a 400 naming it: which value was meant cannot be known,
    and each takes one value."""
    query = request.query_params
    repeated = sorted({name for name in query if name in names and len(query.getall(name)) > 1})
    problems = [f"{name}: given more than once" for name in repeated]
    if on_standard_face(request.scope):
        # The standard's document reads an empty value as the text it is: no parameter it types or
        # patterns takes one (ours reads it as no value: forms send empty fields).
        empty = sorted({name for name in query if name in names - FREE_TEXT and query.get(name) == ""})
        problems += [f"{name}: must not be empty" for name in empty]
    if problems:
        raise InvalidQuery("Invalid query parameters: " + "; ".join(problems) + ".", details=problems)
