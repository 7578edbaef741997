"""``GET /qr/v2/rec/{token}``: the standard's ``GET /rec/{recUrlAccessToken}``, the recurrence a
payer's bank reads at a location, as a JWS like the charges' payloads."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Response

from pixcore.accounts.accounts_service import get_account
from pixcore.clock import Clock
from pixcore.recurrences import read_recurrence_payload
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.charges.controllers import AccessToken, payload_route, signed_payload_response
from pixweb.problems import problem_responses
from pixweb.recurrences.mapping import payload_out
from pixweb.security.tokens import JwtIssuer
from pixweb.standard.face import FACE, STANDARD

__all__ = ["RecurrencePayloadController"]

_PROBLEMS = {400: "RecPayloadOperacaoInvalida", 404: "RecPayloadNaoEncontrado"}


class RecurrencePayloadController(Controller):
    """The payloads are the standard's only: its face's answers, no token."""

    path = "/qr/v2/rec"
    opt = {FACE: STANDARD}  # noqa: RUF012 - Litestar reads class attributes
    tags = ["Pix Automático"]  # noqa: RUF012 - Litestar reads class attributes

    @payload_route(
        "getRecurrencePayload",
        "The payload (the standard's RecPayload) as a JWS, signed by a key of the JWKS",
        "eyJhbGciOiJFUzI1NiJ9.eyJpZFJlYyI6IlJSOTk5OTk5OTkyMDI2MTEyOGFiY2RlZmdoaWprIn0.c2ln",
        problem_responses(_PROBLEMS, 400, 404),
        summary="The signed payload of a recurrence, for the payer's PSP",
        description=(
            "The standard's `GET /rec/{recUrlAccessToken}` (at this service, `/qr/v2/rec/{id}`, the"
            " recurrence location's URL): the recurrence the payer is asked to authorize. No token."
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
        recurrence = await read_recurrence_payload(uow, clock, token=pix_url_access_token)
        account = await get_account(uow, recurrence.account_id)
        payload: dict[str, Any] = msgspec.to_builtins(payload_out(recurrence, account))
        return signed_payload_response(settings, tokens, payload)
