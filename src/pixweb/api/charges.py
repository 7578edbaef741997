"""Charges: ``PUT/GET/PATCH /cob/{txid}`` and the payload location ``GET /qr/v2/{id}`` (decisions §6)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, patch, put
from litestar.openapi.spec import OpenAPIType
from litestar.params import FromPath, JSONBody

from pixcore.charges import (
    ABSENT,
    MAX_DEBTOR_NAME,
    MAX_INFO_NAME,
    MAX_INFO_VALUE,
    MAX_KEY,
    MAX_PAYER_REQUEST,
    CalendarFields,
    Charge,
    ChargeFields,
    ChargeRequest,
    ChargeStatus,
    DebtorFields,
    InfoFields,
    ValueFields,
)
from pixcore.clock import format_timestamp
from pixcore.documents import DocumentKind
from pixcore.errors import ValidationError
from pixcore.money import format_amount_string
from pixcore.usecases.charges import (
    ReceivedPix,
    cancel_charge,
    create_charge,
    get_charge_by_location,
    read_charge,
)
from pixweb.api.deps import principal_of, services_of
from pixweb.api.fields import MAX_AMOUNT_TEXT, MAX_DOCUMENT, MAX_SHORT_CODE, raw
from pixweb.api.refunds import RefundOut, refund_out
from pixweb.errors import error_responses
from pixweb.wire import PixResponse

__all__ = [
    "ChargeController",
    "PayloadController",
    "charge_fields",
    "charge_out",
    "charge_payload",
    "pix_out",
]

# The request's leaves are taken as decoded (Litestar would coerce "3600" into 3600 and the
# spec wants "10.00" as a string only): charge_fields hands them to pixcore.charges.ChargeRequest
# under the domain's names, which checks each type itself, and each text's maximum (documented
# here, decisions §13).
_STRING, _INTEGER = OpenAPIType.STRING, OpenAPIType.INTEGER


class CalendarioIn(msgspec.Struct):
    expiracao: Annotated[Any, raw("seconds, at least 1; default 86400", kind=_INTEGER)] = msgspec.UNSET


class DevedorIn(msgspec.Struct):
    cpf: Annotated[Any, raw("11 digits", kind=_STRING, max_length=11)] = msgspec.UNSET
    cnpj: Annotated[Any, raw("14 characters", kind=_STRING, max_length=MAX_DOCUMENT)] = msgspec.UNSET
    nome: Annotated[Any, raw("required with a document", kind=_STRING, max_length=MAX_DEBTOR_NAME)] = (
        msgspec.UNSET
    )


class ValorIn(msgspec.Struct, rename="camel"):
    original: Annotated[
        Any, raw('a string with 2 decimals, "10.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT)
    ] = msgspec.UNSET
    modalidade_alteracao: Annotated[Any, raw("0 (fixed) or 1 (payer may change)", kind=_INTEGER)] = (
        msgspec.UNSET
    )


class InfoIn(msgspec.Struct):
    nome: Annotated[Any, raw("the item's name", kind=_STRING, max_length=MAX_INFO_NAME)] = msgspec.UNSET
    valor: Annotated[Any, raw("the item's value", kind=_STRING, max_length=MAX_INFO_VALUE)] = msgspec.UNSET


class CobIn(msgspec.Struct, rename="camel"):
    calendario: CalendarioIn | None = None
    valor: ValorIn | None = None
    devedor: DevedorIn | None = None
    chave: Annotated[Any, raw("a PIX key of the account", kind=_STRING, max_length=MAX_KEY)] = None
    solicitacao_pagador: Annotated[
        Any, raw("shown to the payer", kind=_STRING, max_length=MAX_PAYER_REQUEST)
    ] = None
    info_adicionais: list[InfoIn] | None = None


class CobPatchIn(msgspec.Struct):
    status: Annotated[
        Any, raw("REMOVIDA_PELO_USUARIO_RECEBEDOR", kind=_STRING, max_length=MAX_SHORT_CODE)
    ] = msgspec.UNSET


class CalendarioOut(msgspec.Struct):
    criacao: str
    expiracao: int


class LocOut(msgspec.Struct, rename="camel"):
    id: int
    location: str
    tipo_cob: str
    criacao: str
    txid: str


class DevedorOut(msgspec.Struct, omit_defaults=True):
    nome: str
    cpf: str | None = None
    cnpj: str | None = None


class ValorOut(msgspec.Struct, rename="camel"):
    original: str
    modalidade_alteracao: int


class InfoOut(msgspec.Struct):
    nome: str
    valor: str


class CobPixOut(msgspec.Struct, rename="camel"):
    """The standard's ``Pix``: the PIX that paid the charge. ``infoPagador`` is never given: a
    payment reaches this service without a message from its payer (docs/decisions.md, Charges)."""

    end_to_end_id: str
    txid: str
    valor: str
    horario: str
    devolucoes: list[RefundOut]


class CobOut(msgspec.Struct, rename="camel", omit_defaults=True):
    calendario: CalendarioOut
    txid: str
    revisao: int
    loc: LocOut
    location: str
    status: str
    valor: ValorOut
    chave: str
    pix_copia_e_cola: str
    devedor: DevedorOut | None = None
    solicitacao_pagador: str | None = None
    info_adicionais: list[InfoOut] | None = None
    pix: list[CobPixOut] | None = None
    """Only on a CONCLUIDA charge: the PIX that paid it, with its refunds."""


def pix_out(paid: ReceivedPix) -> CobPixOut:
    return CobPixOut(
        end_to_end_id=paid.end_to_end_id,
        txid=paid.tx_id,
        valor=format_amount_string(paid.amount),
        horario=format_timestamp(paid.received_at),
        devolucoes=[refund_out(r) for r in paid.refunds],
    )


def charge_out(charge: Charge, status: ChargeStatus, pix: tuple[ReceivedPix, ...] = ()) -> CobOut:
    """The charge as the API shows it; ``status`` is the one a reader sees now, ``pix`` what paid it."""
    created = format_timestamp(charge.created_at)
    debtor = None
    if charge.debtor is not None:
        is_cpf = charge.debtor.kind is DocumentKind.CPF
        debtor = DevedorOut(
            nome=charge.debtor.name,
            cpf=charge.debtor.document if is_cpf else None,
            cnpj=None if is_cpf else charge.debtor.document,
        )
    return CobOut(
        calendario=CalendarioOut(criacao=created, expiracao=charge.expiration),
        txid=charge.txid,
        revisao=charge.revision,
        loc=LocOut(id=charge.id, location=charge.br_code, tipo_cob="cob", criacao=created, txid=charge.txid),
        location=charge.br_code,
        status=status.value,
        valor=ValorOut(original=format_amount_string(charge.amount), modalidade_alteracao=charge.modality),
        chave=charge.pix_key,
        pix_copia_e_cola=charge.br_code,
        devedor=debtor,
        solicitacao_pagador=charge.payer_request,
        info_adicionais=[InfoOut(nome=n, valor=v) for n, v in charge.info] or None,
        pix=[pix_out(p) for p in pix] or None,
    )


def _given(value: Any) -> Any:
    """A leaf with a default: left out is ``ABSENT`` (``null`` is given, and judged)."""
    return ABSENT if value is msgspec.UNSET else value


def _value(value: Any) -> Any:
    """A leaf without a default: left out reads as ``null``."""
    return None if value is msgspec.UNSET else value


def charge_fields(body: CobIn) -> ChargeFields:
    """The body under the domain's names, each leaf as decoded (``ChargeRequest.parse`` judges it)."""
    calendar = body.calendario
    value = body.valor
    debtor = body.devedor
    return ChargeFields(
        calendar=None if calendar is None else CalendarFields(expiration=_given(calendar.expiracao)),
        value=None
        if value is None
        else ValueFields(original=_value(value.original), modality=_given(value.modalidade_alteracao)),
        debtor=None
        if debtor is None
        else DebtorFields(cpf=_value(debtor.cpf), cnpj=_value(debtor.cnpj), name=_value(debtor.nome)),
        key=body.chave,
        payer_request=body.solicitacao_pagador,
        info=None
        if body.info_adicionais is None
        else tuple(InfoFields(name=_value(i.nome), value=_value(i.valor)) for i in body.info_adicionais),
    )


