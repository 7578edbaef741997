"""``POST/GET /cobr``, ``PUT/GET/PATCH /cobr/{txid}``, ``POST /cobr/{txid}/retentativa/{data}``:
recurring charges and their retries."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, patch, post, put
from litestar.di import NamedDependency
from litestar.params import FromPath

from pixcore.accounts.accounts_service import get_account
from pixcore.clock import Clock
from pixcore.recurrences import (
    ChargeListQuery,
    ask_retry,
    cancel_recurring_charge,
    create_recurring_charge,
    list_recurring_charges,
    read_recurring_charge,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import json_body
from pixweb.body_errors import judge_body
from pixweb.recurrences.mapping import charge_out, charges_out
from pixweb.recurrences.queries import RECURRING_QUERIES
from pixweb.recurrences.requests import charge_cancel, charge_terms, retry_day
from pixweb.recurrences.schemas import CobRIn, CobROut, CobRPatchIn, CobsROut
from pixweb.wire import PixResponse

__all__ = ["RecurringChargeController"]

judge_body(CobRIn, lambda body, _request: charge_terms(body))
judge_body(CobRPatchIn, lambda body, _request: charge_cancel(body))

_COBR_IN = {
    "idRec": "RR1234567820260401abcdefghijk",
    "calendario": {"dataDeVencimento": "2026-04-15"},
    "valor": {"original": "35.00"},
    "ajusteDiaUtil": True,
    "recebedor": {"conta": "123456", "tipoConta": "CORRENTE"},
}


class RecurringChargeController(Controller):
    path = "/cobr"
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    async def _create(
        self,
        request: Request[Any, Any, Any],
        txid: str | None,
        data: CobRIn,
        clock: Clock,
        uow: UnitOfWorkFactory,
    ) -> Response[CobROut]:
        account_id = principal_of(request).account_id
        charge = await create_recurring_charge(
            uow, clock, account_id=account_id, txid=txid, terms=charge_terms(data)
        )
        return PixResponse(charge_out(charge, await get_account(uow, account_id)), status_code=201)

    @post(
        "/",
        operation_id="createRecurringChargeWithServiceTxid",
        status_code=201,
        summary="Create a recurring charge",
    )
    async def create_without_txid(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[CobRIn, json_body("The charge.", _COBR_IN)],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobROut]:
        return await self._create(request, None, data, clock, uow)

    @put(
        "/{txid:str}",
        operation_id="createRecurringCharge",
        status_code=201,
        summary="Create a recurring charge under a txid",
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        txid: FromPath[str],
        data: Annotated[CobRIn, json_body("The charge.", _COBR_IN)],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobROut]:
        return await self._create(request, txid, data, clock, uow)

    @get(
        "/",
        operation_id="listRecurringCharges",
        summary="List recurring charges",
        dependencies=RECURRING_QUERIES["cobr"],
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[ChargeListQuery],
        *,
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobsROut]:
        account_id = principal_of(request).account_id
        listing = await list_recurring_charges(uow, account_id=account_id, query=filters)
        return PixResponse(charges_out(filters, listing, await get_account(uow, account_id)))

    @get("/{txid:str}", operation_id="getRecurringCharge", summary="Read a recurring charge")
    async def read(
        self, request: Request[Any, Any, Any], txid: FromPath[str], *, uow: Injected[UnitOfWorkFactory]
    ) -> Response[CobROut]:
        account_id = principal_of(request).account_id
        charge = await read_recurring_charge(uow, account_id=account_id, txid=txid)
        return PixResponse(charge_out(charge, await get_account(uow, account_id)))

    @patch("/{txid:str}", operation_id="cancelRecurringCharge", summary="Cancel a recurring charge")
    async def cancel(
        self,
        request: Request[Any, Any, Any],
        txid: FromPath[str],
        data: Annotated[CobRPatchIn, json_body("The change.", {"status": "CANCELADA"})],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobROut]:
        account_id = principal_of(request).account_id
        if charge_cancel(data):
            charge = await cancel_recurring_charge(uow, clock, account_id=account_id, txid=txid)
        else:
            charge = await read_recurring_charge(uow, account_id=account_id, txid=txid)
        return PixResponse(charge_out(charge, await get_account(uow, account_id)))

    @post(
        "/{txid:str}/retentativa/{data_:str}",
        operation_id="retryRecurringCharge",
        status_code=201,
        summary="Ask a retry on a date",
    )
    async def retry(
        self,
        request: Request[Any, Any, Any],
        txid: FromPath[str],
        data_: FromPath[str],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobROut]:
        account_id = principal_of(request).account_id
        charge = await ask_retry(uow, clock, account_id=account_id, txid=txid, day=retry_day(data_))
        return PixResponse(charge_out(charge, await get_account(uow, account_id)), status_code=201)
