"""A ``cobv`` body's rules beyond its terms (``pixcore.charges.cobv_requests``), its expiry at the end of its
last payable day, and its terms' round trip through the ``charges.terms`` column's wire form."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.charges.cob import Charge, ChargeKind, DebtorFields
from pixcore.charges.cobv import DueCalendarFields, DueValueFields, RateFields, amount_due, payer_day
from pixcore.charges.cobv_requests import (
    DueCalendarChange,
    DueChargeFields,
    DueChargeRequest,
    DueRevision,
    DueRevisionFields,
    DueValueChange,
    day_end,
    due_expiration,
)
from pixcore.errors import ValidationError
from pixinfra.due_terms import stored_terms, terms_text
from tests.unit.wire_rendering import wire_details

NOW = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)  # a Tuesday; 12:00 in Brasília
TODAY = payer_day(NOW)
DEBTOR = DebtorFields(cpf="52998224725", name="João Souza")


def fields(due: date = TODAY + timedelta(days=3), **value: object) -> DueChargeFields:
    return DueChargeFields(
        calendar=DueCalendarFields(due.isoformat(), 2),
        value=DueValueFields(original="100.00", **value),  # type: ignore[arg-type]
        debtor=DEBTOR,
    )


def test_a_valid_request_expires_at_the_end_of_its_last_payable_day() -> None:
    request = DueChargeRequest.parse(fields(), now=NOW)
    assert request.terms.original == 100_00
    assert request.debtor.document == "52998224725"
    last = request.terms.last_payable_day()
    assert last == date(2026, 11, 30)  # due Friday 27th, plus 2 days is Sunday: moved to Monday
    ends = NOW + timedelta(seconds=request.expiration)
    assert ends == day_end(last)
    assert ends == datetime(2026, 12, 1, 3, 0, tzinfo=UTC)  # midnight in Brasília


def test_every_broken_rule_at_once_and_the_debtor_is_required() -> None:
    broken = DueChargeFields(
        calendar=DueCalendarFields("2020-01-01"),
        value=DueValueFields(original="0.00"),
        debtor=None,
        key=7,
        payer_request="x" * 141,
    )
    with pytest.raises(ValidationError) as caught:
        DueChargeRequest.parse(broken, now=NOW)
    named = {detail.split(":")[0] for detail in wire_details(caught.value) or []}
    assert named == {
        "calendario.dataDeVencimento",
        "valor.original",
        "devedor",
        "chave",
        "solicitacaoPagador",
    }


def test_a_name_without_a_document_is_its_own_rule() -> None:
    no_document = dataclasses.replace(fields(), debtor=DebtorFields(name="X"))
    with pytest.raises(ValidationError) as caught:
        DueChargeRequest.parse(no_document, now=NOW)
    assert wire_details(caught.value) == ["devedor.nome: needs devedor.cpf or devedor.cnpj"]


def test_a_last_day_beyond_a_charges_int32_expiry_is_refused() -> None:
    far = dataclasses.replace(fields(), calendar=DueCalendarFields(TODAY.isoformat(), 30_000))
    with pytest.raises(ValidationError) as caught:
        DueChargeRequest.parse(far, now=NOW)
    assert [d.split(":")[0] for d in wire_details(caught.value) or []] == [
        "calendario.validadeAposVencimento"
    ]
    assert due_expiration(DueChargeRequest.parse(fields(), now=NOW).terms, NOW) is not None


def _charge(request: DueChargeRequest) -> Charge:
    return Charge(
        id=1,
        account_id=1,
        txid="a" * 26,
        kind=ChargeKind.COBV,
        created_at=NOW,
        expiration=request.expiration,
        amount=request.terms.original,
        modality=0,
        pix_key="holder@example.com",
        location_id="0" * 32,
        location="pix.example.com/qr/v2/cobv/" + "0" * 32,
        br_code="",
        debtor=request.debtor,
        due=request.terms,
    )


def test_a_revision_keeps_each_member_left_out() -> None:
    fine = RateFields(1, "5.00")
    current = _charge(DueChargeRequest.parse(fields(fine=fine), now=NOW))
    later = TODAY + timedelta(days=10)
    change = DueRevisionFields(
        calendar=DueCalendarChange(due_date=later.isoformat()), value=DueValueChange(original="80.00")
    )
    revision = DueRevision.parse(change, current, now=NOW + timedelta(days=1))
    assert revision.terms is not None
    assert revision.terms.due_date == later
    assert revision.terms.days_after_due == 2  # kept
    assert revision.terms.original == 80_00
    assert revision.terms.fine is not None
    assert revision.terms.fine.value == 5_00  # kept
    assert amount_due(revision.terms, later + timedelta(days=1)) == 85_00
    assert NOW + timedelta(seconds=revision.expiration) == day_end(revision.terms.last_payable_day())


def test_a_revision_judges_the_terms_after_it() -> None:
    current = _charge(DueChargeRequest.parse(fields(), now=NOW))
    back = DueRevisionFields(calendar=DueCalendarChange(due_date=TODAY.isoformat()))
    tomorrow = NOW + timedelta(days=1)
    with pytest.raises(ValidationError) as caught:
        DueRevision.parse(back, current, now=tomorrow)
    assert [d.split(":")[0] for d in wire_details(caught.value) or []] == ["calendario.dataDeVencimento"]
    with pytest.raises(ValidationError, match="changes nothing"):
        DueRevision.parse(DueRevisionFields(), current, now=NOW)
    cancel = DueRevisionFields(status="REMOVIDA_PELO_USUARIO_RECEBEDOR")
    assert DueRevision.parse(cancel, current, now=NOW).cancel


@given(
    days=st.integers(min_value=0, max_value=400),
    after=st.integers(min_value=0, max_value=60),
    original=st.integers(min_value=1, max_value=10**9),
    fine=st.integers(min_value=0, max_value=10_00),
    interest=st.integers(min_value=1, max_value=1_00),
)
def test_the_stored_terms_read_back_as_they_were(
    days: int, after: int, original: int, fine: int, interest: int
) -> None:
    due = TODAY + timedelta(days=days)
    value = DueValueFields(
        original=f"{original // 100}.{original % 100:02d}",
        fine=RateFields(2, f"{fine // 100}.{fine % 100:02d}"),
        interest=RateFields(2, f"0.{interest:02d}" if interest < 100 else "1.00"),
    )
    request = DueChargeRequest.parse(
        DueChargeFields(DueCalendarFields(due.isoformat(), after), value, DEBTOR), now=NOW
    )
    assert stored_terms(terms_text(request.terms)) == request.terms


def test_the_terms_column_keeps_the_domains_own_names() -> None:
    terms = DueChargeRequest.parse(
        DueChargeFields(
            DueCalendarFields((TODAY + timedelta(days=9)).isoformat(), 30),
            DueValueFields(original="123.45", fine=RateFields(2, "2.00")),
            DEBTOR,
        ),
        now=NOW,
    ).terms
    assert json.loads(terms_text(terms)) == {
        "original": 12_345,
        "due_date": (TODAY + timedelta(days=9)).isoformat(),
        "days_after_due": 30,
        "fine": {"modality": 2, "value": 200},
        "interest": None,
        "rebate": None,
        "discount": None,
    }
