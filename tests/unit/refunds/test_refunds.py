"""Refund and MED rules. The stateful property over refunds and MED cases, with a model of
what each allows, is in test_refunds_stateful.py."""

from __future__ import annotations

import pytest

from pixcore.errors import InvalidTransition, ValidationError
from pixcore.refunds.med import MedLifecycle, MedReason, MedStatus
from pixcore.refunds.rules import RefundLifecycle, RefundNature, RefundRequest, RefundStatus
from tests.unit.wire_rendering import wire_message


@pytest.mark.parametrize(
    ("trigger", "status"), [("complete", RefundStatus.DEVOLVIDO), ("fail", RefundStatus.NAO_REALIZADO)]
)
def test_a_refund_finishes_once(trigger: str, status: RefundStatus) -> None:
    lifecycle = RefundLifecycle()
    assert getattr(lifecycle, trigger)() is status
    for again in ("complete", "fail"):
        with pytest.raises(InvalidTransition):
            getattr(lifecycle, again)()


@pytest.mark.parametrize(
    ("trigger", "status"), [("accept", MedStatus.ACCEPTED), ("reject", MedStatus.REJECTED)]
)
def test_a_med_case_is_decided_once(trigger: str, status: MedStatus) -> None:
    lifecycle = MedLifecycle()
    assert getattr(lifecycle, trigger)() is status
    for again in ("accept", "reject"):
        with pytest.raises(InvalidTransition):
            getattr(lifecycle, again)()


def _refused(**body: object) -> str:
    """The message of the refusal of ``body``, as users see it."""
    with pytest.raises(ValidationError) as caught:
        RefundRequest.parse(**body)  # type: ignore[arg-type]
    return wire_message(caught.value)


def test_refund_request_rules() -> None:
    assert RefundRequest.parse(amount="1.50") == RefundRequest(150, RefundNature.ORIGINAL, None)
    assert (
        RefundRequest.parse(amount="2.00", nature="RETIRADA", description="x").nature is RefundNature.RETIRADA
    )
    for bad in ({"amount": 1.5}, {"amount": "1.5"}, {"amount": "0.00"}, {"amount": None}):
        assert "valor" in _refused(**bad)
    for nature in ("MED_FRAUDE", "MED_OPERACIONAL", "original", 1):
        assert "natureza" in _refused(amount="1.00", nature=nature)
    assert "descricao" in _refused(amount="1.00", description="d" * 141)
    assert MedReason.parse("MED_FRAUDE") is MedReason.MED_FRAUDE
    with pytest.raises(ValidationError):
        MedReason.parse("FRAUDE")
