"""``PUT/GET/PATCH /cobv/{txid}`` and ``GET /cobv``: due-date charges (docs/decisions/due-charges.md).
Errors are the standard's problem+json (``CobVOperacaoInvalida``, ``CobVNaoEncontrada``,
``CobVConsultaInvalida``)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from litestar import Controller, Request, Response, patch, put

from pixcore.accounts.accounts_service import get_account
from pixcore.charges.cob_service import DUE_KINDS, ChargeListing, ChargeView
from pixcore.charges.cobv_requests import DueChargeRequest
from pixcore.charges.cobv_service import create_due_charge, put_due_charge, revise_due_charge
from pixcore.charges.parts import DUE_REVISION
from pixcore.clock import Clock
from pixcore.queries.standard import ChargeQuery
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of, provided
from pixweb.api.docs import answer, json_body
from pixweb.api.standard import parameters_example
from pixweb.body_errors import judge_body
from pixweb.charges.controllers._reads import charge_list, charge_read
from pixweb.charges.mapping import due_charge_out, due_charges_out, due_fields, due_revision_fields
from pixweb.charges.schemas import TXID_EXAMPLE, CobsVOut, CobVIn, CobVOut, CobVPatchIn, Txid
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.standard import on_standard_face
from pixweb.standard.bodies import require
from pixweb.wire import PixResponse


def _now(request: Request[Any, Any, Any]) -> datetime:
    clock: Clock = provided(request, "clock")
    return clock.now()


judge_body(CobVIn, lambda body, request: DueChargeRequest.parse(due_fields(body), now=_now(request)))
judge_body(CobVPatchIn, lambda body, _request: due_revision_fields(body).cancels(DUE_REVISION))


async def _page(
    uow: UnitOfWorkFactory, account_id: int, query: ChargeQuery, listing: ChargeListing, standard: bool
) -> CobsVOut:
    return due_charges_out(query, listing, await get_account(uow, account_id), standard=standard)


async def _shown(
    uow: UnitOfWorkFactory, account_id: int, view: ChargeView, now: datetime, standard: bool
) -> CobVOut:
    account = await get_account(uow, account_id)
    return due_charge_out(view.charge, view.status_at(now), account, view.pix, standard=standard)


_CREATE_PROBLEMS = {400: "CobVOperacaoInvalida", 409: "CobVOperacaoInvalida", 422: "CobVOperacaoInvalida"}
_READ_PROBLEMS = {400: "CobVConsultaInvalida", 404: "CobVNaoEncontrada"}
_PATCH_PROBLEMS = {400: "CobVOperacaoInvalida", 404: "CobVNaoEncontrada", 422: "CobVOperacaoInvalida"}

_COBV_IN = {
    "calendario": {"dataDeVencimento": "2026-12-10", "validadeAposVencimento": 30},
    "devedor": {
        "cpf": "52998224725",
        "nome": "João Souza",
        "email": "joao.souza@example.com",
        "logradouro": "Rua das Flores, 12",
        "cidade": "Recife",
        "uf": "PE",
        "cep": "50010000",
    },
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
    "devedor": _COBV_IN["devedor"],
    "recebedor": {
        "nome": "Maria Silva",
        "logradouro": "Avenida Paulista, 1000",
        "cidade": "SAO PAULO",
        "uf": "SP",
        "cep": "01310100",
        "cpf": "11144477735",
    },
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
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobVOut]:
        account_id, standard = principal_of(request).account_id, on_standard_face(request.scope)
        if standard:
            require(data, "chave")
        # Ours: a txid in use is a 409; the standard's PUT revises the cobv under it.
        charge = await (put_due_charge if standard else create_due_charge)(
            uow,
            clock,
            account_id=account_id,
            txid=txid,
            request=DueChargeRequest.parse(due_fields(data), now=clock.now()),
            location_prefix=settings.location_prefix,
        )
        account = await get_account(uow, account_id)
        return PixResponse(due_charge_out(charge, charge.status, account, standard=standard), status_code=201)

    search = charge_list(
        due=True,
        page=_page,
        shape=CobsVOut,
        answered="A page of the account's due-date charges, oldest first",
        example={"parametros": parameters_example(status="ATIVA"), "cobs": [_COBV_OUT]},
        error_type="CobVConsultaInvalida",
        summary="List the account's due-date charges",
        description=(
            "The standard's `GET /cobv`, with the filters of `GET /cob`: created between `inicio` and"
            " `fim` (both required), by debtor (`cpf` or `cnpj`), status now and `locationPresente`,"
            " paged by `paginacao.paginaAtual` and `paginacao.itensPorPagina`. Errors are"
            " `application/problem+json` (`CobVConsultaInvalida`)."
        ),
        operation_id="listDueCharges",
    )

    read = charge_read(
        kinds=DUE_KINDS,
        show=_shown,
        responses=answer(200, CobVOut, "The due-date charge as it is now", _COBV_OUT)
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        opt={PROBLEMS: _READ_PROBLEMS},
        summary="Read a due-date charge",
        description=(
            "The due-date charge with its status now (REMOVIDA_PELO_PSP once its last payable day is"
            " over); a paid one carries `pix`. A `cob`'s txid is not found here (404"
            " `CobVNaoEncontrada`), nor another account's. `revisao`: the charge as that revision"
            " left it (a revision it never had is a 400 `CobVConsultaInvalida`)."
        ),
        operation_id="getDueCharge",
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
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[CobVOut]:
        account_id, standard = principal_of(request).account_id, on_standard_face(request.scope)
        charge = await revise_due_charge(
            uow,
            clock,
            account_id=account_id,
            txid=txid,
            fields=due_revision_fields(data),
            location_prefix=settings.location_prefix,
            found_first=standard,
        )
        if isinstance(charge, ChargeView):  # the standard's `{}`: the charge as it is
            return PixResponse(await _shown(uow, account_id, charge, clock.now(), standard=True))
        account = await get_account(uow, account_id)
        return PixResponse(due_charge_out(charge, charge.status, account, standard=standard))
