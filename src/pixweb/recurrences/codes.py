"""The QR codes of a recurrence (``dadosQR`` of ``GET /rec/{idRec}``): the recurrence's own code
(JORNADA_2: a code with only its location, ``80-25``), or a charge's code composed with it
(``?txid=``: a ``cob``'s for JORNADA_3, a ``cobv``'s for JORNADA_4)."""

from __future__ import annotations

import dataclasses

from pixcore import brcode
from pixcore.accounts.rules import Account
from pixcore.charges.cob import ChargeKind, ascii_text
from pixcore.charges.cob_service import ALL_KINDS, read_charge
from pixcore.errors import InvalidQuery, NotFound
from pixcore.recurrences import Journey, RecurrenceView
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["composite_code"]


def _refuse(text: str) -> InvalidQuery:
    return InvalidQuery(f"Invalid query parameters: txid: {text}.", details=[f"txid: {text}"])


async def composite_code(
    uow: UnitOfWorkFactory, view: RecurrenceView, account: Account, txid: str | None, prefix: str
) -> tuple[str, str] | None:
    """The journey and the code a payer reads to authorize ``view``'s recurrence; None when it is
    at no location (it has no code then)."""
    if view.location is None:
        return None
    url = view.location.url(prefix)
    if txid is None:
        code = brcode.BrCode(
            merchant_name=ascii_text(account.name, 25),
            merchant_city=ascii_text(account.city, 15),
            recurrence=url,
        )
        return Journey.JORNADA_2.value, brcode.encode(code)
    try:
        charge = (await read_charge(uow, account_id=account.id, txid=txid, kinds=ALL_KINDS)).charge
    except NotFound:
        raise _refuse("no charge of the account has this txid") from None
    due = charge.kind is ChargeKind.COBV
    journey_txid = view.recurrence.journey_txid
    if not due and journey_txid is not None and journey_txid != txid:
        raise _refuse("an immediate charge other than the recurrence's ativacao.dadosJornada.txid")
    if not charge.located:
        raise _refuse("the charge is at no location: it has no code")
    composed = dataclasses.replace(brcode.decode(charge.br_code), recurrence=url)
    journey = Journey.JORNADA_4 if due else Journey.JORNADA_3
    return journey.value, brcode.encode(composed)
