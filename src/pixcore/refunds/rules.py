"""Refunds (``devolucao``): the request rules, the stored refund and its lifecycle.

A refund we send returns part or all of a PIX we received. It is created
EM_PROCESSAMENTO with its amount reserved (available -> blocked) and ends
DEVOLVIDO (the funds leave) or NAO_REALIZADO (the reservation is released,
``motivo`` says why). The refunds of one receipt that are not NAO_REALIZADO,
plus an open MED case's disputed amount, never exceed what was received.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime, timedelta

from transitions import Machine, MachineError

from pixcore.accounts.rules import Counterpart
from pixcore.amount_parts import DueAmount
from pixcore.errors import InvalidTransition, ValidationError
from pixcore.money import parse_amount_string, require_positive
from pixcore.problems import Field, Problem
from pixcore.validation import collect

__all__ = [
    "MAX_DESCRIPTION",
    "REFUND_WINDOW",
    "NewRefund",
    "Original",
    "Refund",
    "RefundField",
    "RefundKind",
    "RefundLifecycle",
    "RefundNature",
    "RefundRequest",
    "RefundStatus",
]

REFUND_WINDOW = timedelta(days=89)
"""A receipt may be refunded until this long after it was received (service clock)."""
MAX_DESCRIPTION = 140
INSUFFICIENT_FUNDS = "Saldo insuficiente: o valor disponivel nao cobre a devolucao."


class RefundStatus(enum.StrEnum):
    EM_PROCESSAMENTO = "EM_PROCESSAMENTO"
    DEVOLVIDO = "DEVOLVIDO"
    NAO_REALIZADO = "NAO_REALIZADO"


class RefundNature(enum.StrEnum):
    ORIGINAL = "ORIGINAL"
    RETIRADA = "RETIRADA"
    MED_OPERACIONAL = "MED_OPERACIONAL"
    MED_FRAUDE = "MED_FRAUDE"


REQUESTABLE = (RefundNature.ORIGINAL, RefundNature.RETIRADA)
"""The natures a client may ask for; the MED ones come only from a MED case."""


class RefundKind(enum.StrEnum):
    SENT = "sent"
    """A refund of a receipt, to its payer (``REFUND_IN``, DEBIT)."""
    RECEIVED = "received"
    """A refund of one of our transfers, from its receiver (``REFUND_OUT``, CREDIT)."""


class RefundLifecycle:
    """EM_PROCESSAMENTO -> DEVOLVIDO | NAO_REALIZADO; both terminal.

    Triggers: :meth:`complete` and :meth:`fail`.
    """

    state: RefundStatus

    def __init__(self, state: RefundStatus = RefundStatus.EM_PROCESSAMENTO) -> None:
        pending = RefundStatus.EM_PROCESSAMENTO
        self._machine = Machine(
            model=self,
            states=RefundStatus,
            transitions=[
                {"trigger": "refund", "source": pending, "dest": RefundStatus.DEVOLVIDO},
                {"trigger": "refuse", "source": pending, "dest": RefundStatus.NAO_REALIZADO},
            ],
            initial=state,
            auto_transitions=False,
        )

    def _fire(self, trigger: str) -> RefundStatus:
        try:
            getattr(self, trigger)()
        except MachineError:
            raise InvalidTransition(f"a refund {self.state.value} is finished already") from None
        return self.state

    def complete(self) -> RefundStatus:
        return self._fire("refund")

    def fail(self) -> RefundStatus:
        return self._fire("refuse")


class RefundField(Field):
    """The fields of a refund request, as :meth:`RefundRequest.parse` names them in its problems."""

    AMOUNT = enum.auto()
    NATURE = enum.auto()
    DESCRIPTION = enum.auto()


@dataclass(frozen=True, slots=True)
class RefundRequest:
    """A validated ``PUT /pix/{e2eid}/devolucao/{id}`` body.

    The edge hands :meth:`parse` each leaf under the domain's name, as decoded from JSON (a
    number is not a string here, so that ``"valor": 10`` can be refused), None when null or left
    out; the rules' problems name each field by a :class:`RefundField`.
    """

    amount: int
    nature: RefundNature = RefundNature.ORIGINAL
    description: str | None = None

    @classmethod
    def parse(cls, *, amount: object, nature: object = None, description: object = None) -> RefundRequest:
        """Every 400 rule of the body, collected into one ``ValidationError``."""
        problems: list[Problem] = []
        cents = None
        if not isinstance(amount, str):
            problems.append(
                Problem.of(RefundField.AMOUNT, 'required, a string with 2 decimals (e.g. "10.00")')
            )
        else:
            cents = collect(
                problems, RefundField.AMOUNT, lambda: require_positive(parse_amount_string(amount))
            )
        kind = RefundNature.ORIGINAL
        if nature is not None:
            if nature not in [n.value for n in REQUESTABLE]:
                problems.append(
                    Problem.of(
                        RefundField.NATURE, "ORIGINAL or RETIRADA (the MED natures cannot be requested)"
                    )
                )
            else:
                kind = RefundNature(str(nature))
        text = description if isinstance(description, str) else None
        if description is not None and (text is None or len(text) > MAX_DESCRIPTION):
            problems.append(
                Problem.of(RefundField.DESCRIPTION, f"a string of at most {MAX_DESCRIPTION} characters")
            )
        if problems or cents is None:
            raise ValidationError(problems=problems, summary="Invalid refund: {}")
        return cls(cents, kind, text)


@dataclass(frozen=True, slots=True)
class Original:
    """The transaction a refund refers to (a receipt, or a transfer we sent), locked while its
    refunds are counted."""

    transaction_id: int
    account_id: int
    amount: int
    end_to_end_id: str
    received_at: datetime
    """When the money arrived: the moment the record was confirmed (a cash-in charge's record
    is written PENDING when the charge is created and confirmed when it is paid), so the refund
    window (89 days) counts from the payment, not from the charge."""
    counterpart: Counterpart | None = None
    """Who paid (or whom we paid): name, document and institution, as the original recorded them."""
    tx_id: str | None = None
    """The txid of the charge it paid, if any (the REFUND event's ``txId``)."""
    pix_key: str | None = None
    """The key it was sent to or paid (a received PIX's ``chave``)."""
    counterpart_account_id: int | None = None
    """The account of this service on the other side (the payer of a receipt that came from its
    transfer, or the receiver of a transfer of ours), or None when the other side is outside."""
    amount_parts: DueAmount | None = None
    """What a receipt that paid a ``cobv``, a Pix Saque or a Pix Troco was made of
    (``Charge.paid_parts``); None for the others."""

    def part_of(self, nature: RefundNature) -> int:
        """The part of the amount a refund of ``nature`` may give back, in centavos (the standard's
        ``natureza``): RETIRADA, the cash of a Pix Saque or Troco; ORIGINAL, the rest (a Troco's
        purchase, the whole amount of any other PIX; nothing of a Saque)."""
        parts = self.amount_parts
        cash = 0 if parts is None or parts.cash is None else parts.cash.amount
        return cash if nature is RefundNature.RETIRADA else self.amount - cash


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRefund:
    kind: RefundKind
    account_id: int
    original_transaction_id: int
    refund_id: str
    rtr_id: str
    amount: int
    nature: RefundNature
    requested_at: datetime
    process_after: datetime
    transaction_id: int
    """The refund's own transaction record (REFUND_IN or REFUND_OUT)."""
    reserved: bool
    """Whether its amount was reserved at request (not when ``available`` could not cover it)."""
    description: str | None = None
    med_case_id: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Refund(NewRefund):
    id: int
    status: RefundStatus = RefundStatus.EM_PROCESSAMENTO
    reason: str | None = None
    """``motivo``: why the status is what it is (set on NAO_REALIZADO)."""
    finished_at: datetime | None = None

    def same_request(self, request: RefundRequest) -> bool:
        """A repeated PUT with the same id: the same body returns this refund, another is a 409."""
        return (self.amount, self.nature, self.description) == (
            request.amount,
            request.nature,
            request.description,
        )
