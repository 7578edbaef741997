"""Refunds of received PIX (``PUT/GET /pix/{e2eid}/devolucao/{id}``) and cash-in QR codes
(``POST /api/pix/cash-in``), through the same use cases and display values as the API."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, QueryParameter

from pixcore.charges.cob import CashInRequest
from pixcore.charges.cob_service import create_cash_in
from pixcore.clock import Clock
from pixcore.errors import InvalidIdentifier, NotFound, PixError
from pixcore.refunds.refund_service import get_refund, request_refund
from pixcore.refunds.rules import RefundRequest, RefundStatus
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.validation import INVALID, Invalid
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.charges.cashin import cash_in_out
from pixweb.console.amounts import TypedAmount
from pixweb.console.money_forms import KINDS, whole_number
from pixweb.console.timeline import refund_timeline
from pixweb.console.web import FormErrors, account_of, language_of, missing_fields, page, redirect
from pixweb.errors import status_of
from pixweb.field_paths import on_the_wire
from pixweb.qr import draw_soon
from pixweb.refunds.refunds import refund_out

__all__ = ["cash_in", "cash_in_form", "refund", "refund_detail", "refund_live", "refunds"]

REFUND_FIELDS = {
    "end_to_end_id": ("e2eid",),
    "refund_id": ("refund id",),
    "amount": ("valor",),
    "nature": ("natureza",),
    "description": ("descricao",),
}
CASH_IN_FIELDS = {
    "amount": ("transaction.value",),
    "description": ("transaction.description",),
    "external_id": ("transaction.externalId",),
    "expiration": ("transaction.expirationTime",),
    "payer_name": ("payer.fullName",),
    "payer_document": ("payer.document",),
}
REFUND_REQUIRED = ("end_to_end_id", "amount", "refund_id")
CASH_IN_REQUIRED = ("amount", "description", "payer_name", "payer_document", "external_id")
NATURES = ("ORIGINAL", "RETIRADA")
E2eQuery = Annotated[str | None, QueryParameter(name="endToEndId", max_length=100)]


def _text(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _refund_errors(exc: PixError) -> FormErrors:
    """The use case's messages beside their fields: an identifier's rule names its field in
    its words; a receipt not of this account (404) belongs to the end-to-end id."""
    errors = FormErrors(exc, REFUND_FIELDS)
    message = on_the_wire(exc)[0]  # as users read it
    if not exc.details:
        if isinstance(exc, InvalidIdentifier):
            field = "refund_id" if message.startswith("refund id") else "end_to_end_id"
            errors.by_field[field] = [message]
        elif isinstance(exc, NotFound):
            errors.by_field["end_to_end_id"] = [message]
    return errors


def _refunds_page(
    request: Request[Any, Any, Any], typed: dict[str, str], errors: FormErrors, status_code: int = 200
) -> Response[Any]:
    return page(
        request,
        "refunds.html",
        status_code=status_code,
        title=language_of(request).gettext("Refunds"),
        typed=typed,
        errors=errors,
        natures=NATURES,
    )


@get("/refunds", name="console:refunds", include_in_schema=False)
async def refunds(request: Request[Any, Any, Any], end_to_end_id: E2eQuery = None) -> Response[Any]:
    """The refund form (a transaction's page fills in its end-to-end id) and "open a refund".
    A new refund id with every render: a form sent twice asks for one refund."""
    typed = {
        "end_to_end_id": end_to_end_id or "",
        "refund_id": uuid.uuid4().hex,
        "amount": "",
        "nature": "ORIGINAL",
        "description": "",
    }
    return _refunds_page(request, typed, FormErrors())


@post("/refunds", name="console:refund-request", include_in_schema=False, status_code=200)
async def refund(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    form = await request.form()
    typed = {name: _text(form, name) for name in REFUND_FIELDS}
    if missing := missing_fields(typed, REFUND_REQUIRED):
        return _refunds_page(request, typed, missing, 400)
    amount = TypedAmount.read(typed["amount"], language_of(request).code)
    try:
        requested = await request_refund(
            uow,
            clock,
            account_id=account_of(request),
            end_to_end_id=typed["end_to_end_id"],
            refund_id=typed["refund_id"],
            request=RefundRequest.parse(
                amount=amount.string(),
                nature=typed["nature"] or None,
                description=typed["description"] or None,
            ),
            ispb=settings.ispb,
            delay=timedelta(seconds=settings.norm_delay_seconds),
        )
    except PixError as exc:
        errors = _refund_errors(exc).replacing("amount", amount.problem)
        return _refunds_page(request, typed, errors, status_of(exc))
    made = requested.refund
    return redirect(request, f"/console/refunds/{typed['end_to_end_id']}/{made.refund_id}")


async def _refund_page(
    request: Request[Any, Any, Any], template: str, e2eid: str, refund_id: str, uow: UnitOfWorkFactory
) -> Response[Any]:
    """A refund's page or its changing part (``refund_live.html``: its details and timeline), asked
    again while in process or while a notification about it is still to be delivered."""
    found = await get_refund(uow, account_id=account_of(request), end_to_end_id=e2eid, refund_id=refund_id)
    timeline = await refund_timeline(uow, found, e2eid)
    changing = found.status is RefundStatus.EM_PROCESSAMENTO or timeline.waiting
    return page(
        request,
        template,
        title=language_of(request).gettext("Refund %(id)s", id=found.refund_id),
        item=refund_out(found),
        e2eid=e2eid,
        amount=found.amount,
        timeline=timeline.events,
        live=f"/console/refunds/{e2eid}/{found.refund_id}/live" if changing else None,
    )


@get("/refunds/{e2eid:str}/{refund_id:str}", name="console:refund", include_in_schema=False)
async def refund_detail(
    request: Request[Any, Any, Any],
    e2eid: FromPath[str],
    refund_id: FromPath[str],
    *,
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """``GET /pix/{e2eid}/devolucao/{id}``: the refund's status (404 for another account's)."""
    return await _refund_page(request, "refund.html", e2eid, refund_id, uow)


@get("/refunds/{e2eid:str}/{refund_id:str}/live", name="console:refund-live", include_in_schema=False)
async def refund_live(
    request: Request[Any, Any, Any],
    e2eid: FromPath[str],
    refund_id: FromPath[str],
    *,
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The changing part of a refund's page, for the page's script to ask again while in process."""
    return await _refund_page(request, "refund_live.html", e2eid, refund_id, uow)


