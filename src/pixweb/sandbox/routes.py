"""The sandbox's routes: the outside world, on demand. Present only when the sandbox setting is on."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, post

from pixcore.accounts.accounts_service import require_sandbox_admin
from pixcore.accounts.rules import Counterpart
from pixcore.brcode import MAX_LENGTH as BR_CODE_MAX_LENGTH
from pixcore.charges.cob_service import pay_code
from pixcore.clock import Clock, format_timestamp
from pixcore.documents import parse_document
from pixcore.errors import ValidationError
from pixcore.group_commit.charge_payments import ChargePaymentGroupCommit
from pixcore.group_commit.receipts import ReceiptGroupCommit
from pixcore.identifiers import END_TO_END_ID_PATTERN, ISPB_PATTERN, validate_ispb
from pixcore.keys import KEY_PATTERN, MAX_KEY_LENGTH, PixKey, parse_pix_key
from pixcore.ledger import require_outside
from pixcore.money import parse_amount_number, require_positive
from pixcore.transfers.rules import (
    ACCOUNT_PATTERN,
    BEHAVIORS,
    BRANCH_PATTERN,
    MAX_BANK_NAME,
    MAX_NAME,
    DirectoryEntry,
    DirectoryField,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.validation import collect
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import DOCUMENT_PATTERN, MAX_DOCUMENT, MAX_ISPB, MAX_SHORT_CODE, Timestamp, doc
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.field_paths import wire_paths
from pixweb.sandbox.clock import ClockKeeper
from pixweb.sandbox.directory import SandboxDirectory

__all__ = ["SandboxController"]


PixKeyText = Annotated[
    str,
    msgspec.Meta(max_length=MAX_KEY_LENGTH),
    doc("A PIX key (CPF, CNPJ, phone, e-mail or EVP).", pattern=KEY_PATTERN, example="joao@example.org"),
]
NameText = Annotated[
    str, msgspec.Meta(max_length=MAX_NAME), doc("A person's or company's name.", min_length=1)
]
DocumentText = Annotated[
    str,
    msgspec.Meta(max_length=MAX_DOCUMENT),
    doc("A CPF (11 digits) or CNPJ (14).", pattern=DOCUMENT_PATTERN, example="11144477735"),
]
IspbText = Annotated[
    str,
    msgspec.Meta(max_length=MAX_ISPB),
    doc("An institution's ISPB (8 digits), not this service's.", pattern=ISPB_PATTERN, example="98765432"),
]


class DirectoryIn(msgspec.Struct, rename="camel"):
    """A key of another institution, for transfers to reach."""

    pix_key: PixKeyText
    ispb: IspbText
    name: NameText
    document: DocumentText
    bank_name: Annotated[
        str, msgspec.Meta(max_length=MAX_BANK_NAME), doc("The institution's name.", min_length=1)
    ] = "SANDBOX BANK"
    branch: Annotated[
        str, msgspec.Meta(max_length=4), doc("The branch, 4 digits.", pattern=BRANCH_PATTERN)
    ] = "0001"
    account_number: Annotated[
        str, msgspec.Meta(max_length=20), doc("The account number, 1 to 20 digits.", pattern=ACCOUNT_PATTERN)
    ] = "1"
    behavior: Annotated[
        str,
        msgspec.Meta(max_length=MAX_SHORT_CODE),
        doc("settle: transfers to it settle; reject: its side refuses them (AC06).", enum=BEHAVIORS),
    ] = "settle"


class DirectoryOut(msgspec.Struct, rename="camel"):
    """The key as added: every member of :class:`DirectoryIn`, the defaults filled in."""

    pix_key: str
    ispb: str
    name: str
    document: str
    bank_name: str
    branch: str
    account_number: str
    behavior: str


DIRECTORY_PATHS = wire_paths(
    {
        DirectoryField.KEY: "pixKey",
        DirectoryField.DOCUMENT: "document",
        DirectoryField.INSTITUTION: "ispb",
        DirectoryField.BEHAVIOR: "behavior",
        DirectoryField.NAME: "name",
        DirectoryField.BANK_NAME: "bankName",
        DirectoryField.BRANCH: "branch",
        DirectoryField.ACCOUNT_NUMBER: "accountNumber",
    }
)
"""Where :class:`DirectoryIn` carries the fields ``DirectoryEntry.parse`` names."""


def directory_entry(body: DirectoryIn) -> DirectoryEntry:
    """The body judged by ``DirectoryEntry.parse``, every broken rule at once."""
    return DirectoryEntry.parse(
        pix_key=body.pix_key,
        ispb=body.ispb,
        name=body.name,
        document=body.document,
        bank_name=body.bank_name,
        branch=body.branch,
        account_number=body.account_number,
        behavior=body.behavior,
    )


judge_body(DirectoryIn, lambda body, _request: directory_entry(body))


class PayerIn(msgspec.Struct):
    name: NameText = "Outside Payer"
    document: DocumentText = "11144477735"
    ispb: IspbText = "00000000"


class SandboxPaymentIn(msgspec.Struct, rename="camel"):
    """``{pixCopiaECola}`` (a charge's code, or a static code) or ``{pixKey, amount}``."""

    pix_key: PixKeyText | None = None  # one of your keys, with amount (not with pixCopiaECola)
    amount: Annotated[
        Decimal | None,
        doc(
            "In reais, above zero, at most 2 decimals; with pixKey, or to pay a code that lets the payer"
            " set it.",
            amount=True,
        ),
    ] = None
    pix_copia_e_cola: (
        Annotated[
            str,
            msgspec.Meta(max_length=BR_CODE_MAX_LENGTH),
            doc("A BR Code to pay: one of your charges' or cash-ins' codes, or a static code of your key."),
        ]
        | None
    ) = None
    payer: Annotated[PayerIn | None, doc("Who pays (default: an outside payer).")] = None


class SandboxPaymentOut(msgspec.Struct, rename="camel"):
    end_to_end_id: Annotated[
        str, doc("The end-to-end id of the PIX received.", pattern=END_TO_END_ID_PATTERN)
    ]


class ClockIn(msgspec.Struct, rename="camel"):
    advance_seconds: Annotated[int, doc("Seconds to move forward (above zero).", minimum=1, example=3600)]


class ClockOut(msgspec.Struct):
    now: Annotated[Timestamp, doc("The service clock now (UTC, ISO 8601).")]


_DIRECTORY = {
    "pixKey": "joao@example.org",
    "ispb": "98765432",
    "name": "João Souza",
    "document": "52998224725",
    "bankName": "SANDBOX BANK",
    "branch": "0001",
    "accountNumber": "123456",
    "behavior": "settle",
}


@dataclass(frozen=True, slots=True)
class OutsidePayment:
    """A ``POST /sandbox/payments`` body, judged: who pays, how much, and which key (None with
    ``pixCopiaECola``)."""

    payer: Counterpart
    amount: int | None
    key: PixKey | None


def outside_payment(body: SandboxPaymentIn) -> OutsidePayment:
    """The body judged by ``pixcore``'s parsers, every broken rule at once (a ``ValidationError``
    listing them): the payer's ISPB and document, the amount, the key, and which of
    ``pixCopiaECola`` and ``pixKey`` is given. Whether the payer is outside this service is the
    handler's (a 422, after these)."""
    problems: list[str] = []
    payer = body.payer or PayerIn()
    ispb = collect(problems, "payer.ispb", lambda: validate_ispb(payer.ispb))
    document = collect(problems, "payer.document", lambda: parse_document(payer.document).value)
    amount = body.amount
    cents = None if amount is None else collect(
        problems, "amount", lambda: require_positive(parse_amount_number(amount))
    )  # fmt: skip
    given = body.pix_key
    key = None if given is None else collect(problems, "pixKey", lambda: parse_pix_key(given))
    # Named after the field that is missing, so that a field whose type was wrong (and so is
    # missing here) is not also reported as missing.
    if body.pix_copia_e_cola is not None and given is not None:
        problems.append("Give pixCopiaECola or pixKey, not both.")
    elif body.pix_copia_e_cola is None and (given is None or amount is None):
        missing = "pixKey" if given is None else "amount"
        problems.append(f"{missing}: Give pixCopiaECola, or pixKey and amount.")
    if problems or ispb is None or document is None:
        message = problems[0] if len(problems) == 1 else "Invalid payment: " + "; ".join(problems)
        raise ValidationError(message, details=problems)
    return OutsidePayment(Counterpart(payer.name, document, ispb), cents, key)


judge_body(SandboxPaymentIn, lambda body, _request: outside_payment(body))


class SandboxController(Controller):
    path = "/sandbox"
    tags = ["Sandbox"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/dict",
        operation_id="sandboxAddKey",
        responses=answer(201, DirectoryOut, "The key, as added", _DIRECTORY)
        | error_responses(400, 401, 409, 413, 422),
        status_code=201,
        summary="Add an external key to the directory",
        description=(
            "A key of another institution that transfers (`POST /dict/pix`) can then reach; its"
            " behaviour decides whether they settle. 409: the key is known; 422: the ISPB is this"
            " service's own."
        ),
    )
    async def add_key(
        self,
        data: Annotated[DirectoryIn, json_body("The key.", _DIRECTORY)],
        *,
        sandbox_directory: Injected[SandboxDirectory],
        settings: Injected[Settings],
    ) -> DirectoryOut:
        entry = directory_entry(data)
        require_outside(entry.ispb, settings.ispb)
        await sandbox_directory.add(entry)
        return DirectoryOut(**msgspec.structs.asdict(data))

    @post(
        "/payments",
        operation_id="sandboxPay",
        responses=answer(
            201, SandboxPaymentOut, "Received", {"endToEndId": "E98765432202603151440xY7wV5uT3sR"}
        )
        | error_responses(400, 401, 404, 413, 422),
        status_code=201,
        summary="An outside payer pays one of your keys",
        description=(
            "Money arrives from outside: `{pixKey, amount}` pays one of your keys; `{pixCopiaECola}`"
            " pays one of your charges or cash-ins (or a static code); a due-date charge (`cobv`) is"
            " paid its amount due on the sandbox clock's day. Only your own keys and codes"
            " (422 otherwise); 404: no such charge."
        ),
    )
    async def pay(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[
            SandboxPaymentIn,
            json_body("What is paid.", {"pixKey": "maria.silva@example.com", "amount": 500.0}),
        ],
        *,
        charge_payments: Injected[ChargePaymentGroupCommit],
        clock: Injected[Clock],
        receipts: Injected[ReceiptGroupCommit],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> SandboxPaymentOut:
        payment = outside_payment(data)
        require_outside(payment.payer.ispb, settings.ispb)
        counterpart, amount = payment.payer, payment.amount
        account_id = principal_of(request).account_id
        if data.pix_copia_e_cola is not None:
            e2e = await pay_code(
                uow,
                clock,
                code=data.pix_copia_e_cola,
                location_prefix=settings.location_prefix,
                payer=counterpart,
                amount=amount,
                only_for=account_id,
                payments=charge_payments,
            )
            return SandboxPaymentOut(end_to_end_id=e2e)
        if payment.key is None or amount is None:  # outside_payment refused this already
            raise ValidationError("Give pixCopiaECola, or pixKey and amount.")
        receipt = await receipts.receive(
            key=payment.key,
            amount=amount,
            payer=counterpart,
            only_for=account_id,
        )
        return SandboxPaymentOut(end_to_end_id=receipt.end_to_end_id)

    @post(
        "/clock",
        operation_id="sandboxAdvanceClock",
        responses=answer(200, ClockOut, "The clock moved", {"now": "2026-03-15T15:35:00.000Z"})
        | error_responses(400, 401, 403, 413),
        status_code=200,
        summary="Move the service clock forward (sandbox administrators only)",
        description=(
            "Moves the clock of every process of the service, for every account: tokens, charges and"
            " pending transfers expire by it. Only an account created with `--sandbox-admin` may"
            " (403 otherwise)."
        ),
    )
    async def advance(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[ClockIn, json_body("How far.", {"advanceSeconds": 3600})],
        *,
        clock: Injected[Clock],
        keeper: Injected[ClockKeeper],
        uow: Injected[UnitOfWorkFactory],
    ) -> ClockOut:
        """Moves the clock of every process of the service, for every account: only an account
        the operator created with ``--sandbox-admin`` may (403 otherwise)."""
        await require_sandbox_admin(uow, principal_of(request).account_id)
        await keeper.advance(data.advance_seconds)
        return ClockOut(now=format_timestamp(clock.now()))