def charge_payload(charge: Charge, now: datetime) -> dict[str, Any]:
    """The JSON payload the payer's PSP reads at the location (the standard's ``CobPayload``)."""
    body: dict[str, Any] = {
        "txid": charge.txid,
        "revisao": charge.revision,
        "calendario": {
            "criacao": format_timestamp(charge.created_at),
            "apresentacao": format_timestamp(now),
            "expiracao": charge.expiration,
        },
        "status": charge.status_at(now).value,
        "valor": {"original": format_amount_string(charge.amount)},
        "chave": charge.pix_key,
    }
    if charge.modality:
        body["valor"]["modalidadeAlteracao"] = charge.modality
    if charge.debtor is not None:
        document = "cpf" if charge.debtor.kind is DocumentKind.CPF else "cnpj"
        body["devedor"] = {document: charge.debtor.document, "nome": charge.debtor.name}
    if charge.payer_request is not None:
        body["solicitacaoPagador"] = charge.payer_request
    if charge.info:
        body["infoAdicionais"] = [{"nome": n, "valor": v} for n, v in charge.info]
    return body


class ChargeController(Controller):
    path = "/cob"
    tags = ["Charges"]  # noqa: RUF012 - Litestar reads class attributes

    @put(
        "/{txid:str}",
        operation_id="createCharge",
        responses=error_responses(400, 401, 409, 413),
        status_code=201,
        summary="Create an immediate charge",
    )
    async def create(
        self, request: Request[Any, Any, Any], txid: FromPath[str], data: JSONBody[CobIn]
    ) -> Response[CobOut]:
        services = services_of(request)
        charge_request = ChargeRequest.parse(charge_fields(data))
        charge = await create_charge(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            txid=txid,
            request=charge_request,
            location_prefix=services.settings.location_prefix,
        )
        return PixResponse(charge_out(charge, charge.status), status_code=201)

    @get(
        "/{txid:str}",
        operation_id="getCharge",
        responses=error_responses(400, 401, 404),
        summary="Read a charge",
    )
    async def read(self, request: Request[Any, Any, Any], txid: FromPath[str]) -> Response[CobOut]:
        services = services_of(request)
        view = await read_charge(services.uow, account_id=principal_of(request).account_id, txid=txid)
        charge = view.charge
        return PixResponse(charge_out(charge, charge.status_at(services.clock.now()), view.pix))

    @patch(
        "/{txid:str}",
        operation_id="cancelCharge",
        responses=error_responses(400, 401, 404, 413, 422),
        summary="Cancel an active charge",
    )
    async def cancel(
        self, request: Request[Any, Any, Any], txid: FromPath[str], data: JSONBody[CobPatchIn]
    ) -> Response[CobOut]:
        if data.status != ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value:
            problem = "status: the only change allowed is REMOVIDA_PELO_USUARIO_RECEBEDOR"
            raise ValidationError("Invalid charge change: " + problem, details=[problem])
        services = services_of(request)
        charge = await cancel_charge(
            services.uow, services.clock, account_id=principal_of(request).account_id, txid=txid
        )
        return PixResponse(charge_out(charge, charge.status))


class PayloadController(Controller):
    path = "/qr/v2"
    tags = ["Charges"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/{location_id:str}",
        operation_id="getChargePayload",
        responses=error_responses(400, 404),
        summary="The signed payload of a charge, for the payer's PSP",
        security=[{}],  # no bearer token: the payer's PSP reads it
        media_type="application/jose",
    )
    async def read(self, request: Request[Any, Any, Any], location_id: FromPath[str]) -> Response[str]:
        services = services_of(request)
        charge = await get_charge_by_location(services.uow, location_id)
        jku = f"{services.settings.public_url}/.well-known/jwks.json"
        body = services.tokens.sign(charge_payload(charge, services.clock.now()), jku=jku)
        return Response(body, media_type="application/jose", headers={"Cache-Control": "no-store"})