def _cash_in_page(
    request: Request[Any, Any, Any],
    typed: dict[str, str],
    errors: FormErrors,
    status_code: int = 200,
    result: dict[str, Any] | None = None,
) -> Response[Any]:
    return page(
        request,
        "cash_in.html",
        status_code=status_code,
        title=language_of(request).gettext("Cash-in"),
        typed=typed,
        errors=errors,
        result=result,
    )


def _cash_in_defaults() -> dict[str, str]:
    return {
        "amount": "",
        "description": "",
        "external_id": uuid.uuid4().hex,
        "expiration": "",
        "payer_name": "",
        "payer_document": "",
    }


@get("/cash-in", name="console:cash-in", include_in_schema=False)
async def cash_in_form(request: Request[Any, Any, Any]) -> Response[Any]:
    return _cash_in_page(request, _cash_in_defaults(), FormErrors())


@post("/cash-in", name="console:cash-in-post", include_in_schema=False, status_code=200)
async def cash_in(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The form of ``POST /api/pix/cash-in``; its result (the code, its QR image) on the page."""
    form = await request.form()
    typed = {name: _text(form, name) for name in CASH_IN_FIELDS}
    if missing := missing_fields(typed, CASH_IN_REQUIRED):
        return _cash_in_page(request, typed, missing, 400)
    amount = TypedAmount.read(typed["amount"], language_of(request).code)
    seconds = typed["expiration"]
    # A whole number of seconds is a number; anything else is no number, for the rule to refuse.
    expiration: int | Invalid | None = None
    if seconds:
        expiration = int(seconds) if whole_number(seconds) else INVALID
    try:
        charge = await create_cash_in(
            uow,
            clock,
            account_id=account_of(request),
            request=CashInRequest.parse(
                amount=amount.number(),
                description=typed["description"],
                external_id=typed["external_id"],
                expiration=expiration,
                generate_qr_code=False,  # the page shows the image from the charge's own route
                payer_name=typed["payer_name"],
                payer_document=typed["payer_document"],
                additional_info=None,
            ),
            location_prefix=settings.location_prefix,
        )
    except PixError as exc:
        errors = FormErrors(exc, CASH_IN_FIELDS, KINDS).replacing("amount", amount.problem)
        return _cash_in_page(request, typed, errors, status_of(exc))
    draw_soon(charge.br_code)  # the page's image asks for it next
    shown = cash_in_out(charge, status="PENDING", image=False)
    result = {"out": shown, "txid": charge.txid, "amount": charge.amount}
    return _cash_in_page(request, _cash_in_defaults(), FormErrors(), status_code=201, result=result)
