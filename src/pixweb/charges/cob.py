"""Charges: ``PUT/GET/PATCH /cob/{txid}`` and the payload location ``GET /qr/v2/{id}``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, patch, post, put
from litestar.di import NamedDependency
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter

from pixcore.charges.cob import (
    ABSENT,
    MAX_DEBTOR_NAME,
    MAX_EXPIRATION,
    MAX_INFO_ITEMS,
    MAX_INFO_NAME,
    MAX_INFO_VALUE,
    MAX_KEY,
    MAX_LOC_ID,
    MAX_PAYER_REQUEST,
    CalendarFields,
    Charge,
    ChargeFields,
    ChargeRequest,
    ChargeRevisionFields,
    ChargeStatus,
    DebtorFields,
    InfoFields,
    ValueFields,
)
from pixcore.charges.cob_service import (
    ChargeListing,
    ReceivedPix,
    create_charge,
    get_charge_by_location,
    read_charge,
    revise_charge,
    search_charges,
)
from pixcore.charges.locations import location_type_of
from pixcore.clock import format_timestamp
from pixcore.documents import CNPJ_PATTERN, CPF_PATTERN, DocumentKind
from pixcore.identifiers import TXID_PATTERN
from pixcore.keys import KEY_PATTERN
from pixcore.money import AMOUNT_STRING_PATTERN, format_amount_string
from pixcore.queries.standard import ChargeQuery
from pixweb.api.deps import principal_of, services_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import MAX_AMOUNT_TEXT, MAX_DOCUMENT, MAX_SHORT_CODE, Int64, Timestamp, doc, raw, whole
from pixweb.api.listing import QUERIES
from pixweb.api.standard import (
    Revision,
    WindowOut,
    parameters_example,
    read_revision,
    window_fields,
)
from pixweb.body_errors import judge_body
from pixweb.errors import error_responses
from pixweb.problems import PROBLEMS, PROBLEMS_IF_ASKED, problem_responses
from pixweb.refunds.refunds import RefundOut, refund_out
from pixweb.wire import PixResponse

__all__ = [
    "ChargeController",
    "LocIn",
    "PayloadController",
    "charge_change",
    "charge_fields",
    "charge_out",
    "charge_payload",
    "charge_request",
    "debtor_fields",
    "info_fields",
    "loc_id_of",
    "loc_out",
    "pix_out",
    "signed_payload_response",
]

# The request's leaves are taken as decoded (Litestar would coerce "3600" into 3600 and the
# spec wants "10.00" as a string only): charge_fields hands them to pixcore.charges.cob.ChargeRequest
# under the domain's names, which checks each type itself, and each text's maximum (documented
# here).
_STRING, _INTEGER = OpenAPIType.STRING, OpenAPIType.INTEGER


class CalendarioIn(msgspec.Struct):
    expiracao: Annotated[
        Any,
        raw("seconds, at least 1; default 86400", kind=_INTEGER),
        doc(
            f"Seconds the charge is payable after its creation, 1 to {MAX_EXPIRATION}; default 86400.",
            minimum=1,
            maximum=MAX_EXPIRATION,
            example=3600,
        ),
    ] = msgspec.UNSET


class DevedorIn(msgspec.Struct):
    cpf: Annotated[
        Any,
        raw("11 digits", kind=_STRING, max_length=11),
        doc("The debtor's CPF (not with cnpj).", pattern=CPF_PATTERN, example="52998224725"),
    ] = msgspec.UNSET
    cnpj: Annotated[
        Any,
        raw("14 characters", kind=_STRING, max_length=MAX_DOCUMENT),
        doc("The debtor's CNPJ (not with cpf).", pattern=CNPJ_PATTERN),
    ] = msgspec.UNSET
    nome: Annotated[
        Any,
        raw("required with a document", kind=_STRING, max_length=MAX_DEBTOR_NAME),
        doc("The debtor's name; required with a document.", min_length=1, example="João Souza"),
    ] = msgspec.UNSET


class ValorIn(msgspec.Struct, rename="camel"):
    original: Annotated[
        Any,
        raw('a string with 2 decimals, "10.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT),
        doc(
            'Required. The amount in reais as a string with 2 decimals ("10.00"); above zero unless'
            " modalidadeAlteracao is 1.",
            pattern=AMOUNT_STRING_PATTERN,
            example="37.50",
        ),
    ] = msgspec.UNSET
    modalidade_alteracao: Annotated[
        Any,
        raw("0 (fixed) or 1 (payer may change)", kind=_INTEGER),
        doc("0: the payer pays the amount (default); 1: the payer may change it.", enum=[0, 1], example=0),
    ] = msgspec.UNSET


class InfoIn(msgspec.Struct):
    nome: Annotated[
        Any,
        raw("the item's name", kind=_STRING, max_length=MAX_INFO_NAME),
        doc("Required. The item's name.", min_length=1, example="Pedido"),
    ] = msgspec.UNSET
    valor: Annotated[
        Any,
        raw("the item's value", kind=_STRING, max_length=MAX_INFO_VALUE),
        doc("Required. The item's value.", min_length=1, example="117"),
    ] = msgspec.UNSET


_Key = Annotated[
    Any,
    raw("a PIX key of the account", kind=_STRING, max_length=MAX_KEY),
    doc(
        "A PIX key of the account that receives it; on creation the default is its first key.",
        pattern=KEY_PATTERN,
    ),
]
_PayerRequest = Annotated[
    Any,
    raw("shown to the payer", kind=_STRING, max_length=MAX_PAYER_REQUEST),
    doc("A message shown to the payer.", example="Order 117"),
]
_Info = Annotated[
    list[InfoIn] | None,
    doc(
        f"Up to {MAX_INFO_ITEMS} name/value items shown to the payer.",
        max_items=MAX_INFO_ITEMS,
        schema={"items": {"required": ["nome", "valor"]}},
    ),
]


class LocIn(msgspec.Struct):
    """The standard's ``loc`` of a request: an existing location of the account."""

    id: Annotated[
        Any,
        raw("a location id (integer)", kind=_INTEGER, format_="int64"),
        doc(
            "The id of a location of the account (`POST /loc`) of this charge's `tipoCob`, serving no"
            " charge: the charge is put there instead of at a new one.",
            minimum=1,
            maximum=MAX_LOC_ID,
            example=311,
        ),
    ] = None


