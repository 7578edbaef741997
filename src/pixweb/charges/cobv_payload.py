"""The payload location of a due-date charge: ``GET /qr/v2/cobv/{id}``, the standard's
``/cobv/{pixUrlAccessToken}`` (``CobVPayload``, a JWS), with ``DPP`` and ``codMun``
(docs/decisions/due-charges.md)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.openapi.spec import Example
from litestar.params import Parameter

from pixcore.accounts.rules import Account
from pixcore.charges.cob import Charge, ChargeStatus
from pixcore.charges.cob_service import DUE_KINDS, get_charge_by_location
from pixcore.charges.cobv import amount_breakdown, payer_day
from pixcore.clock import format_timestamp
from pixcore.errors import ValidationError
from pixcore.money import format_amount_string
from pixcore.validation import collect
from pixinfra.due_terms import terms_wire
from pixweb.api.deps import services_of
from pixweb.api.docs import answer
from pixweb.api.standard import QueryParameter
from pixweb.charges.cob import signed_payload_response
from pixweb.charges.cobv import account_of, debtor_out, receiver_out
from pixweb.problems import PROBLEMS, problem_responses

__all__ = ["DuePayloadController", "due_charge_payload"]

_PAYLOAD_PROBLEMS: dict[int, str] = {}


def _payment_day(text: str | None, today: date) -> date:
    """``DPP``: the day the payer means to pay (default today), not before today."""
    if text is None:
        return today
    try:
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise ValidationError("must be a date YYYY-MM-DD")
    if day < today:
        raise ValidationError(f"must not be before today ({today.isoformat()})")
    return day


def _municipality(text: str | None) -> str | None:
    if text is not None and (len(text) != 7 or not text.isascii() or not text.isdigit()):
        raise ValidationError("must be an IBGE municipality code of 7 digits")
    return text


def due_charge_payload(
    charge: Charge, account: Account, now: datetime, *, dpp: str | None, cod_mun: str | None
) -> dict[str, Any]:
    """The standard's ``CobVPayload`` with the amount due on ``DPP`` (default: the payer's day
    now). ``codMun`` is checked and otherwise unused: only national holidays move a due date."""
    problems: list[str] = []
    today = payer_day(now)
    day = collect(problems, "DPP", lambda: _payment_day(dpp, today))
    collect(problems, "codMun", lambda: _municipality(cod_mun))
    if problems or day is None or charge.due is None:
        raise ValidationError("Invalid payload query: " + "; ".join(problems), details=problems)
    terms = charge.due
    status = charge.status_at(now)
    last = terms.last_payable_day()
    if day > last and status is ChargeStatus.ATIVA:
        problems.append(f"DPP: after the last day to pay ({last.isoformat()})")
        raise ValidationError("Invalid payload query: " + "; ".join(problems), details=problems)
    parts = amount_breakdown(terms, min(day, last))
    calendar, _ = terms_wire(terms)
    valor: dict[str, str] = {"original": format_amount_string(parts.original)}
    for name, cents in (
        ("multa", parts.fine),
        ("juros", parts.interest),
        ("abatimento", parts.rebate),
        ("desconto", parts.discount),
    ):
        if cents:
            valor[name] = format_amount_string(cents)
    valor["final"] = format_amount_string(parts.final)
    body: dict[str, Any] = {
        "txid": charge.txid,
        "revisao": charge.revision,
        "calendario": {
            "criacao": format_timestamp(charge.created_at),
            "apresentacao": format_timestamp(now),
            **calendar,
        },
        "devedor": msgspec.to_builtins(debtor_out(charge)),
        "recebedor": msgspec.to_builtins(receiver_out(account)),
        "status": status.value,
        "valor": valor,
        "chave": charge.pix_key,
    }
    if charge.payer_request is not None:
        body["solicitacaoPagador"] = charge.payer_request
    if charge.info:
        body["infoAdicionais"] = [{"nome": n, "valor": v} for n, v in charge.info]
    return body


class DuePayloadController(Controller):
    path = "/qr/v2/cobv"
    tags = ["Due-date charges"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/{location_id:str}",
        operation_id="getDueChargePayload",
        responses=answer(
            200,
            str,
            "The payload (the standard's CobVPayload) as a JWS, signed by a key of the JWKS",
            "eyJhbGciOiJFUzI1NiJ9.eyJ0eGlkIjoiN2QzYjlmMWEyYzRlNmc4aDBqMms0bTZuOHAwcTJyNHMifQ.c2ln",
            media_type="application/jose",
        )
        | problem_responses(_PAYLOAD_PROBLEMS, 400, 404, 422),
        summary="The signed payload of a due-date charge, for the payer's PSP",
        description=(
            "The standard's `/cobv/{pixUrlAccessToken}` (at this service, `/qr/v2/cobv/{id}`, the"
            " BR Code's location): the charge with `valor.final`, the amount due on `DPP` (the day"
            " the payer means to pay, default today, Brasília's), and its parts. `codMun` (7 digits)"
            " is accepted; only national holidays move a due date. No token."
        ),
        security=[{}],
        media_type="application/jose",
        opt={PROBLEMS: _PAYLOAD_PROBLEMS},
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
    ) -> Response[str]:
        services = services_of(request)
        charge = await get_charge_by_location(services.uow, location_id, DUE_KINDS)
        account = await account_of(request, charge.account_id)
        payload = due_charge_payload(charge, account, services.clock.now(), dpp=dpp, cod_mun=cod_mun)
        return signed_payload_response(request, payload)
