"""Due-date charges: ``PUT/PATCH/GET /cobv/{txid}`` and ``GET /cobv``
(docs/decisions/due-charges.md; the payload location is :mod:`pixweb.charges.cobv_payload`). Errors are the
standard's problem+json (``CobVOperacaoInvalida``, ``CobVNaoEncontrada``,
``CobVConsultaInvalida``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, patch, put
from litestar.di import NamedDependency
from litestar.openapi.spec import OpenAPIType

from pixcore.accounts.rules import Account
from pixcore.charges.cob import Charge, ChargeStatus
from pixcore.charges.cob_service import (
    DUE_KINDS,
    ChargeListing,
    ReceivedPix,
    read_charge,
    search_charges,
)
from pixcore.charges.cobv_requests import DueChargeFields, DueChargeRequest, DueRevisionFields
from pixcore.charges.cobv_service import create_due_charge, revise_due_charge
from pixcore.charges.parts import DUE_REVISION
from pixcore.clock import format_timestamp
from pixcore.documents import DocumentKind, parse_document
from pixcore.errors import AccountNotFound
from pixcore.queries.standard import ChargeQuery
from pixinfra.due_terms import calendar_fields, terms_wire, value_fields
from pixweb.api.deps import principal_of, services_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import MAX_SHORT_CODE, Timestamp, doc, raw
from pixweb.api.listing import QUERIES
from pixweb.api.standard import (
    Revision,
    parameters_example,
    read_revision,
    window_fields,
)
from pixweb.body_errors import judge_body
from pixweb.charges.cob import (
    TXID_EXAMPLE,
    CobPixOut,
    CobQueryOut,
    DevedorIn,
    DevedorOut,
    InfoIn,
    InfoOut,
    LocIn,
    LocOut,
    Txid,
    debtor_fields,
    info_fields,
    loc_id_of,
    loc_out,
    pix_out,
)
from pixweb.charges.cobv_wire import CalendarioVIn, ValorVIn, calendar_change, value_change
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.wire import PixResponse

__all__ = ["DueChargeController", "account_of", "debtor_out", "due_charge_out", "receiver_out"]

_KEY_DOC = "A PIX key of the account that receives it; on creation the default is its first key."


_INFO = Annotated[
    list[InfoIn] | None,
    doc("Up to 50 name/value items.", max_items=50, schema={"items": {"required": ["nome", "valor"]}}),
]


class CobVIn(msgspec.Struct, rename="camel"):
    """The standard's ``CobVSolicitada``."""

    calendario: Annotated[
        CalendarioVIn | None,
        doc(
            "Required: the due date and the days it stays payable after it.",
            required=["dataDeVencimento"],
            not_null=True,
        ),
    ] = None
    valor: Annotated[
        ValorVIn | None,
        doc("Required: the original amount and its adjustments.", required=["original"], not_null=True),
    ] = None
    devedor: Annotated[
        DevedorIn | None,
        doc("Required: who owes it, a cpf or cnpj with nome.", required=["nome"], not_null=True),
    ] = None
    chave: Annotated[Any, raw(_KEY_DOC, kind=OpenAPIType.STRING, max_length=77)] = None
    solicitacao_pagador: Annotated[
        Any, raw("shown to the payer", kind=OpenAPIType.STRING, max_length=140)
    ] = None
    info_adicionais: _INFO = None
    loc: Annotated[
        LocIn | None,
        doc(
            "Optional: an existing `cobv` location of the account (`loc.id`) instead of a new one.",
            not_null=True,
        ),
    ] = None


class CobVPatchIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """The standard's ``CobVRevisada``: each part left out is unchanged; inside ``calendario`` and
    ``valor``, each member left out (or, for ``multa``, ``juros``, ``abatimento`` and ``desconto``,
    null) keeps the charge's; a field it does not have is refused."""

    calendario: Annotated[CalendarioVIn | None, doc("A new due date, or days payable after it.")] = None
    valor: Annotated[ValorVIn | None, doc("New members of the amount (each left out is kept).")] = None
    devedor: Annotated[DevedorIn | None, doc("A new debtor: a cpf or cnpj with nome.")] = None
    chave: Annotated[Any, raw(_KEY_DOC, kind=OpenAPIType.STRING, max_length=77)] = None
    solicitacao_pagador: Annotated[
        Any, raw("shown to the payer", kind=OpenAPIType.STRING, max_length=140)
    ] = None
    info_adicionais: _INFO = None
    loc: Annotated[
        LocIn | None, doc("Move the charge to another `cobv` location of the account.", not_null=True)
    ] = None
    status: Annotated[
        Any,
        raw("REMOVIDA_PELO_USUARIO_RECEBEDOR", kind=OpenAPIType.STRING, max_length=MAX_SHORT_CODE),
        doc(
            "REMOVIDA_PELO_USUARIO_RECEBEDOR cancels the charge; alone, not with other changes.",
            enum=[ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value],
        ),
    ] = None