_Loc = Annotated[
    LocIn | None,
    doc("Optional: an existing location of the account (`loc.id`) instead of a new one.", not_null=True),
]


class CobIn(msgspec.Struct, rename="camel"):
    calendario: Annotated[
        CalendarioIn | None, doc("Required: when it expires (may be `{}`: the default).", not_null=True)
    ] = None
    valor: Annotated[ValorIn | None, doc("Required: how much.", required=["original"], not_null=True)] = None
    devedor: Annotated[DevedorIn | None, doc("Who owes it (optional): a document and a name.")] = None
    chave: _Key = None
    solicitacao_pagador: _PayerRequest = None
    info_adicionais: _Info = None
    loc: _Loc = None


class CobPatchIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """The standard's ``CobRevisada``: each part left out is unchanged; a field it does not have
    is refused, not silently ignored."""

    calendario: Annotated[CalendarioIn | None, doc("A new expiry.")] = None
    valor: Annotated[ValorIn | None, doc("A new amount or modality (each left out is kept).")] = None
    devedor: Annotated[DevedorIn | None, doc("A new debtor: a document and a name.")] = None
    chave: _Key = None
    solicitacao_pagador: _PayerRequest = None
    info_adicionais: _Info = None
    loc: _Loc = None
    status: Annotated[
        Any,
        raw("REMOVIDA_PELO_USUARIO_RECEBEDOR", kind=_STRING, max_length=MAX_SHORT_CODE),
        doc(
            "REMOVIDA_PELO_USUARIO_RECEBEDOR cancels the charge; alone, not with other changes.",
            enum=[ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value],
            example=ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value,
        ),
    ] = None


