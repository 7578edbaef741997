"""The payer's side of Pix Automático in the sandbox (ours, under ``/sandbox``, our error shape):
a payer's balance at their bank, the answer to a request (JORNADA_1), the authorization of a
recurrence by its QR code (JORNADA_2 to 4), a refusal, a cancellation by the payer.

Each acts on the caller's own recurrences and requests only: another account's are not found
(404), as everywhere. The debits themselves are the settlement loop's (``run_recurring_charges``),
on the sandbox clock."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post, put
from litestar.params import Parameter

from pixcore import brcode
from pixcore.clock import Clock
from pixcore.errors import ValidationError
from pixcore.identifiers import ISPB_PATTERN
from pixcore.money import cents_to_decimal, parse_amount_number
from pixcore.recurrences import (
    Journey,
    Payer,
    Recurrence,
    RecurrenceNotFound,
    accept_recurrence,
    answer_request,
    cancel_by_payer,
    payer_balance,
    read_recurrence,
    read_recurrence_payload,
    read_recurrence_request,
    refuse_recurrence,
    set_payer_balance,
)
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import (
    DOCUMENT_PATTERN,
    MAX_DOCUMENT,
    MAX_ISPB,
    MONEY_NUMBER,
    REAIS_BELOW,
    doc,
    whole,
)
from pixweb.errors import error_responses

__all__ = ["RecurrenceSandboxController"]

_PAYER = {"document": "11144477735", "ispb": "12345678"}


Ispb = Annotated[
    str,
    Parameter(
        description="The payer's bank (its ISPB, 8 digits).", max_length=8, pattern=whole(ISPB_PATTERN)
    ),
]
Document = Annotated[
    str, Parameter(description="The payer's CPF or CNPJ.", max_length=14, pattern=whole(DOCUMENT_PATTERN))
]
RequestId = Annotated[str, Parameter(description="The request's `idSolicRec`.", max_length=29)]
RecurrenceId = Annotated[str, Parameter(description="The recurrence's `idRec`.", max_length=29)]


class SandboxPayerIn(msgspec.Struct, rename="camel"):
    """A payer: a CPF or CNPJ at an institution (its ISPB, not this service's)."""

    document: Annotated[
        str, msgspec.Meta(max_length=MAX_DOCUMENT), doc("A CPF or a CNPJ.", example="11144477735")
    ]
    ispb: Annotated[
        str, msgspec.Meta(max_length=MAX_ISPB), doc("The payer's institution.", example="12345678")
    ]
    city_code: (
        Annotated[str, msgspec.Meta(pattern="^[0-9]{7}$", max_length=7), doc("The IBGE municipality code.")]
        | None
    ) = None

    def payer(self) -> Payer:
        return Payer(self.document, self.ispb, self.city_code)


class PayerBalanceIn(msgspec.Struct):
    balance: Annotated[
        Decimal,
        doc(
            "The payer's balance at their bank, in reais (zero or more).",
            schema=MONEY_NUMBER | {"exclusive_maximum": REAIS_BELOW},
            minimum=0,
        ),
    ]


class PayerBalanceOut(msgspec.Struct):
    document: str
    ispb: str
    balance: Annotated[Decimal, doc("In reais.")]


class AnswerIn(msgspec.Struct):
    accept: Annotated[bool, doc("true: the holder authorizes the recurrence; false: refuses it.")]


class AuthorizeIn(msgspec.Struct, rename="camel"):
    pix_copia_e_cola: Annotated[
        str,
        msgspec.Meta(max_length=brcode.MAX_LENGTH),
        doc(
            "The code the payer read: the recurrence's own (`dadosQR` of JORNADA_2), or a charge's"
            " composed with it (JORNADA_3 with a cob: its amount is paid from the payer's balance;"
            " JORNADA_4 with a cobv, paid apart)."
        ),
    ]
    payer: Annotated[SandboxPayerIn, doc("The payer who read it.")]


class CancelIn(msgspec.Struct):
    payer: Annotated[SandboxPayerIn, doc("The payer who authorized it.")]


class AnsweredOut(msgspec.Struct, rename="camel"):
    id_rec: str
    status: Annotated[str, doc("The recurrence's status now.")]
    tipo_jornada: str


def _answered(recurrence: Recurrence) -> AnsweredOut:
    return AnsweredOut(
        id_rec=recurrence.rec_id, status=recurrence.status.value, tipo_jornada=recurrence.journey.value
    )


_ANSWERED = {"idRec": "RN1234567820260401abcdefghijk", "status": "APROVADA", "tipoJornada": "JORNADA_2"}


def _journey(code: brcode.BrCode, prefix: str) -> Journey:
    """The journey a code stands for: its charge's location says which (a cobv's has ``cobv/``)."""
    if code.location is None:
        return Journey.JORNADA_2
    return Journey.JORNADA_4 if code.location.startswith(prefix + "cobv/") else Journey.JORNADA_3


def _token(code: brcode.BrCode, prefix: str) -> str:
    """The recurrence location's token the code carries (``80-25``: ``{prefix}rec/{token}``)."""
    where = prefix + "rec/"
    if code.recurrence is None or not code.recurrence.startswith(where):
        raise ValidationError("pixCopiaECola: not a code of a recurrence of this service")
    return code.recurrence.removeprefix(where)


class RecurrenceSandboxController(Controller):
    path = "/sandbox"
    tags = ["Sandbox"]  # noqa: RUF012 - Litestar reads class attributes

    @put(
        "/payers/{ispb:str}/{document:str}",
        operation_id="sandboxSetPayerBalance",
        responses=answer(200, PayerBalanceOut, "The balance, set", _PAYER | {"balance": 100.0})
        | error_responses(400, 401, 413),
        summary="Set a payer's balance at their bank (Pix Automático)",
        description=(
            "The money a payer has at their own institution, which the recurring charges they"
            " authorized debit on their dates. It is not the service's: a debit arrives in the"
            " receiver's account as any PIX received."
        ),
    )
    async def set_balance(
        self,
        ispb: Ispb,
        document: Document,
        data: Annotated[PayerBalanceIn, json_body("The balance.", {"balance": 100.0})],
        *,
        uow: Injected[UnitOfWorkFactory],
    ) -> PayerBalanceOut:
        cents = parse_amount_number(data.balance)
        await set_payer_balance(uow, payer=Payer(document, ispb), amount=cents)
        return PayerBalanceOut(document=document, ispb=ispb, balance=cents_to_decimal(cents))

    @get(
        "/payers/{ispb:str}/{document:str}",
        operation_id="sandboxPayerBalance",
        responses=answer(200, PayerBalanceOut, "The payer's balance", _PAYER | {"balance": 65.0})
        | error_responses(400, 401),
        summary="A payer's balance at their bank",
        description="What the sandbox's payer has at their bank, which the recurring debits draw on.",
    )
    async def balance(
        self, ispb: Ispb, document: Document, *, uow: Injected[UnitOfWorkFactory]
    ) -> PayerBalanceOut:
        cents = await payer_balance(uow, payer=Payer(document, ispb))
        return PayerBalanceOut(document=document, ispb=ispb, balance=cents_to_decimal(cents))

    @post(
        "/solicrec/{id_solic_rec:str}/answer",
        operation_id="sandboxAnswerRecurrenceRequest",
        responses=answer(
            200, AnsweredOut, "The recurrence as the answer left it", _ANSWERED | {"tipoJornada": "JORNADA_1"}
        )
        | error_responses(400, 401, 404, 413, 422),
        status_code=200,
        summary="The holder asked by a request answers it (JORNADA_1)",
        description=(
            "The request reaches the holder's bank (ENVIADA, RECEBIDA) and is ACEITA (the"
            " recurrence APROVADA, the holder its payer) or REJEITADA (the recurrence REJEITADA,"
            " AP13). 404: no request of your account has this id; 422: it is no longer open."
        ),
    )
    async def answer_request(
        self,
        request: Request[Any, Any, Any],
        id_solic_rec: RequestId,
        data: Annotated[AnswerIn, json_body("The answer.", {"accept": True})],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> AnsweredOut:
        await read_recurrence_request(
            uow, clock, account_id=principal_of(request).account_id, request_id=id_solic_rec
        )
        _, recurrence = await answer_request(uow, clock, request_id=id_solic_rec, authorized=data.accept)
        return _answered(recurrence)

    @post(
        "/rec/authorize",
        operation_id="sandboxAuthorizeRecurrence",
        responses=answer(200, AnsweredOut, "The recurrence, APROVADA", _ANSWERED)
        | error_responses(400, 401, 404, 413, 422),
        status_code=200,
        summary="A payer authorizes a recurrence by its QR code (JORNADA_2 to 4)",
        description=(
            "The payer read `pixCopiaECola`: the recurrence's own code (JORNADA_2), or a charge's"
            " composed with it: a cob's (JORNADA_3: the recurrence's `ativacao.dadosJornada.txid`"
            " is paid from the payer's balance in the same step; 422 when it does not cover it) or"
            " a cobv's (JORNADA_4, paid apart). 404: not a recurrence of your account."
        ),
    )
    async def authorize(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[
            AuthorizeIn, json_body("The code and the payer.", {"pixCopiaECola": "000201...", "payer": _PAYER})
        ],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> AnsweredOut:
        code = brcode.decode(data.pix_copia_e_cola)
        prefix = settings.location_prefix
        recurrence = await read_recurrence_payload(uow, clock, token=_token(code, prefix))
        if recurrence.account_id != principal_of(request).account_id:
            raise RecurrenceNotFound()
        approved = await accept_recurrence(
            uow, clock, rec_id=recurrence.rec_id, journey=_journey(code, prefix), payer=data.payer.payer()
        )
        return _answered(approved)

    @post(
        "/rec/{id_rec:str}/refuse",
        operation_id="sandboxRefuseRecurrence",
        responses=answer(200, AnsweredOut, "The recurrence, REJEITADA", _ANSWERED | {"status": "REJEITADA"})
        | error_responses(400, 401, 404, 422),
        status_code=200,
        summary="A payer refuses a recurrence shown by a QR code",
        description="The payer declines the authorization a recurrence's QR code asks (REJEITADA).",
    )
    async def refuse(
        self,
        request: Request[Any, Any, Any],
        id_rec: RecurrenceId,
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> AnsweredOut:
        await read_recurrence(uow, clock, account_id=principal_of(request).account_id, rec_id=id_rec)
        return _answered(await refuse_recurrence(uow, clock, rec_id=id_rec))

    @post(
        "/rec/{id_rec:str}/cancel",
        operation_id="sandboxCancelRecurrenceByPayer",
        responses=answer(200, AnsweredOut, "The recurrence, CANCELADA", _ANSWERED | {"status": "CANCELADA"})
        | error_responses(400, 401, 404, 413, 422),
        status_code=200,
        summary="The payer cancels their authorization of a recurrence",
        description=(
            "CANCELADA by the paying user (SLDB), with its charges still to be paid. 422: the payer"
            " named is not the one who authorized it."
        ),
    )
    async def cancel(
        self,
        request: Request[Any, Any, Any],
        id_rec: RecurrenceId,
        data: Annotated[CancelIn, json_body("Who cancels.", {"payer": _PAYER})],
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> AnsweredOut:
        await read_recurrence(uow, clock, account_id=principal_of(request).account_id, rec_id=id_rec)
        return _answered(await cancel_by_payer(uow, clock, rec_id=id_rec, payer=data.payer.payer()))
