"""``POST/GET /locrec``, ``GET /locrec/{id}``, ``DELETE /locrec/{id}/idRec``: where a payer's bank
reads a recurrence's payload (``/qr/v2/rec/{token}``)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath

from pixcore.clock import Clock
from pixcore.recurrences import (
    LocationListQuery,
    RecurrenceLocationNotFound,
    create_recurrence_location,
    list_recurrence_locations,
    read_recurrence_location,
    unlink_recurrence_location,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.recurrences.mapping import location_out, locations_out
from pixweb.recurrences.queries import RECURRING_QUERIES
from pixweb.recurrences.schemas import LocsRecOut, RecLocOut
from pixweb.wire import PixResponse

__all__ = ["RecurrenceLocationController"]


def _location_id(text: str) -> int:
    """The path's ``{id}``: an id is a positive integer; any other text names no location (404)."""
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise RecurrenceLocationNotFound()
    return int(text)


class RecurrenceLocationController(Controller):
    path = "/locrec"
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/", operation_id="createRecurrenceLocation", status_code=201, summary="Create a recurrence location"
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecLocOut]:
        location = await create_recurrence_location(uow, clock, account_id=principal_of(request).account_id)
        out = location_out(location, settings.location_prefix)
        return PixResponse(out, status_code=201, headers={"Location": out.location})

    @get(
        "/",
        operation_id="listRecurrenceLocations",
        summary="List recurrence locations",
        dependencies=RECURRING_QUERIES["locrec"],
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[LocationListQuery],
        *,
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LocsRecOut]:
        listing = await list_recurrence_locations(
            uow, account_id=principal_of(request).account_id, query=filters
        )
        return PixResponse(locations_out(filters, listing, settings.location_prefix))

    @get("/{location_id:str}", operation_id="getRecurrenceLocation", summary="Read a recurrence location")
    async def read(
        self,
        request: Request[Any, Any, Any],
        location_id: FromPath[str],
        *,
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecLocOut]:
        location = await read_recurrence_location(
            uow, account_id=principal_of(request).account_id, location_id=_location_id(location_id)
        )
        return PixResponse(location_out(location, settings.location_prefix))

    @delete(
        "/{location_id:str}/idRec",
        operation_id="unlinkRecurrenceLocation",
        status_code=200,
        summary="Unlink a recurrence from its location",
    )
    async def unlink(
        self,
        request: Request[Any, Any, Any],
        location_id: FromPath[str],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[RecLocOut]:
        location = await unlink_recurrence_location(
            uow, clock, account_id=principal_of(request).account_id, location_id=_location_id(location_id)
        )
        return PixResponse(location_out(location, settings.location_prefix))