class CalendarioOut(msgspec.Struct):
    criacao: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    expiracao: Annotated[int, doc("Seconds it is payable after its creation.")]


class LocOut(msgspec.Struct, rename="camel"):
    id: Annotated[Int64, doc("The location's id.")]
    location: Annotated[str, doc("The payload's URL (without scheme), as in the BR Code.")]
    tipo_cob: Annotated[str, doc("`cob` (a `cobv`'s: `cobv`).")]
    criacao: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    txid: Annotated[str, doc("The charge's txid.")]


class DevedorOut(msgspec.Struct, omit_defaults=True):
    nome: Annotated[str, doc("The debtor's name.")]
    cpf: Annotated[str, doc("The debtor's CPF.")] | None = None
    cnpj: Annotated[str, doc("The debtor's CNPJ.")] | None = None


class ValorOut(msgspec.Struct, rename="camel"):
    original: Annotated[str, doc('The amount in reais, 2 decimals ("37.50").')]
    modalidade_alteracao: Annotated[int, doc("0: fixed; 1: the payer may change it.")]


class InfoOut(msgspec.Struct):
    nome: Annotated[str, doc("The item's name.")]
    valor: Annotated[str, doc("The item's value.")]


class CobPixOut(msgspec.Struct, rename="camel", omit_defaults=True):
    """The standard's ``Pix``: a PIX received (the one that paid a charge, or one of ``GET /pix``).
    ``infoPagador`` is never given: a payment reaches this service without a message from its
    payer (docs/decisions/charges.md)."""

    end_to_end_id: Annotated[str, doc("The end-to-end id of the PIX.")]
    valor: Annotated[str, doc("The amount received, in reais, 2 decimals.")]
    horario: Annotated[Timestamp, doc("When it was received (UTC, ISO 8601).")]
    devolucoes: Annotated[list[RefundOut], doc("Its refunds to the payer, oldest first.")]
    txid: Annotated[str | None, doc("The txid of the charge it paid, if any.")] = None
    chave: Annotated[str | None, doc("The PIX key it was sent to.")] = None


