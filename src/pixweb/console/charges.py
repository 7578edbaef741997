"""Charges: create, read (with the QR image and the copy-and-paste code), cancel, and, in the
sandbox, pay as an outside payer. The same use cases as ``/cob`` and ``/sandbox/payments``."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, QueryParameter

from pixcore.accounts.rules import Counterpart
from pixcore.charges.cob import (
    ABSENT,
    CalendarFields,
    ChargeFields,
    ChargeLine,
    ChargeRequest,
    ChargeStatus,
    DebtorFields,
    ValueFields,
)
from pixcore.charges.cob_service import (
    ALL_KINDS,
    cancel_charge,
    create_charge,
    list_charges,
    pay_code,
    read_charge,
)
from pixcore.clock import Clock
from pixcore.documents import parse_document
from pixcore.errors import NotFound, PixError
from pixcore.identifiers import validate_ispb
from pixcore.ledger import require_outside
from pixcore.unit_of_work import ReadUnitsOfWork, UnitOfWorkFactory
from pixcore.validation import INVALID, Absent, Invalid
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.charges.mapping import charge_out
from pixweb.console.amounts import TypedAmount
from pixweb.console.due import due_view
from pixweb.console.money_forms import whole_number
from pixweb.console.timeline import charge_timeline
from pixweb.console.web import FormErrors, account_of, language_of, missing_fields, page, redirect
from pixweb.errors import status_of
from pixweb.qr import draw_soon, png_off_loop
from pixweb.sandbox.routes import PayerIn

__all__ = ["cancel", "charge_detail", "charge_live", "charge_qr", "charge_rows", "charges", "create", "pay"]

CHARGE_FIELDS = {
    "amount": ("valor.original", "valor"),
    "expiration": ("calendario",),
    "key": ("chave",),
    "payer_request": ("solicitacaoPagador",),
    "debtor_name": ("devedor.nome",),
    "debtor_document": ("devedor.cpf", "devedor.cnpj", "devedor"),
    "txid": ("txid",),
}
LISTED = 50  # the newest charges the list shows; older ones open by txid
TxidQuery = Annotated[str | None, QueryParameter(name="txid", max_length=100)]


def _text(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _fields(typed: dict[str, str], amount: str | None) -> ChargeFields:
    """The form under the domain's names, as ``charge_fields`` maps a ``PUT /cob`` body.
    A whole number of seconds is a number; anything else is ``INVALID``, for the rule to refuse."""
    expiration: int | Absent | Invalid = ABSENT
    if typed["expiration"]:
        expiration = int(typed["expiration"]) if whole_number(typed["expiration"]) else INVALID
    debtor = None
    if typed["debtor_name"] or typed["debtor_document"]:
        document = typed["debtor_document"]
        is_cnpj = len("".join(c for c in document if c.isalnum())) > 11
        debtor = DebtorFields(
            cpf=None if is_cnpj else document,
            cnpj=document if is_cnpj else None,
            name=typed["debtor_name"] or None,
        )
    return ChargeFields(
        calendar=CalendarFields(expiration=expiration),
        value=ValueFields(original=amount or None),
        debtor=debtor,
        key=typed["key"] or None,
        payer_request=typed["payer_request"] or None,
    )


def charge_rows(lines: Iterable[ChargeLine], now: datetime) -> list[tuple[object, ...]]:
    """The cells of each line of a charges table (``macros.html``): txid, creation (UTC), kind,
    status seen at ``now``, amount in centavos; the template writes dates, states and money in
    the page's language."""
    return [
        (line.txid, line.created_at.astimezone(UTC), line.kind.value, line.status_at(now), line.amount)
        for line in lines
    ]


async def _charges_page(
    request: Request[Any, Any, Any],
    typed: dict[str, str],
    errors: FormErrors,
    status_code: int = 200,
    *,
    uow: UnitOfWorkFactory,
    clock: Clock,
) -> Response[Any]:
    now = clock.now()
    listed = await list_charges(uow, account_id=account_of(request), limit=LISTED)
    rows = charge_rows(listed, now)
    return page(
        request,
        "charges.html",
        status_code=status_code,
        title=language_of(request).gettext("Charges"),
        typed=typed,
        errors=errors,
        rows=rows,
        listed=LISTED,
    )


@get("/charges", name="console:charges", include_in_schema=False)
async def charges(
    request: Request[Any, Any, Any],
    txid: TxidQuery = None,
    *,
    reads: Injected[ReadUnitsOfWork],
    clock: Injected[Clock],
) -> Response[Any]:
    """The newest charges, the create form, and "open a charge by its txid"."""
    if txid:
        return redirect(request, f"/console/charges/{txid}")
    typed = dict.fromkeys(CHARGE_FIELDS, "")
    uow = reads.uow(account_of(request))
    return await _charges_page(request, typed, FormErrors(), uow=uow, clock=clock)


