"""Payload locations, the standard Pix API's ``/loc``: ``POST /loc``, ``GET /loc``,
``GET /loc/{id}``, ``DELETE /loc/{id}/txid`` and ``GET /loc/{id}/qrcode`` (docs/decisions/locations.md).

Errors are the standard's ``application/problem+json`` (``PayloadLocationOperacaoInvalida``,
``PayloadLocationNaoEncontrado``, ``PayloadLocationConsultaInvalida``); another account's location
is a 404, as an unknown one.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter

from pixcore.charges.location_service import (
    LocationListing,
    create_location,
    location_code,
    read_location,
    search_locations,
    unlink_location,
)
from pixcore.charges.locations import Location, LocationField, LocationType, parse_location_type
from pixcore.clock import Clock, format_timestamp
from pixcore.queries.standard import LocationQuery
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import MAX_SHORT_CODE, Int64, Timestamp, doc, raw
from pixweb.api.listing import QUERIES
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import PeriodOut, period_fields
from pixweb.body_errors import judge_body
from pixweb.field_paths import wire_paths
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.qr import png_off_loop
from pixweb.wire import PixResponse

__all__ = ["LocationController", "location_out"]

_ID_EXAMPLE = 311
LocationIdPath = Annotated[
    str,
    Parameter(
        description=(
            "The location's id (`loc.id`), an integer as `loc.id` is. Any other text (the standard"
            " types it as any string) names no location: 404."
        ),
        examples=[Example(value=_ID_EXAMPLE)],
        schema_extra={"type": OpenAPIType.INTEGER, "format": "int64"},
    ),
]


class LocationIn(WireStruct):
    """The standard's ``PayloadLocationSolicitada``."""

    tipo_cob: Annotated[
        Any,
        raw("cob or cobv", kind=OpenAPIType.STRING, max_length=MAX_SHORT_CODE),
        doc(
            "Required. The kind of charge the location will serve: `cob` or `cobv`.",
            enum=[t.value for t in LocationType],
            example="cob",
        ),
    ] = None


LOCATION_PATHS = wire_paths({LocationField.TYPE: "tipoCob"})
"""Where :class:`LocationIn` carries the location's type."""

judge_body(LocationIn, lambda body, _request: parse_location_type(body.tipo_cob))


class LocationOut(WireStruct, omit_defaults=True, kw_only=True):
    """The standard's ``PayloadLocationCompleta`` (``PayloadLocation`` without ``txid``)."""

    id: Annotated[Int64, doc("The location's id (`loc.id`).")]
    txid: Annotated[str | None, doc("The txid of the charge it serves, if any.")] = None
    location: Annotated[
        str, doc("The payload's URL without scheme (`{host}/qr/v2/{token}`, a `cobv`'s with `cobv/`).")
    ]
    tipo_cob: Annotated[str, doc("`cob` or `cobv`: the kind of charge it serves.")]
    criacao: Annotated[Timestamp, doc("When it was created (UTC, RFC 3339).")]


class LocationQueryOut(PeriodOut, omit_defaults=True):
    """The standard's ``ParametrosConsultaPayloadLocation``: the query as the service read it."""

    tx_id_presente: Annotated[bool | None, doc("The txIdPresente filter asked for.")] = None
    tipo_cob: Annotated[str | None, doc("The tipoCob filter asked for.")] = None


class LocationsOut(WireStruct):
    """The standard's ``PayloadLocationConsultadas``."""

    parametros: LocationQueryOut
    loc: Annotated[list[LocationOut], doc("The locations of the page, oldest first.")]


class LocationCodeOut(WireStruct):
    """The BR Code of a location and its QR image (the standard's ``GET /loc/{id}/qrcode`` of its
    earlier versions)."""

    qrcode: Annotated[str, doc("The BR Code (PIX copy-and-paste) that points at the location.")]
    imagem_qrcode: Annotated[str, doc("Its QR image: a PNG as a `data:image/png;base64,` URI.")]


def location_out(location: Location, prefix: str) -> LocationOut:
    return LocationOut(
        id=location.id,
        txid=location.txid,
        location=location.url(prefix),
        tipo_cob=location.type.value,
        criacao=format_timestamp(location.created_at),
    )


def listing_out(query: LocationQuery, listing: LocationListing, prefix: str) -> LocationsOut:
    return LocationsOut(
        parametros=LocationQueryOut(
            **period_fields(query, listing.total),
            tx_id_presente=query.txid_present,
            tipo_cob=None if query.type is None else query.type.value,
        ),
        loc=[location_out(location, prefix) for location in listing.locations],
    )


_LOCATION = "pix.example.com/qr/v2/8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e"
_LOC_OUT = {"id": 311, "location": _LOCATION, "tipoCob": "cob", "criacao": "2026-03-15T14:32:08.125Z"}
_LOC_SERVING = _LOC_OUT | {"txid": "fda9460fe04e4f129b72863ae57ee22f"}
_LIST_OUT = {
    "parametros": {
        "inicio": "2026-03-01T00:00:00.000Z",
        "fim": "2026-03-31T23:59:59.000Z",
        "paginacao": {
            "paginaAtual": 0,
            "itensPorPagina": 100,
            "quantidadeDePaginas": 1,
            "quantidadeTotalDeItens": 1,
        },
    },
    "loc": [_LOC_SERVING],
}
_CODE_OUT = {
    "qrcode": "00020101021226850014br.gov.bcb.pix2563" + _LOCATION + "...6304B3C4",
    "imagemQrcode": "data:image/png;base64,iVBORw0KGgo...",
}
_CREATE_PROBLEMS = {400: "PayloadLocationOperacaoInvalida"}
_READ_PROBLEMS = {400: "PayloadLocationConsultaInvalida", 404: "PayloadLocationNaoEncontrado"}
_UNLINK_PROBLEMS = {400: "RequisicaoInvalida", 404: "PayloadLocationNaoEncontrado"}
_LIST_PROBLEMS = {400: "PayloadLocationConsultaInvalida"}


