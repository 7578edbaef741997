"""``POST/GET /cob``, ``PUT/GET/PATCH /cob/{txid}``: immediate charges."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from litestar import Controller, Request, Response, patch, post, put

from pixcore.charges.cob import ChargeRequest
from pixcore.charges.cob_service import (
    IMMEDIATE_KINDS,
    ChargeListing,
    ChargeView,
    create_charge,
    put_charge,
    revise_charge,
)
from pixcore.clock import Clock
from pixcore.queries.standard import ChargeQuery
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.standard import parameters_example
from pixweb.body_errors import judge_body
from pixweb.charges.controllers._reads import charge_list, charge_read
from pixweb.charges.mapping import (
    charge_change,
    charge_fields,
    charge_out,
    charge_request,
    charges_out,
    revision_fields,
)
from pixweb.charges.schemas import TXID_EXAMPLE, CobIn, CobOut, CobPatchIn, CobsOut, Txid
from pixweb.errors import error_responses
from pixweb.problems import PROBLEMS, PROBLEMS_IF_ASKED, problem_responses
from pixweb.standard import on_standard_face
from pixweb.standard.bodies import require
from pixweb.wire import PixResponse

judge_body(CobIn, lambda body, _request: charge_request(body))
judge_body(CobPatchIn, lambda body, _request: charge_change(body))

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
            "componentesValor": {"original": {"valor": "37.50"}},
            "horario": "2026-03-15T14:40:51.310Z",
            "devolucoes": [],
        }
    ],
}
_COB_CANCELLED = _COB_OUT | {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR", "revisao": 1}


_CREATE_PROBLEMS = {400: "CobOperacaoInvalida", 409: "CobOperacaoInvalida"}
_READ_PROBLEMS = {400: "CobConsultaInvalida"}
_COBS_OUT = {"parametros": parameters_example(status="ATIVA"), "cobs": [_COB_OUT]}


async def _page(
    _uow: UnitOfWorkFactory, _account_id: int, query: ChargeQuery, listing: ChargeListing, standard: bool
) -> CobsOut:
    return charges_out(query, listing, standard=standard)


async def _shown(
    _uow: UnitOfWorkFactory, _account_id: int, view: ChargeView, now: datetime, standard: bool
) -> CobOut:
    return charge_out(view.charge, view.status_at(now), view.pix, standard=standard)


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
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobOut]:
        if on_standard_face(request.scope):
            require(data, "chave")
        charge = await create_charge(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            txid=None,
            request=ChargeRequest.parse(charge_fields(data)),
            location_prefix=settings.location_prefix,
        )
        return PixResponse(
            charge_out(charge, charge.status, standard=on_standard_face(request.scope)), status_code=201
        )

    search = charge_list(
        due=False,
        page=_page,
        shape=CobsOut,
        answered="A page of the account's charges, oldest first",
        example=_COBS_OUT,
        error_type="CobConsultaInvalida",
        summary="List the account's charges",
        description=(
            "The standard's `GET /cob`: the account's charges created between `inicio` and `fim`"
            " (both required, inclusive), oldest first, by debtor (`cpf` or `cnpj`), status (as a"
            " reader sees it now: an expired charge is REMOVIDA_PELO_PSP) and `locationPresente`;"
            " `paginacao.paginaAtual` from 0, `paginacao.itensPorPagina` 1 to 1000 (default 100)."
            " Another account's charges are never listed. Errors are `application/problem+json`"
            " (`CobConsultaInvalida`)."
        ),
        operation_id="listCharges",
    )

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
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobOut]:
        standard = on_standard_face(request.scope)
        if standard:
            require(data, "chave")
        # Ours: a txid in use is a 409; the standard's PUT revises the charge under it.
        charge = await (put_charge if standard else create_charge)(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            txid=txid,
            request=charge_request(data),
            location_prefix=settings.location_prefix,
        )
        return PixResponse(
            charge_out(charge, charge.status, standard=on_standard_face(request.scope)), status_code=201
        )

    read = charge_read(
        kinds=IMMEDIATE_KINDS,
        show=_shown,
        responses=answer(200, CobOut, "The charge as it is now (a paid one with its PIX)", _COB_PAID)
        | error_responses(400, 401, 404),
        opt={PROBLEMS_IF_ASKED: _READ_PROBLEMS},
        summary="Read a charge",
        description=(
            "The charge with its status now (an expired one reads REMOVIDA_PELO_PSP); a paid one"
            " (CONCLUIDA) carries `pix`: the PIX that paid it, with its refunds. `revisao`: the"
            " charge as that revision left it (the standard's history; 400 for a revision it never"
            " had, `CobConsultaInvalida` when problem+json is asked for)."
        ),
        operation_id="getCharge",
    )

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
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobOut]:
        account_id, standard = principal_of(request).account_id, on_standard_face(request.scope)
        charge = await revise_charge(
            uow,
            clock,
            account_id=account_id,
            txid=txid,
            fields=revision_fields(data),
            location_prefix=settings.location_prefix,
            found_first=standard,
        )
        if isinstance(charge, ChargeView):  # the standard's `{}`: the charge as it is
            return PixResponse(await _shown(uow, account_id, charge, clock.now(), standard=True))
        return PixResponse(charge_out(charge, charge.status, standard=standard))
