"""Pix Saque and Pix Troco (``pixcore.charges.withdrawal``): the standard's rules of a ``cob``'s
``retirada``, judged alone and with the charge's value, and what a payment of one credits."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore import brcode
from pixcore.amount_parts import CashPart, DueAmount
from pixcore.charges.cob import (
    CalendarFields,
    Charge,
    ChargeFields,
    ChargeKind,
    ChargeRequest,
    ChargeRevision,
    ChargeRevisionFields,
    ValueFields,
    amount_to_pay,
    cash_payment_parts,
    dynamic_code,
)
from pixcore.charges.parts import ChargeField
from pixcore.charges.withdrawal import (
    AgentModality,
    Withdrawal,
    WithdrawalField,
    WithdrawalFields,
    WithdrawalKind,
    WithdrawalPartFields,
    judge_withdrawal,
)
from pixcore.errors import AmountMismatch, ValidationError
from pixcore.money import format_amount_string
from pixcore.problems import Field, Problem
from pixcore.refunds.rules import Original, RefundNature
from pixcore.validation import INVALID

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SAQUE = WithdrawalPartFields(amount="5.00", agent="AGPSS", facilitator="12345678")
TROCO = WithdrawalPartFields(amount="5.00", agent="AGTEC", facilitator="12345678")


def request(original: str, withdrawal: WithdrawalFields, modality: int = 0) -> ChargeRequest:
    value = ValueFields(original, modality, withdrawal)
    return ChargeRequest.parse(ChargeFields(calendar=CalendarFields(), value=value))


def refused_fields(original: str, withdrawal: WithdrawalFields, modality: int = 0) -> set[Field]:
    with pytest.raises(ValidationError) as raised:
        request(original, withdrawal, modality)
    return {field for problem in raised.value.problems for field in _fields(problem)}


def _fields(problem: Problem | str) -> tuple[Field, ...]:
    assert isinstance(problem, Problem)
    return problem.fields


def test_a_saque_of_original_zero_is_kept_as_given() -> None:
    judged = request("0.00", WithdrawalFields(saque=SAQUE))
    assert (judged.amount, judged.modality) == (0, 0)
    assert judged.withdrawal == Withdrawal(WithdrawalKind.SAQUE, 500, 0, AgentModality.AGPSS, "12345678")


def test_a_troco_on_top_of_a_purchase_is_kept() -> None:
    judged = request("10.00", WithdrawalFields(troco=TROCO))
    assert judged.amount == 1000
    assert judged.withdrawal == Withdrawal(WithdrawalKind.TROCO, 500, 0, AgentModality.AGTEC, "12345678")


def test_an_alterable_withdrawal_may_be_zero() -> None:
    alterable = dataclasses.replace(SAQUE, amount="0.00", modality=1)
    judged = request("0.00", WithdrawalFields(saque=alterable))
    assert judged.withdrawal is not None
    assert (judged.withdrawal.amount, judged.withdrawal.modality) == (0, 1)


@pytest.mark.parametrize(
    ("original", "withdrawal", "modality", "fields"),
    [
        ("10.00", WithdrawalFields(saque=SAQUE), 0, {ChargeField.ORIGINAL}),
        ("0.00", WithdrawalFields(troco=TROCO), 0, {ChargeField.ORIGINAL}),
        ("0.00", WithdrawalFields(saque=dataclasses.replace(SAQUE, modality=1)), 1, {"MODALITY"}),
        ("0.01", WithdrawalFields(troco=dataclasses.replace(TROCO, modality=1)), 1, {"MODALITY"}),
        ("100.00", WithdrawalFields(saque=SAQUE, troco=TROCO), 0, {WithdrawalField.WITHDRAWAL}),
        ("0.00", WithdrawalFields(), 0, {WithdrawalField.WITHDRAWAL}),
        (
            "0.00",
            WithdrawalFields(saque=WithdrawalPartFields(amount="5.00")),
            0,
            {WithdrawalField.SAQUE_AGENT, WithdrawalField.SAQUE_FACILITATOR},
        ),
        (
            "10.00",
            WithdrawalFields(troco=dataclasses.replace(TROCO, agent="AGPSS")),
            0,
            {WithdrawalField.TROCO_AGENT},
        ),
        (
            "0.00",
            WithdrawalFields(saque=dataclasses.replace(SAQUE, amount="0.00")),
            0,
            {WithdrawalField.SAQUE_AMOUNT},
        ),
        (
            "0.00",
            WithdrawalFields(saque=dataclasses.replace(SAQUE, modality=INVALID)),
            0,
            {WithdrawalField.SAQUE_MODALITY},
        ),
    ],
    ids=[
        "saque-with-original",
        "troco-without-original",
        "saque-original-alterable",
        "troco-original-alterable",
        "both",
        "neither",
        "no-agent-nor-facilitator",
        "troco-by-a-facilitator",
        "fixed-saque-of-zero",
        "modality-not-an-integer",
    ],
)
def test_what_the_standard_forbids_is_refused_by_field(
    original: str, withdrawal: WithdrawalFields, modality: int, fields: set[Field | str]
) -> None:
    refused = refused_fields(original, withdrawal, modality)
    assert {f.name if f.name == "MODALITY" else f for f in refused} == fields


@pytest.mark.parametrize(
    "ispb",
    [
        "1234567",
        "123456789",
        "1234567a",
        "",
        "\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18",
        "12345678\n",
    ],
)
def test_the_facilitator_is_eight_digits_or_capitals(ispb: str) -> None:
    problems: list[Problem] = []
    assert (
        judge_withdrawal(problems, WithdrawalFields(saque=dataclasses.replace(SAQUE, facilitator=ispb)))
        is None
    )
    assert [p.fields for p in problems] == [(WithdrawalField.SAQUE_FACILITATOR,)]


def test_a_facilitator_with_capitals_is_accepted() -> None:
    judged = judge_withdrawal([], WithdrawalFields(saque=dataclasses.replace(SAQUE, facilitator="0AB1C2D3")))
    assert judged is not None
    assert judged.facilitator == "0AB1C2D3"


def _charge(amount: int, withdrawal: Withdrawal | None) -> Charge:
    return Charge(
        id=1,
        account_id=1,
        txid="a" * 26,
        kind=ChargeKind.COB,
        created_at=NOW,
        expiration=60,
        amount=amount,
        modality=0,
        pix_key="holder@example.com",
        location_id="0" * 32,
        location="pix.example.com/qr/v2/" + "0" * 32,
        br_code="",
        withdrawal=withdrawal,
    )


@given(original=st.integers(1, 10**9), cash=st.integers(1, 10**9))
def test_a_fixed_troco_takes_exactly_original_and_cash(original: int, cash: int) -> None:
    troco = Withdrawal(WithdrawalKind.TROCO, cash, 0, AgentModality.AGTEC, "12345678")
    charge = _charge(original, troco)
    assert amount_to_pay(charge, None) == original + cash
    assert amount_to_pay(charge, original + cash) == original + cash
    with pytest.raises(AmountMismatch):
        amount_to_pay(charge, original)
    with pytest.raises(AmountMismatch):
        amount_to_pay(charge, original + cash + 1)


def test_an_alterable_withdrawal_takes_any_amount_not_below_original() -> None:
    troco = Withdrawal(WithdrawalKind.TROCO, 0, 1, AgentModality.AGTOT, "12345678")
    charge = _charge(1000, troco)
    assert amount_to_pay(charge, None) == 1000
    assert amount_to_pay(charge, 1001) == 1001
    with pytest.raises(AmountMismatch):
        amount_to_pay(charge, 999)
    saque = Withdrawal(WithdrawalKind.SAQUE, 0, 1, AgentModality.AGPSS, "12345678")
    with pytest.raises(AmountMismatch):
        amount_to_pay(_charge(0, saque), None)
    assert amount_to_pay(_charge(0, saque), 1) == 1


@given(
    original=st.integers(0, 10**9), offered_cash=st.integers(1, 10**9), kind=st.sampled_from(WithdrawalKind)
)
def test_a_payment_keeps_the_purchase_as_original_and_the_rest_as_cash(
    original: int, offered_cash: int, kind: WithdrawalKind
) -> None:
    withdrawal = Withdrawal(kind, 0, 1, AgentModality.AGTEC, "1234567A")
    charge = _charge(original, withdrawal)
    credited = amount_to_pay(charge, original + offered_cash)
    parts = cash_payment_parts(charge, credited)
    assert parts is not None
    assert (parts.original, parts.final) == (original, credited)
    assert parts.cash == CashPart(
        kind=kind.value, amount=credited - original, agent="AGTEC", facilitator="1234567A"
    )
    for nature, part in ((RefundNature.ORIGINAL, original), (RefundNature.RETIRADA, credited - original)):
        assert _receipt(credited, parts).part_of(nature) == part


def test_a_pix_without_cash_is_all_original() -> None:
    assert cash_payment_parts(_charge(1000, None), 1000) is None
    plain = _receipt(1000, None)
    assert (plain.part_of(RefundNature.ORIGINAL), plain.part_of(RefundNature.RETIRADA)) == (1000, 0)


def _receipt(amount: int, parts: DueAmount | None) -> Original:
    return Original(1, 1, amount, "E12345678202611301200aaaaaaaaaaa", NOW, amount_parts=parts)


def test_a_revision_keeps_the_withdrawal_and_judges_original_against_it() -> None:
    saque = Withdrawal(WithdrawalKind.SAQUE, 500, 0, AgentModality.AGPSS, "12345678")
    current = _charge(0, saque)
    kept = ChargeRevision.parse(ChargeRevisionFields(calendar=CalendarFields(expiration=120)), current)
    assert (kept.withdrawal, kept.expiration) == (saque, 120)
    with pytest.raises(ValidationError) as raised:
        ChargeRevision.parse(ChargeRevisionFields(value=ValueFields(format_amount_string(100))), current)
    assert [p.fields for p in raised.value.problems if isinstance(p, Problem)] == [(ChargeField.ORIGINAL,)]


@pytest.mark.parametrize(("facilitator", "fss"), [("12345678", "12345678"), ("0AB1C2D3", None)])
def test_the_br_code_carries_a_facilitator_of_eight_digits(facilitator: str, fss: str | None) -> None:
    saque = Withdrawal(WithdrawalKind.SAQUE, 500, 0, AgentModality.AGPSS, facilitator)
    code = dynamic_code(
        location="pix.example.com/qr/v2/" + "0" * 32,
        merchant_name="HOLDER",
        merchant_city="SAO PAULO",
        amount=0,
        withdrawal=saque,
    )
    decoded = brcode.decode(code)
    assert (decoded.fss, decoded.amount) == (fss, None)