class LocationController(Controller):
    path = "/loc"
    tags = ["Locations"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/",
        operation_id="createLocation",
        responses=answer(201, LocationOut, "The new location, serving no charge yet", _LOC_OUT)
        | problem_responses(_CREATE_PROBLEMS, 400, 401, 413),
        status_code=201,
        summary="Create a payload location",
        description=(
            "The standard's `POST /loc`: a location of the account for a charge of `tipoCob` (`cob`"
            " or `cobv`), to be named later as `loc.id` in `PUT`/`POST /cob` or `PUT /cobv` (or a"
            " `PATCH`). 400 (`PayloadLocationOperacaoInvalida`): `tipoCob` is not `cob` or `cobv`."
        ),
        opt={PROBLEMS: _CREATE_PROBLEMS},
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[LocationIn, json_body("The location.", {"tipoCob": "cob"}, required=["tipoCob"])],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LocationOut]:
        location = await create_location(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            location_type=parse_location_type(data.tipo_cob),
        )
        prefix = settings.location_prefix
        return PixResponse(location_out(location, prefix), status_code=201)

    @get(
        "/",
        operation_id="listLocations",
        responses=answer(200, LocationsOut, "A page of the account's locations, oldest first", _LIST_OUT)
        | problem_responses(_LIST_PROBLEMS, 400, 401),
        summary="List the account's payload locations",
        description=(
            "The standard's `GET /loc`: the account's locations created between `inicio` and `fim`"
            " (both required, inclusive), oldest first, by `txIdPresente` (serving a charge now or"
            " not) and `tipoCob`; `paginacao.paginaAtual` from 0, `paginacao.itensPorPagina` 1 to"
            " 1000 (default 100). 400: `PayloadLocationConsultaInvalida`, every broken parameter a"
            " `violacoes` item."
        ),
        opt={PROBLEMS: _LIST_PROBLEMS},
        dependencies=QUERIES["loc"],
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[LocationQuery],
        *,
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LocationsOut]:
        query = filters
        listing = await search_locations(uow, account_id=principal_of(request).account_id, query=query)
        return PixResponse(listing_out(query, listing, settings.location_prefix))

    @get(
        "/{location_id:str}",
        operation_id="getLocation",
        responses=answer(
            200, LocationOut, "The location, with the txid of the charge it serves", _LOC_SERVING
        )
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        summary="Read a payload location",
        description=(
            "The standard's `GET /loc/{id}`. 404 (`PayloadLocationNaoEncontrado`): no location of"
            " the account has this id."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def read(
        self,
        request: Request[Any, Any, Any],
        location_id: LocationIdPath,
        *,
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LocationOut]:
        location = await read_location(
            uow, account_id=principal_of(request).account_id, location_id=location_id
        )
        return PixResponse(location_out(location, settings.location_prefix))

    @delete(
        "/{location_id:str}/txid",
        operation_id="unlinkLocation",
        responses=answer(200, LocationOut, "The location, serving no charge now", _LOC_OUT)
        | problem_responses(_UNLINK_PROBLEMS, 400, 401, 404),
        status_code=200,
        summary="Unlink the charge from a payload location",
        description=(
            "The standard's `DELETE /loc/{id}/txid`: the location no longer serves its charge (if it"
            " served one). The charge keeps its status but has no location: `GET /cob/{txid}` shows"
            " no `loc`, `location` or `pixCopiaECola`, its payload URL answers 404 and its BR Code"
            " pays nothing, until a `PATCH` names a location (`loc.id`). 404"
            " (`PayloadLocationNaoEncontrado`): no location of the account has this id."
        ),
        opt={PROBLEMS: _UNLINK_PROBLEMS},
    )
    async def unlink(
        self,
        request: Request[Any, Any, Any],
        location_id: LocationIdPath,
        *,
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LocationOut]:
        location = await unlink_location(
            uow, account_id=principal_of(request).account_id, location_id=location_id
        )
        return PixResponse(location_out(location, settings.location_prefix))

    @get(
        "/{location_id:str}/qrcode",
        operation_id="getLocationQrCode",
        responses=answer(200, LocationCodeOut, "The location's BR Code and its QR image", _CODE_OUT)
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        summary="The BR Code and QR image of a payload location",
        description=(
            "`GET /loc/{id}/qrcode` of the standard's earlier versions (2.9.0 no longer lists it):"
            " `qrcode`, the BR Code (copy-and-paste) pointing at the location (its charge's, with the"
            " amount of a `cob`; serving none, one without an amount), and `imagemQrcode`, its QR"
            " image as a PNG `data:` URI. 404 (`PayloadLocationNaoEncontrado`): no location of the"
            " account has this id."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def qrcode(
        self,
        request: Request[Any, Any, Any],
        location_id: LocationIdPath,
        *,
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LocationCodeOut]:
        found = await location_code(
            uow,
            account_id=principal_of(request).account_id,
            location_id=location_id,
            location_prefix=settings.location_prefix,
        )
        image = base64.b64encode(await png_off_loop(found.br_code)).decode("ascii")
        return PixResponse(
            LocationCodeOut(qrcode=found.br_code, imagem_qrcode="data:image/png;base64," + image)
        )
