"""What the amount of a payment is made of: a due-date charge's original amount with its rebate,
discount, fine and interest on one day (``pixcore.charges.cobv.amount_breakdown``, the payload's
``valor``); a Pix Saque's or Troco's purchase and cash; and what a received PIX keeps of them (the
standard's ``componentesValor``).

Its own module, beside the features that carry it: charges compute it, a receipt and its events
keep it, so none of them imports another for it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CashPart", "DueAmount", "whole_amount"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CashPart:
    """The cash a Pix Saque (``kind`` ``saque``) or Pix Troco (``troco``) paid out: its ``amount``
    in centavos, the agent's modality and the withdrawal service facilitator's ISPB, as the
    standard's ``componentesValor.saque`` and ``.troco`` give them."""

    kind: str
    amount: int
    agent: str
    facilitator: str


@dataclass(frozen=True, slots=True)
class DueAmount:
    """The parts of an amount, all in centavos: a ``cobv``'s amount due on one day (the payload's
    ``valor``), or a Pix Saque's or Troco's ``original`` (the purchase) and its ``cash``."""

    original: int
    rebate: int
    discount: int
    fine: int
    interest: int
    cash: CashPart | None = None

    @property
    def final(self) -> int:
        cash = 0 if self.cash is None else self.cash.amount
        return self.original + cash - self.rebate - self.discount + self.fine + self.interest


def whole_amount(amount: int) -> DueAmount:
    """``amount`` made of its original alone: a payment of a ``cob`` or of a key, with no fine,
    interest, rebate or discount."""
    return DueAmount(original=amount, rebate=0, discount=0, fine=0, interest=0)
