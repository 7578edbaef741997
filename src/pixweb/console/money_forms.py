"""Money forms: send a PIX to a key (``POST /dict/pix``) and, in the sandbox, receive one from an
outside payer (``POST /sandbox/payments``), through the same use cases."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from litestar import Request, Response, get, post

from pixcore.accounts.rules import Counterpart
from pixcore.clock import Clock
from pixcore.documents import parse_document
from pixcore.errors import InvalidAmount, InvalidDocument, InvalidPixKey, NotFound, PixError
from pixcore.identifiers import validate_ispb
from pixcore.keys import parse_pix_key
from pixcore.ledger import require_outside
from pixcore.money import parse_amount_number, require_positive
from pixcore.transfers.ports import KeyDirectory
from pixcore.transfers.receipt_service import receive_payment
from pixcore.transfers.rules import TransferRequest, parse_idempotency_key
from pixcore.transfers.transfer_service import create_transfer
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.console.amounts import TypedAmount
from pixweb.console.web import FormErrors, account_of, language_of, missing_fields, page, redirect
from pixweb.errors import status_of
from pixweb.sandbox.routes import PayerIn

__all__ = ["KINDS", "receive", "receive_form", "send", "send_form", "whole_number"]

SEND_FIELDS = {
    "pix_key": ("pixKey", "pix key", "key"),
    "amount": ("payment.amount", "amount"),
    "description": ("description",),
}
RECEIVE_FIELDS = {
    "pix_key": ("pixKey", "key"),
    "amount": ("amount",),
    "payer_name": ("name",),
    "payer_document": ("document", "CPF", "CNPJ"),
}
REQUIRED = ("pix_key", "amount")
"""What both forms need (the payer's name and document have the sandbox's defaults)."""
KINDS: dict[type[PixError], str] = {
    InvalidPixKey: "pix_key",
    InvalidAmount: "amount",
    InvalidDocument: "payer_document",
}


def _text(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def whole_number(text: str) -> bool:
    """ASCII digits, short enough to be a number of seconds (``"²"`` and 5,000 digits are not)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def _send_page(
    request: Request[Any, Any, Any],
    typed: dict[str, str],
    errors: FormErrors,
    status_code: int = 200,
    key: str | None = None,
) -> Response[Any]:
    return page(
        request,
        "send.html",
        status_code=status_code,
        title=language_of(request).gettext("Send a PIX"),
        typed=typed,
        errors=errors,
        idempotency_key=key or str(uuid.uuid4()),
    )


@get("/send", name="console:send", include_in_schema=False)
async def send_form(request: Request[Any, Any, Any]) -> Response[Any]:
    """A new idempotency key with every render: a form sent twice sends once."""
    return _send_page(request, dict.fromkeys(SEND_FIELDS, ""), FormErrors())


@post("/send", name="console:send-post", include_in_schema=False, status_code=200)
async def send(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    directory: Injected[KeyDirectory],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    form = await request.form()
    typed = {name: _text(form, name) for name in SEND_FIELDS}
    key_text = _text(form, "idempotency_key")
    if missing := missing_fields(typed, REQUIRED):
        return _send_page(request, typed, missing, 400, key=key_text or None)
    amount = TypedAmount.read(typed["amount"], language_of(request).code)
    try:
        created = await create_transfer(
            uow,
            directory,
            clock,
            account_id=account_of(request),
            idempotency_key=parse_idempotency_key(key_text),
            request=TransferRequest.parse(
                pix_key=typed["pix_key"],
                amount=amount.number(),  # type: ignore[arg-type]  # a text: the rule refuses it
                currency="BRL",
                description=typed["description"] or None,
                priority=None,
                expiration=None,
                creditor_document=None,
                ispb_deny=None,
                payment_flow=None,
            ),
            ispb=settings.ispb,
            norm_delay=timedelta(seconds=settings.norm_delay_seconds),
        )
    except PixError as exc:
        # The same key again: the typed values are unchanged, so a corrected form still sends once.
        errors = FormErrors(exc, SEND_FIELDS, KINDS).replacing("amount", amount.problem)
        return _send_page(request, typed, errors, status_of(exc), key=key_text or None)
    return redirect(request, f"/console/transactions/{created.transfer.transaction_id}")


def _receive_page(
    request: Request[Any, Any, Any], typed: dict[str, str], errors: FormErrors, status_code: int = 200
) -> Response[Any]:
    return page(
        request,
        "receive.html",
        status_code=status_code,
        title=language_of(request).gettext("Receive a payment"),
        typed=typed,
        errors=errors,
    )


@get("/receive", name="console:receive", include_in_schema=False)
async def receive_form(request: Request[Any, Any, Any], *, settings: Injected[Settings]) -> Response[Any]:
    if not settings.sandbox:
        raise NotFound("The sandbox is off in this service.")
    defaults = PayerIn()
    typed = {"pix_key": "", "amount": "", "payer_name": defaults.name, "payer_document": defaults.document}
    return _receive_page(request, typed, FormErrors())


@post("/receive", name="console:receive-post", include_in_schema=False, status_code=200)
async def receive(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """An outside payer pays one of the account's keys (the sandbox's ``pixKey`` and ``amount``)."""
    if not settings.sandbox:
        raise NotFound("The sandbox is off in this service.")
    form = await request.form()
    typed = {name: _text(form, name) for name in RECEIVE_FIELDS}
    if missing := missing_fields(typed, REQUIRED):
        return _receive_page(request, typed, missing, 400)
    amount = TypedAmount.read(typed["amount"], language_of(request).code)
    try:
        institution = require_outside(validate_ispb(PayerIn().ispb), settings.ispb)
        payer = Counterpart(typed["payer_name"], parse_document(typed["payer_document"]).value, institution)
        receipt = await receive_payment(
            uow,
            clock,
            key=parse_pix_key(typed["pix_key"]),
            amount=require_positive(parse_amount_number(amount.number())),
            payer=payer,
            only_for=account_of(request),
        )
    except PixError as exc:
        errors = FormErrors(exc, RECEIVE_FIELDS, KINDS).replacing("amount", amount.problem)
        return _receive_page(request, typed, errors, status_of(exc))
    return redirect(request, f"/console/transactions?endToEndId={receipt.end_to_end_id}")