class CobOut(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    calendario: CalendarioOut
    txid: Annotated[str, doc("The charge's id, the client's.")]
    revisao: Annotated[int, doc("Its revision: 0 when created, one more per change.")]
    loc: Annotated[
        LocOut | None, doc("Its location; left out when it has none (`DELETE /loc/{id}/txid`).")
    ] = None
    location: Annotated[str | None, doc("The BR Code; left out when the charge has no location.")] = None
    status: Annotated[
        str,
        doc(
            "ATIVA (payable), CONCLUIDA (paid), REMOVIDA_PELO_USUARIO_RECEBEDOR (cancelled) or"
            " REMOVIDA_PELO_PSP (expired)."
        ),
    ]
    valor: ValorOut
    chave: Annotated[str, doc("The PIX key that receives it.")]
    pix_copia_e_cola: Annotated[
        str | None, doc("The BR Code (PIX copy-and-paste) the payer pays; left out without a location.")
    ] = None
    devedor: DevedorOut | None = None
    solicitacao_pagador: str | None = None
    info_adicionais: list[InfoOut] | None = None
    pix: list[CobPixOut] | None = None
    """Only on a CONCLUIDA charge: the PIX that paid it, with its refunds."""


def pix_out(paid: ReceivedPix) -> CobPixOut:
    return CobPixOut(
        end_to_end_id=paid.end_to_end_id,
        valor=format_amount_string(paid.amount),
        horario=format_timestamp(paid.received_at),
        devolucoes=[refund_out(r) for r in paid.refunds],
        txid=paid.tx_id,
        chave=paid.pix_key,
    )


def loc_out(charge: Charge) -> LocOut | None:
    """The charge's ``loc``: None when it has no location. ``location`` is the BR Code, as the
    charge's own ``location``."""
    if charge.loc_id is None or not charge.located:
        return None
    return LocOut(
        id=charge.loc_id,
        location=charge.br_code,
        tipo_cob=location_type_of(charge.kind).value,
        criacao=format_timestamp(charge.loc_created_at or charge.created_at),
        txid=charge.txid,
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
        loc=loc_out(charge),
        location=charge.br_code if charge.located else None,
        status=status.value,
        valor=ValorOut(original=format_amount_string(charge.amount), modalidade_alteracao=charge.modality),
        chave=charge.pix_key,
        pix_copia_e_cola=charge.br_code if charge.located else None,
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


def debtor_fields(debtor: DevedorIn | None) -> DebtorFields | None:
    if debtor is None:
        return None
    return DebtorFields(cpf=_value(debtor.cpf), cnpj=_value(debtor.cnpj), name=_value(debtor.nome))


def info_fields(items: list[InfoIn] | None) -> tuple[InfoFields, ...] | None:
    if items is None:
        return None
    return tuple(InfoFields(name=_value(i.nome), value=_value(i.valor)) for i in items)


def _calendar_fields(calendar: CalendarioIn | None) -> CalendarFields | None:
    return None if calendar is None else CalendarFields(expiration=_given(calendar.expiracao))


def charge_fields(body: CobIn) -> ChargeFields:
    """The body under the domain's names, each leaf as decoded (``ChargeRequest.parse`` judges it)."""
    value = body.valor
    return ChargeFields(
        calendar=_calendar_fields(body.calendario),
        value=None
        if value is None
        else ValueFields(original=_value(value.original), modality=_given(value.modalidade_alteracao)),
        debtor=debtor_fields(body.devedor),
        key=body.chave,
        payer_request=body.solicitacao_pagador,
        info=info_fields(body.info_adicionais),
        loc_id=loc_id_of(body.loc),
    )


def loc_id_of(loc: LocIn | None) -> Any:
    """``loc.id`` as decoded (None: no ``loc``); ``{}`` or ``"id": null`` names no location and is
    refused by the rules."""
    if loc is None:
        return None
    return "" if loc.id is None else loc.id


def revision_fields(body: CobPatchIn) -> ChargeRevisionFields:
    """A ``PATCH`` body under the domain's names (a part left out or ``null``: unchanged; inside
    ``valor``, a leaf left out keeps the charge's)."""
    value = body.valor
    return ChargeRevisionFields(
        calendar=_calendar_fields(body.calendario),
        value=None
        if value is None
        else ValueFields(original=_given(value.original), modality=_given(value.modalidade_alteracao)),
        debtor=debtor_fields(body.devedor),
        key=body.chave,
        payer_request=body.solicitacao_pagador,
        info=info_fields(body.info_adicionais),
        status=body.status,
        loc_id=loc_id_of(body.loc),
    )


class CobQueryOut(WindowOut, rename="camel", omit_defaults=True):
    """The standard's ``ParametrosConsultaCob``: the query as the service read it (``cpf`` or
    ``cnpj``: the debtor's)."""

    location_presente: Annotated[bool | None, doc("The location filter asked for.")] = None
    status: Annotated[str | None, doc("The status asked for.")] = None


class CobsOut(msgspec.Struct):
    """The standard's ``CobsConsultadas``: a page of the account's charges."""

    parametros: CobQueryOut
    cobs: Annotated[list[CobOut], doc("The charges of the page, oldest first.")]


def charges_out(query: ChargeQuery, listing: ChargeListing) -> CobsOut:
    return CobsOut(
        parametros=CobQueryOut(
            **window_fields(query, listing.total),
            location_presente=query.location_present,
            status=None if query.status is None else query.status.value,
        ),
        cobs=[charge_out(c, c.status_at(listing.now)) for c in listing.charges],
    )


def charge_request(body: CobIn) -> ChargeRequest:
    """The ``PUT /cob/{txid}`` body judged by ``ChargeRequest.parse``, every broken rule at once."""
    return ChargeRequest.parse(charge_fields(body))


def charge_change(body: CobPatchIn) -> bool:
    """The ``PATCH /cob/{txid}`` body's rules that need no charge (a status other than
    REMOVIDA_PELO_USUARIO_RECEBEDOR, a cancel with other changes, an empty change): whether it
    cancels. The rest is judged against the charge, by ``revise_charge``."""
    return revision_fields(body).cancels()


judge_body(CobIn, lambda body, _request: charge_request(body))
judge_body(CobPatchIn, lambda body, _request: charge_change(body))


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


TXID_EXAMPLE = "7d3b9f1a2c4e6g8h0j2k4m6n8p0q2r4s"
Txid = Annotated[
    str,
    Parameter(
        description="The charge's id, chosen by the client: 26 to 35 letters and digits.",
        schema_extra={"pattern": whole(TXID_PATTERN)},
        examples=[Example(value=TXID_EXAMPLE)],
    ),
]
_LOCATION = "pix.example.com/qr/v2/8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e"
_BR_CODE = (
    "00020101021226850014br.gov.bcb.pix2563pix.example.com/qr/v2/8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e"
    "520400005303986540537.505802BR5913PIX Account6009SAO PAULO62070503***6304B3C4"
)
_COB_IN = {
    "calendario": {"expiracao": 3600},
    "valor": {"original": "37.50"},
    "devedor": {"cpf": "52998224725", "nome": "João Souza"},
    "solicitacaoPagador": "Order 117",
    "infoAdicionais": [{"nome": "Pedido", "valor": "117"}],
}
_COB_OUT = {
    "calendario": {"criacao": "2026-03-15T14:32:08.125Z", "expiracao": 3600},
    "txid": TXID_EXAMPLE,
    "revisao": 0,
    "loc": {
        "id": 311,
        "location": _LOCATION,
        "tipoCob": "cob",
        "criacao": "2026-03-15T14:32:08.125Z",
        "txid": TXID_EXAMPLE,
    },
    "location": _LOCATION,
    "status": "ATIVA",
    "valor": {"original": "37.50", "modalidadeAlteracao": 0},
    "chave": "maria.silva@example.com",
    "pixCopiaECola": _BR_CODE,
    "devedor": {"nome": "João Souza", "cpf": "52998224725"},
    "solicitacaoPagador": "Order 117",
    "infoAdicionais": [{"nome": "Pedido", "valor": "117"}],
}
_COB_PAID = _COB_OUT | {
    "status": "CONCLUIDA",
    "pix": [
        {
            "endToEndId": "E98765432202603151440xY7wV5uT3sR",
            "txid": TXID_EXAMPLE,
            "valor": "37.50",
            "horario": "2026-03-15T14:40:51.310Z",
            "devolucoes": [],
        }
    ],
}
_COB_CANCELLED = _COB_OUT | {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR", "revisao": 1}


_CREATE_PROBLEMS = {400: "CobOperacaoInvalida", 409: "CobOperacaoInvalida"}
_LIST_PROBLEMS = {400: "CobConsultaInvalida"}
_READ_PROBLEMS = {400: "CobConsultaInvalida"}
_COBS_OUT = {"parametros": parameters_example(status="ATIVA"), "cobs": [_COB_OUT]}


class ChargeController(Controller):
    path = "/cob"
    tags = ["Charges"]  # noqa: RUF012 - Litestar reads class attributes

    @post(
        "/",
        operation_id="createChargeWithServiceTxid",
        responses=answer(201, CobOut, "The charge, ATIVA, under a txid the service chose", _COB_OUT)
        | problem_responses(_CREATE_PROBLEMS, 400, 401, 413),
        status_code=201,
        summary="Create an immediate charge; the service chooses its txid",
        description=(
            "The standard's `POST /cob`: the body of `PUT /cob/{txid}`, and a `txid` of 32 letters"
            " and digits chosen by the service. Errors are the standard's `application/problem+json`"
            " (`CobOperacaoInvalida`, every broken rule a `violacoes` item)."
        ),
        opt={PROBLEMS: _CREATE_PROBLEMS},
    )
    async def create_without_txid(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[CobIn, json_body("The charge.", _COB_IN, required=["calendario", "valor"])],
    ) -> Response[CobOut]:
        services = services_of(request)
        charge = await create_charge(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            txid=None,
            request=ChargeRequest.parse(charge_fields(data)),
            location_prefix=services.settings.location_prefix,
        )
        return PixResponse(charge_out(charge, charge.status), status_code=201)

    @get(
        "/",
        operation_id="listCharges",
        responses=answer(200, CobsOut, "A page of the account's charges, oldest first", _COBS_OUT)
        | problem_responses(_LIST_PROBLEMS, 400, 401),
        summary="List the account's charges",
        description=(
            "The standard's `GET /cob`: the account's charges created between `inicio` and `fim`"
            " (both required, inclusive), oldest first, by debtor (`cpf` or `cnpj`), status (as a"
            " reader sees it now: an expired charge is REMOVIDA_PELO_PSP) and `locationPresente`;"
            " `paginacao.paginaAtual` from 0, `paginacao.itensPorPagina` 1 to 1000 (default 100)."
            " Another account's charges are never listed. Errors are `application/problem+json`"
            " (`CobConsultaInvalida`)."
        ),
        opt={PROBLEMS: _LIST_PROBLEMS},
        dependencies=QUERIES["cob"],
    )
    async def search(
        self, request: Request[Any, Any, Any], filters: NamedDependency[ChargeQuery]
    ) -> Response[CobsOut]:
        services = services_of(request)
        listing = await search_charges(
            services.uow, services.clock, account_id=principal_of(request).account_id, query=filters
        )
        return PixResponse(charges_out(filters, listing))

    @put(
        "/{txid:str}",
        operation_id="createCharge",
        responses=answer(201, CobOut, "The charge, ATIVA", _COB_OUT) | error_responses(400, 401, 409, 413),
        status_code=201,
        summary="Create an immediate charge",
        description=(
            "An immediate charge (the central bank's `cob`) under the client's own `txid`, with its"
            " BR Code for the payer; a webhook tells when it is paid. 400 lists every broken rule"
            " at once; 409: the txid is taken (by any charge of the account)."
        ),
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        txid: Txid,
        data: Annotated[CobIn, json_body("The charge.", _COB_IN, required=["calendario", "valor"])],
    ) -> Response[CobOut]:
        services = services_of(request)
        charge = await create_charge(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            txid=txid,
            request=charge_request(data),
            location_prefix=services.settings.location_prefix,
        )
        return PixResponse(charge_out(charge, charge.status), status_code=201)

    @get(
        "/{txid:str}",
        operation_id="getCharge",
        responses=answer(200, CobOut, "The charge as it is now (a paid one with its PIX)", _COB_PAID)
        | error_responses(400, 401, 404),
        summary="Read a charge",
        description=(
            "The charge with its status now (an expired one reads REMOVIDA_PELO_PSP); a paid one"
            " (CONCLUIDA) carries `pix`: the PIX that paid it, with its refunds. `revisao`: the"
            " charge as that revision left it (the standard's history; 400 for a revision it never"
            " had, `CobConsultaInvalida` when problem+json is asked for)."
        ),
        opt={PROBLEMS_IF_ASKED: _READ_PROBLEMS},
    )
    async def read(
        self, request: Request[Any, Any, Any], txid: Txid, revisao: Revision = None
    ) -> Response[CobOut]:
        revision = read_revision(request, revisao)
        services = services_of(request)
        view = await read_charge(
            services.uow, account_id=principal_of(request).account_id, txid=txid, revision=revision
        )
        return PixResponse(charge_out(view.charge, view.status_at(services.clock.now()), view.pix))

    @patch(
        "/{txid:str}",
        operation_id="reviseCharge",
        responses=answer(200, CobOut, "The charge, revised or cancelled", _COB_CANCELLED)
        | error_responses(400, 401, 404, 413, 422),
        summary="Revise or cancel an active charge",
        description=(
            "The standard's revision: `calendario.expiracao`, `valor` (`original`,"
            " `modalidadeAlteracao`), `devedor`, `chave`, `solicitacaoPagador` and `infoAdicionais`,"
            " each part left out unchanged; `revisao` grows by one and the BR Code and the payload"
            " at the same location show the new values. `status` REMOVIDA_PELO_USUARIO_RECEBEDOR"
            " cancels it, alone. 422: the charge is not ATIVA (paid, cancelled or expired), or it"
            " is a cash-in (only cancelled)."
        ),
    )
    async def revise(
        self,
        request: Request[Any, Any, Any],
        txid: Txid,
        data: Annotated[
            CobPatchIn,
            json_body(
                "The change.",
                {"valor": {"original": "40.00"}, "solicitacaoPagador": "Order 118"},
                closed=True,
            ),
        ],
    ) -> Response[CobOut]:
        services = services_of(request)
        charge = await revise_charge(
            services.uow,
            services.clock,
            account_id=principal_of(request).account_id,
            txid=txid,
            fields=revision_fields(data),
            location_prefix=services.settings.location_prefix,
        )
        return PixResponse(charge_out(charge, charge.status))


class PayloadController(Controller):
    path = "/qr/v2"
    tags = ["Charges"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/{location_id:str}",
        operation_id="getChargePayload",
        responses=answer(
            200,
            str,
            "The payload as a JWS (compact serialization), signed by a key of the JWKS",
            "eyJhbGciOiJSUzI1NiIsImprdSI6Imh0dHBzOi8vcGl4LmV4YW1wbGUuY29tLy53ZWxsLWtub3duL2p3a3MuanNvbiJ9"
            ".eyJ0eGlkIjoiN2QzYjlmMWEyYzRlNmc4aDBqMms0bTZuOHAwcTJyNHMifQ.c2lnbmF0dXJl",
            media_type="application/jose",
        )
        | error_responses(400, 404),
        summary="The signed payload of a charge, for the payer's PSP",
        description=(
            "What the payer's institution reads at the BR Code's location: the charge (txid,"
            " revision, calendar with `apresentacao`, status, amount, key, debtor) as a JWS whose"
            " header's `jku` points at `/.well-known/jwks.json`. No token."
        ),
        security=[{}],  # no bearer token: the payer's PSP reads it
        media_type="application/jose",
    )
    async def read(
        self,
        request: Request[Any, Any, Any],
        location_id: Annotated[
            str,
            Parameter(
                description="The location's id, the last part of the BR Code's URL.",
                examples=[Example(value="8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e")],
            ),
        ],
    ) -> Response[str]:
        services = services_of(request)
        charge = await get_charge_by_location(services.uow, location_id)
        return signed_payload_response(request, charge_payload(charge, services.clock.now()))


def signed_payload_response(request: Request[Any, Any, Any], payload: dict[str, Any]) -> Response[str]:
    """A charge's payload as the payer's PSP reads it (``/qr/v2/{id}``, ``/qr/v2/cobv/{id}``): a JWS
    signed by a key of the JWKS its header's ``jku`` points at, never cached."""
    services = services_of(request)
    jku = f"{services.settings.public_url}/.well-known/jwks.json"
    body = services.tokens.sign(payload, jku=jku)
    return Response(body, media_type="application/jose", headers={"Cache-Control": "no-store"})
