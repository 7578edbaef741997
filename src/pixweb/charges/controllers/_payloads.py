"""The payloads the payer's PSP reads at a BR Code's location, each a JWS: ``GET /qr/v2/{id}`` (a
``cob``'s) and ``GET /qr/v2/cobv/{id}`` (a ``cobv``'s, the standard's ``/cobv/{pixUrlAccessToken}``,
with ``DPP`` and ``codMun``; docs/decisions/due-charges.md)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Parameter

from pixcore.accounts.accounts_service import get_account
from pixcore.charges.cob_service import DUE_KINDS, get_charge_by_location
from pixcore.clock import Clock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.api.docs import answer
from pixweb.api.standard import QueryParameter
from pixweb.charges.mapping import charge_payload, due_charge_payload
from pixweb.problems import problem_responses
from pixweb.security.tokens import JwtIssuer
from pixweb.standard.face import FACE, STANDARD

_JOSE = "application/jose"
AccessToken = Annotated[
    str,
    Parameter(
        description=(
            "The last part of the BR Code's URL (the standard's `pixUrlAccessToken`), which names"
            " the payload; not `loc.id`."
        ),
        examples=[Example(value="8f3a2c7e9b1d4f6a0c5e7b9d1f3a5c7e")],
    ),
]


def payload_route(
    operation_id: str, answered: str, example: str, errors: dict[int, ResponseSpec], **documented: Any
) -> get:
    """``GET /{pix_url_access_token}`` of a payload location: a JWS (``answered``, ``example``) or ``errors``;
    no bearer token, since the payer's PSP reads it. ``documented``: the summary, the description,
    the handler's ``opt``."""
    return get(
        "/{pix_url_access_token:str}",
        operation_id=operation_id,
        responses=answer(200, str, answered, example, media_type=_JOSE) | errors,
        security=[{}],
        media_type=_JOSE,
        **documented,
    )


class PayloadController(Controller):
    """The payloads are the standard's only (our specification has none): its face's answers."""

    path = "/qr/v2"
    opt = {FACE: STANDARD}  # noqa: RUF012 - Litestar reads class attributes
    tags = ["Charges"]  # noqa: RUF012 - Litestar reads class attributes

    @payload_route(
        "getChargePayload",
        "The payload as a JWS (compact serialization), signed by a key of the JWKS",
        "eyJhbGciOiJSUzI1NiIsImprdSI6Imh0dHBzOi8vcGl4LmV4YW1wbGUuY29tLy53ZWxsLWtub3duL2p3a3MuanNvbiJ9"
        ".eyJ0eGlkIjoiN2QzYjlmMWEyYzRlNmc4aDBqMms0bTZuOHAwcTJyNHMifQ.c2lnbmF0dXJl",
        problem_responses({400: "CobPayloadOperacaoInvalida", 404: "CobPayloadNaoEncontrado"}, 400, 404),
        summary="The signed payload of a charge, for the payer's PSP",
        description=(
            "What the payer's institution reads at the BR Code's location: the charge (txid,"
            " revision, calendar with `apresentacao`, status, amount, key, debtor) as a JWS whose"
            " header's `jku` points at `/.well-known/jwks.json`. No token."
        ),
    )
    async def read(
        self,
        pix_url_access_token: AccessToken,
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        tokens: Injected[JwtIssuer],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[str]:
        charge = await get_charge_by_location(uow, pix_url_access_token)
        return signed_payload_response(settings, tokens, charge_payload(charge, clock.now()))


def signed_payload_response(settings: Settings, tokens: JwtIssuer, payload: dict[str, Any]) -> Response[str]:
    """A charge's payload as the payer's PSP reads it (``/qr/v2/{id}``, ``/qr/v2/cobv/{id}``): a JWS
    signed by a key of the JWKS its header's ``jku`` points at, never cached."""
    jku = f"{settings.public_url}/.well-known/jwks.json"
    body = tokens.sign(payload, jku=jku)
    return Response(body, media_type=_JOSE, headers={"Cache-Control": "no-store"})


_PAYLOAD_PROBLEMS = {400: "CobPayloadOperacaoInvalida", 404: "CobPayloadNaoEncontrado"}


class DuePayloadController(Controller):
    path = "/qr/v2/cobv"
    opt = {FACE: STANDARD}  # noqa: RUF012 - Litestar reads class attributes
    tags = ["Due-date charges"]  # noqa: RUF012 - Litestar reads class attributes

    @payload_route(
        "getDueChargePayload",
        "The payload (the standard's CobVPayload) as a JWS, signed by a key of the JWKS",
        "eyJhbGciOiJFUzI1NiJ9.eyJ0eGlkIjoiN2QzYjlmMWEyYzRlNmc4aDBqMms0bTZuOHAwcTJyNHMifQ.c2ln",
        problem_responses(_PAYLOAD_PROBLEMS, 400, 404),
        summary="The signed payload of a due-date charge, for the payer's PSP",
        description=(
            "The standard's `/cobv/{pixUrlAccessToken}` (at this service, `/qr/v2/cobv/{id}`, the"
            " BR Code's location): the charge with `valor.final`, the amount due on `DPP` (the day"
            " the payer means to pay, default today, Brasília's), and its parts. `codMun` (7 digits)"
            " is accepted; only national holidays move a due date. No token."
        ),
    )
    async def read(
        self,
        pix_url_access_token: AccessToken,
        cod_mun: Annotated[
            str | None,
            QueryParameter(
                "codMun", "The payer's municipality (IBGE code, 7 digits).", "3550308", pattern="[0-9]{7}"
            ),
        ] = None,
        dpp: Annotated[
            str | None,
            QueryParameter(
                "DPP",
                "The day the payer means to pay (YYYY-MM-DD); default today.",
                "2026-12-10",
                pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}",
            ),
        ] = None,
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        tokens: Injected[JwtIssuer],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[str]:
        charge = await get_charge_by_location(uow, pix_url_access_token, DUE_KINDS)
        account = await get_account(uow, charge.account_id)
        payload = due_charge_payload(charge, account, clock.now(), dpp=dpp, cod_mun=cod_mun)
        return signed_payload_response(settings, tokens, payload)