def due_fields(body: CobVIn) -> DueChargeFields:
    return DueChargeFields(
        calendar=calendar_fields(body.calendario),
        value=value_fields(body.valor),
        debtor=debtor_fields(body.devedor),
        key=body.chave,
        payer_request=body.solicitacao_pagador,
        info=info_fields(body.info_adicionais),
        loc_id=loc_id_of(body.loc),
    )


def due_revision_fields(body: CobVPatchIn) -> DueRevisionFields:
    return DueRevisionFields(
        calendar=calendar_change(body.calendario),
        value=value_change(body.valor),
        debtor=debtor_fields(body.devedor),
        key=body.chave,
        payer_request=body.solicitacao_pagador,
        info=info_fields(body.info_adicionais),
        status=body.status,
        loc_id=loc_id_of(body.loc),
    )


def _now(request: Request[Any, Any, Any]) -> datetime:
    return services_of(request).clock.now()


judge_body(CobVIn, lambda body, request: DueChargeRequest.parse(due_fields(body), now=_now(request)))
judge_body(CobVPatchIn, lambda body, _request: due_revision_fields(body).cancels(DUE_REVISION))


class CalendarioVOut(msgspec.Struct, rename="camel"):
    criacao: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    data_de_vencimento: Annotated[str, doc("The due date (YYYY-MM-DD).")]
    validade_apos_vencimento: Annotated[int, doc("Calendar days it stays payable after the due date.")]


class RateOut(msgspec.Struct, rename="camel"):
    modalidade: int
    valor_perc: str


class DescontoDataOut(msgspec.Struct, rename="camel"):
    data: str
    valor_perc: str


class DescontoOut(msgspec.Struct, rename="camel", omit_defaults=True):
    modalidade: int
    valor_perc: str | None = None
    desconto_data_fixa: list[DescontoDataOut] | None = None


class ValorVOut(msgspec.Struct, omit_defaults=True):
    original: Annotated[str, doc('The amount on the due date, in reais ("123.45").')]
    multa: RateOut | None = None
    juros: RateOut | None = None
    abatimento: RateOut | None = None
    desconto: DescontoOut | None = None


class RecebedorOut(msgspec.Struct, omit_defaults=True):
    """The account that receives it (its name, document and city; the service keeps no address)."""

    nome: str
    cidade: str
    cpf: str | None = None
    cnpj: str | None = None