@post("/charges", name="console:charge-create", include_in_schema=False, status_code=200)
async def create(
    request: Request[Any, Any, Any],
    *,
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    form = await request.form()
    typed = {name: _text(form, name) for name in CHARGE_FIELDS}
    if missing := missing_fields(typed, ("amount",)):
        return await _charges_page(request, typed, missing, 400, uow=uow, clock=clock)
    txid = typed["txid"] or uuid.uuid4().hex  # 32 letters and digits, as the API's clients make one
    amount = TypedAmount.read(typed["amount"], language_of(request).code)
    try:
        charge = await create_charge(
            uow,
            clock,
            account_id=account_of(request),
            txid=txid,
            request=ChargeRequest.parse(_fields(typed, amount.string())),
            location_prefix=settings.location_prefix,
        )
    except PixError as exc:
        errors = FormErrors(exc, CHARGE_FIELDS).replacing("amount", amount.problem)
        return await _charges_page(request, typed, errors, status_of(exc), uow=uow, clock=clock)
    draw_soon(charge.br_code)  # the charge's page, next, shows its image
    return redirect(request, f"/console/charges/{charge.txid}")


async def _charge_page(
    request: Request[Any, Any, Any], template: str, txid: str, clock: Clock, uow: UnitOfWorkFactory
) -> Response[Any]:
    """A charge's page or its changing part (``charge_live.html``: its details and timeline), asked
    again while it is ATIVA or a notification about its payment is still to be delivered."""
    view = await read_charge(uow, account_id=account_of(request), txid=txid, kinds=ALL_KINDS)
    status = view.charge.status_at(clock.now())
    shown = charge_out(view.charge, status, view.pix)
    terms = view.charge.due
    due = None if terms is None else due_view(terms, clock.now(), language_of(request))
    timeline = await charge_timeline(uow, view)
    changing = status is ChargeStatus.ATIVA or timeline.waiting
    return page(
        request,
        template,
        title=language_of(request).gettext("Charge %(txid)s", txid=view.charge.txid),
        charge=shown,
        amount=view.charge.amount,
        due=due,
        errors=FormErrors(),
        timeline=timeline.events,
        live=f"/console/charges/{view.charge.txid}/live" if changing else None,
    )


@get("/charges/{txid:str}", name="console:charge", include_in_schema=False)
async def charge_detail(
    request: Request[Any, Any, Any],
    txid: FromPath[str],
    *,
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    return await _charge_page(request, "charge.html", txid, clock, uow)


@get("/charges/{txid:str}/live", name="console:charge-live", include_in_schema=False)
async def charge_live(
    request: Request[Any, Any, Any],
    txid: FromPath[str],
    *,
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The changing part of a charge's page, for the page's script to ask again while it is ATIVA."""
    return await _charge_page(request, "charge_live.html", txid, clock, uow)


@get("/charges/{txid:str}/qr.png", name="console:charge-qr", include_in_schema=False)
async def charge_qr(
    request: Request[Any, Any, Any], txid: FromPath[str], *, uow: Injected[UnitOfWorkFactory]
) -> Response[bytes]:
    """The charge's code as a QR image (the page's ``<img>``): the account's own charges only."""
    view = await read_charge(uow, account_id=account_of(request), txid=txid, kinds=ALL_KINDS)
    if not view.charge.located:
        raise NotFound("This charge has no location: no code pays it.")
    return Response(
        await png_off_loop(view.charge.br_code), media_type="image/png", headers={"Cache-Control": "no-store"}
    )


@post("/charges/{txid:str}/cancel", name="console:charge-cancel", include_in_schema=False, status_code=200)
async def cancel(
    request: Request[Any, Any, Any],
    txid: FromPath[str],
    *,
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    await cancel_charge(uow, clock, account_id=account_of(request), txid=txid, kinds=ALL_KINDS)
    return redirect(request, f"/console/charges/{txid}")


@post("/charges/{txid:str}/pay", name="console:charge-pay", include_in_schema=False, status_code=200)
async def pay(
    request: Request[Any, Any, Any],
    txid: FromPath[str],
    *,
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """The sandbox's outside payer pays the charge's code (``POST /sandbox/payments``)."""
    if not settings.sandbox:
        raise NotFound("The sandbox is off in this service.")
    account_id = account_of(request)
    view = await read_charge(uow, account_id=account_id, txid=txid, kinds=ALL_KINDS)
    payer = PayerIn()
    institution = require_outside(validate_ispb(payer.ispb), settings.ispb)
    counterpart = Counterpart(payer.name, parse_document(payer.document).value, institution)
    await pay_code(
        uow,
        clock,
        code=view.charge.br_code,
        location_prefix=settings.location_prefix,
        payer=counterpart,
        only_for=account_id,
    )
    return redirect(request, f"/console/charges/{txid}")
