"""The sandbox's routes (decisions §11): the outside world, on demand. Present only when
the sandbox setting is on."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post
from litestar.params import JSONBody

from pixcore.accounts import Counterpart
from pixcore.brcode import MAX_LENGTH as BR_CODE_MAX_LENGTH
from pixcore.clock import format_timestamp
from pixcore.documents import parse_document
from pixcore.errors import ValidationError
from pixcore.identifiers import validate_ispb
from pixcore.keys import MAX_KEY_LENGTH, parse_pix_key
from pixcore.ledger import require_outside
from pixcore.money import parse_amount_number, require_positive
from pixcore.transfers import MAX_BANK_NAME, MAX_NAME, DirectoryEntry
from pixcore.usecases.accounts import require_sandbox_admin
from pixcore.usecases.charges import pay_code
from pixcore.usecases.receipts import receive_payment
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_DOCUMENT, MAX_ISPB, MAX_SHORT_CODE
from pixweb.errors import error_responses

__all__ = ["SandboxController"]


PixKeyText = Annotated[str, msgspec.Meta(max_length=MAX_KEY_LENGTH)]
NameText = Annotated[str, msgspec.Meta(max_length=MAX_NAME)]
DocumentText = Annotated[str, msgspec.Meta(max_length=MAX_DOCUMENT)]
IspbText = Annotated[str, msgspec.Meta(max_length=MAX_ISPB)]


class DirectoryIn(msgspec.Struct, rename="camel"):
    pix_key: PixKeyText
    ispb: IspbText
    name: NameText
    document: DocumentText
    bank_name: Annotated[str, msgspec.Meta(max_length=MAX_BANK_NAME)] = "SANDBOX BANK"
    branch: Annotated[str, msgspec.Meta(max_length=4)] = "0001"
    account_number: Annotated[str, msgspec.Meta(max_length=20)] = "1"
    behavior: Annotated[str, msgspec.Meta(max_length=MAX_SHORT_CODE)] = "settle"


class PayerIn(msgspec.Struct):
    name: NameText = "Outside Payer"
    document: DocumentText = "11144477735"
    ispb: IspbText = "00000000"


class PaymentIn(msgspec.Struct, rename="camel"):
    """``{pixCopiaECola}`` (a charge's code, or a static code) or ``{pixKey, amount}``."""

    pix_key: PixKeyText | None = None
    amount: Decimal | None = None
    pix_copia_e_cola: Annotated[str, msgspec.Meta(max_length=BR_CODE_MAX_LENGTH)] | None = None
    payer: PayerIn | None = None


class PaymentOut(msgspec.Struct, rename="camel"):
    end_to_end_id: str


class ClockIn(msgspec.Struct, rename="camel"):
    advance_seconds: int


class ClockOut(msgspec.Struct):
    now: str


class SandboxController(Controller):
    path = "/sandbox"
    tags = ["Sandbox"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/dict",
        operation_id="sandboxAddKey",
        responses=error_responses(400, 401, 409, 413, 422),
        status_code=201,
        summary="Add an external key to the directory",
    )
    async def add_key(self, request: Request[Any, Any, Any], data: JSONBody[DirectoryIn]) -> DirectoryIn:
        services = services_of(request)
        entry = DirectoryEntry.parse(
            pix_key=data.pix_key,
            ispb=data.ispb,
            name=data.name,
            document=data.document,
            bank_name=data.bank_name,
            branch=data.branch,
            account_number=data.account_number,
            behavior=data.behavior,
        )
        require_outside(entry.ispb, services.settings.ispb)
        await services.sandbox_directory.add(entry)
        return data

    @post(
        "/payments",
        operation_id="sandboxPay",
        responses=error_responses(400, 401, 404, 413, 422),
        status_code=201,
        summary="An outside payer pays one of your keys",
    )
    async def pay(self, request: Request[Any, Any, Any], data: JSONBody[PaymentIn]) -> PaymentOut:
        services = services_of(request)
        payer = data.payer or PayerIn()
        institution = require_outside(validate_ispb(payer.ispb), services.settings.ispb)
        counterpart = Counterpart(payer.name, parse_document(payer.document).value, institution)
        amount = None if data.amount is None else require_positive(parse_amount_number(data.amount))
        account_id = principal_of(request).account_id
        if data.pix_copia_e_cola is not None:
            if data.pix_key is not None:
                raise ValidationError("Give pixCopiaECola or pixKey, not both.")
            e2e = await pay_code(
                services.uow,
                services.clock,
                code=data.pix_copia_e_cola,
                location_prefix=services.settings.location_prefix,
                payer=counterpart,
                amount=amount,
                only_for=account_id,
            )
            return PaymentOut(end_to_end_id=e2e)
        if data.pix_key is None or amount is None:
            raise ValidationError("Give pixCopiaECola, or pixKey and amount.")
        receipt = await receive_payment(
            services.uow,
            services.clock,
            key=parse_pix_key(data.pix_key),
            amount=amount,
            payer=counterpart,
            only_for=account_id,
        )
        return PaymentOut(end_to_end_id=receipt.end_to_end_id)

    @post(
        "/clock",
        operation_id="sandboxAdvanceClock",
        responses=error_responses(400, 401, 403, 413),
        status_code=200,
        summary="Move the service clock forward (sandbox administrators only)",
    )
    async def advance(self, request: Request[Any, Any, Any], data: JSONBody[ClockIn]) -> ClockOut:
        """Moves the clock of every process of the service, for every account: only an account
        the operator created with ``--sandbox-admin`` may (403 otherwise)."""
        services = services_of(request)
        await require_sandbox_admin(services.uow, principal_of(request).account_id)
        await services.keeper.advance(data.advance_seconds)
        return ClockOut(now=format_timestamp(services.clock.now()))