class CobVOut(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """The standard's ``CobVCompleta``."""

    calendario: CalendarioVOut
    txid: Annotated[str, doc("The charge's id, the client's.")]
    revisao: Annotated[int, doc("Its revision: 0 when created, one more per change.")]
    loc: Annotated[
        LocOut | None, doc("Its location; left out when it has none (`DELETE /loc/{id}/txid`).")
    ] = None
    location: Annotated[
        str | None,
        doc("The BR Code, as ``location`` of a ``cob``; left out without a location."),
    ] = None
    status: Annotated[
        str,
        doc(
            "ATIVA (payable), CONCLUIDA (paid), REMOVIDA_PELO_USUARIO_RECEBEDOR (cancelled) or"
            " REMOVIDA_PELO_PSP (its last payable day is over)."
        ),
    ]
    devedor: DevedorOut
    recebedor: RecebedorOut
    valor: ValorVOut
    chave: Annotated[str, doc("The PIX key that receives it.")]
    pix_copia_e_cola: Annotated[
        str | None,
        doc("The BR Code the payer pays (no amount: the payload says it); left out without a location."),
    ] = None
    solicitacao_pagador: str | None = None
    info_adicionais: list[InfoOut] | None = None
    pix: list[CobPixOut] | None = None
    """Only on a CONCLUIDA charge: the PIX that paid it, with its refunds."""


def debtor_out(charge: Charge) -> DevedorOut:
    debtor = charge.debtor
    if debtor is None:  # the database's charges_cobv_check forbids it
        raise RuntimeError("a cobv without a debtor")
    is_cpf = debtor.kind is DocumentKind.CPF
    return DevedorOut(
        nome=debtor.name, cpf=debtor.document if is_cpf else None, cnpj=None if is_cpf else debtor.document
    )


def receiver_out(account: Account) -> RecebedorOut:
    is_cpf = parse_document(account.document).kind is DocumentKind.CPF
    return RecebedorOut(
        nome=account.name,
        cidade=account.city,
        cpf=account.document if is_cpf else None,
        cnpj=None if is_cpf else account.document,
    )


def due_charge_out(
    charge: Charge, status: ChargeStatus, account: Account, pix: tuple[ReceivedPix, ...] = ()
) -> CobVOut:
    if charge.due is None:
        raise RuntimeError("not a cobv")
    created = format_timestamp(charge.created_at)
    calendar, value = terms_wire(charge.due)
    return CobVOut(
        calendario=CalendarioVOut(
            criacao=created,
            data_de_vencimento=calendar["dataDeVencimento"],
            validade_apos_vencimento=calendar["validadeAposVencimento"],
        ),
        txid=charge.txid,
        revisao=charge.revision,
        loc=loc_out(charge),
        location=charge.br_code if charge.located else None,
        status=status.value,
        devedor=debtor_out(charge),
        recebedor=receiver_out(account),
        valor=msgspec.convert(value, ValorVOut, from_attributes=False),
        chave=charge.pix_key,
        pix_copia_e_cola=charge.br_code if charge.located else None,
        solicitacao_pagador=charge.payer_request,
        info_adicionais=[InfoOut(nome=n, valor=v) for n, v in charge.info] or None,
        pix=[pix_out(p) for p in pix] or None,
    )


class CobsVOut(msgspec.Struct):
    """The standard's ``CobsVConsultadas``: a page of the account's due-date charges."""

    parametros: CobQueryOut
    cobs: Annotated[list[CobVOut], doc("The due-date charges of the page, oldest first.")]


def due_charges_out(query: ChargeQuery, listing: ChargeListing, account: Account) -> CobsVOut:
    return CobsVOut(
        parametros=CobQueryOut(
            **window_fields(query, listing.total),
            location_presente=query.location_present,
            status=None if query.status is None else query.status.value,
        ),
        cobs=[due_charge_out(c, c.status_at(listing.now), account) for c in listing.charges],
    )


async def account_of(request: Request[Any, Any, Any], account_id: int) -> Account:
    async with services_of(request).uow() as tx:
        account = await tx.accounts.get(account_id)
    if account is None:
        raise AccountNotFound()
    return account


_CREATE_PROBLEMS = {400: "CobVOperacaoInvalida", 409: "CobVOperacaoInvalida", 422: "CobVOperacaoInvalida"}
_READ_PROBLEMS = {400: "CobVConsultaInvalida", 404: "CobVNaoEncontrada"}
_PATCH_PROBLEMS = {400: "CobVOperacaoInvalida", 404: "CobVNaoEncontrada", 422: "CobVOperacaoInvalida"}
_LIST_PROBLEMS = {400: "CobVConsultaInvalida"}

_COBV_IN = {
    "calendario": {"dataDeVencimento": "2026-12-10", "validadeAposVencimento": 30},
    "devedor": {"cpf": "52998224725", "nome": "João Souza"},
    "valor": {
        "original": "123.45",
        "multa": {"modalidade": 2, "valorPerc": "2.00"},
        "juros": {"modalidade": 2, "valorPerc": "1.00"},
        "desconto": {"modalidade": 1, "descontoDataFixa": [{"data": "2026-12-01", "valorPerc": "5.00"}]},
    },
    "solicitacaoPagador": "Invoice 117",
}
_LOCATION = "pix.example.com/qr/v2/cobv/8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e"
_COBV_OUT = {
    "calendario": {
        "criacao": "2026-11-24T14:32:08.125Z",
        "dataDeVencimento": "2026-12-10",
        "validadeAposVencimento": 30,
    },
    "txid": TXID_EXAMPLE,
    "revisao": 0,
    "loc": {
        "id": 312,
        "location": _LOCATION,
        "tipoCob": "cobv",
        "criacao": "2026-11-24T14:32:08.125Z",
        "txid": TXID_EXAMPLE,
    },
    "location": _LOCATION,
    "status": "ATIVA",
    "devedor": {"nome": "João Souza", "cpf": "52998224725"},
    "recebedor": {"nome": "Maria Silva", "cidade": "SAO PAULO", "cpf": "11144477735"},
    "valor": _COBV_IN["valor"],
    "chave": "maria.silva@example.com",
    "pixCopiaECola": "00020101021226...6304ABCD",
    "solicitacaoPagador": "Invoice 117",
}


class DueChargeController(Controller):
    path = "/cobv"
    tags = ["Due-date charges"]  # noqa: RUF012 - Litestar reads class attributes

    @put(
        "/{txid:str}",
        operation_id="createDueCharge",
        responses=answer(201, CobVOut, "The due-date charge, ATIVA", _COBV_OUT)
        | problem_responses(_CREATE_PROBLEMS, 400, 401, 409, 413, 422),
        status_code=201,
        summary="Create a due-date charge",
        description=(
            "The standard's `PUT /cobv/{txid}`: a charge with a due date (`calendario.dataDeVencimento`,"
            " not before today, Brasília's day; payable `validadeAposVencimento` days after it), a"
            " debtor (required) and an amount whose fine, interest, rebate and discounts make the"
            " amount due on each day. 409: the txid is taken by any charge of the account. Errors"
            " are `application/problem+json` (`CobVOperacaoInvalida`, every broken rule a"
            " `violacoes` item)."
        ),
        opt={PROBLEMS: _CREATE_PROBLEMS},
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        txid: Txid,
        data: Annotated[
            CobVIn, json_body("The due-date charge.", _COBV_IN, required=["calendario", "valor", "devedor"])
        ],
    ) -> Response[CobVOut]:
        services = services_of(request)
        account_id = principal_of(request).account_id
        charge = await create_due_charge(
            services.uow,
            services.clock,
            account_id=account_id,
            txid=txid,
            request=DueChargeRequest.parse(due_fields(data), now=services.clock.now()),
            location_prefix=services.settings.location_prefix,
        )
        account = await account_of(request, account_id)
        return PixResponse(due_charge_out(charge, charge.status, account), status_code=201)

    @get(
        "/",
        operation_id="listDueCharges",
        responses=answer(
            200,
            CobsVOut,
            "A page of the account's due-date charges, oldest first",
            {"parametros": parameters_example(status="ATIVA"), "cobs": [_COBV_OUT]},
        )
        | problem_responses(_LIST_PROBLEMS, 400, 401),
        summary="List the account's due-date charges",
        description=(
            "The standard's `GET /cobv`, with the filters of `GET /cob`: created between `inicio` and"
            " `fim` (both required), by debtor (`cpf` or `cnpj`), status now and `locationPresente`,"
            " paged by `paginacao.paginaAtual` and `paginacao.itensPorPagina`. Errors are"
            " `application/problem+json` (`CobVConsultaInvalida`)."
        ),
        opt={PROBLEMS: _LIST_PROBLEMS},
        dependencies=QUERIES["cobv"],
    )
    async def search(
        self, request: Request[Any, Any, Any], filters: NamedDependency[ChargeQuery]
    ) -> Response[CobsVOut]:
        services = services_of(request)
        account_id = principal_of(request).account_id
        listing = await search_charges(
            services.uow, services.clock, account_id=account_id, query=filters, due=True
        )
        return PixResponse(due_charges_out(filters, listing, await account_of(request, account_id)))

    @get(
        "/{txid:str}",
        operation_id="getDueCharge",
        responses=answer(200, CobVOut, "The due-date charge as it is now", _COBV_OUT)
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        summary="Read a due-date charge",
        description=(
            "The due-date charge with its status now (REMOVIDA_PELO_PSP once its last payable day is"
            " over); a paid one carries `pix`. A `cob`'s txid is not found here (404"
            " `CobVNaoEncontrada`), nor another account's. `revisao`: the charge as that revision"
            " left it (a revision it never had is a 400 `CobVConsultaInvalida`)."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def read(
        self, request: Request[Any, Any, Any], txid: Txid, revisao: Revision = None
    ) -> Response[CobVOut]:
        revision = read_revision(request, revisao)
        services = services_of(request)
        account_id = principal_of(request).account_id
        view = await read_charge(
            services.uow, account_id=account_id, txid=txid, kinds=DUE_KINDS, revision=revision
        )
        account = await account_of(request, account_id)
        return PixResponse(
            due_charge_out(view.charge, view.status_at(services.clock.now()), account, view.pix)
        )

    @patch(
        "/{txid:str}",
        operation_id="reviseDueCharge",
        responses=answer(
            200, CobVOut, "The due-date charge, revised or cancelled", _COBV_OUT | {"revisao": 1}
        )
        | problem_responses(_PATCH_PROBLEMS, 400, 401, 404, 413, 422),
        summary="Revise or cancel a due-date charge",
        description=(
            "The standard's `PATCH /cobv/{txid}` (`CobVRevisada`): each part left out is unchanged,"
            " and inside `calendario` and `valor` each member left out keeps the charge's; the terms"
            " are judged as they would be after the change. `revisao` grows by one. `status`"
            " REMOVIDA_PELO_USUARIO_RECEBEDOR cancels it, alone. 422: it is not ATIVA."
        ),
        opt={PROBLEMS: _PATCH_PROBLEMS},
    )
    async def revise(
        self,
        request: Request[Any, Any, Any],
        txid: Txid,
        data: Annotated[
            CobVPatchIn,
            json_body("The change.", {"valor": {"original": "150.00"}}, closed=True),
        ],
    ) -> Response[CobVOut]:
        services = services_of(request)
        account_id = principal_of(request).account_id
        charge = await revise_due_charge(
            services.uow,
            services.clock,
            account_id=account_id,
            txid=txid,
            fields=due_revision_fields(data),
            location_prefix=services.settings.location_prefix,
        )
        account = await account_of(request, account_id)
        return PixResponse(due_charge_out(charge, charge.status, account))
