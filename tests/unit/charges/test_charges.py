"""Charge rules: the lifecycle, the request's 400 rules, the BR Code of a charge, what a payment credits."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore import brcode
from pixcore.charges.cob import (
    CashInRequest,
    Charge,
    ChargeKind,
    ChargeLifecycle,
    ChargeRequest,
    ChargeStatus,
    amount_to_pay,
    ascii_text,
    dynamic_code,
)
from pixcore.documents import DocumentKind
from pixcore.errors import AmountMismatch, InvalidAmount, InvalidTransition, ValidationError
from pixweb.charges.mapping import charge_fields, charge_out, charge_payload
from pixweb.charges.schemas import CobIn
from tests.unit.wire_rendering import wire_details, wire_raises

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
TERMINAL = [s for s in ChargeStatus if s is not ChargeStatus.ATIVA]


def charge(**changes: Any) -> Charge:
    base = Charge(
        id=1,
        account_id=1,
        txid="a" * 26,
        kind=ChargeKind.COB,
        created_at=NOW,
        expiration=60,
        amount=1000,
        modality=0,
        pix_key="holder@example.com",
        location_id="0" * 32,
        location="pix.example.com/qr/v2/" + "0" * 32,
        br_code="",
    )
    return dataclasses.replace(base, **changes)


@pytest.mark.parametrize(
    ("trigger", "status"),
    [
        ("conclude", ChargeStatus.CONCLUIDA),
        ("cancel", ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR),
        ("expire", ChargeStatus.REMOVIDA_PELO_PSP),
    ],
)
def test_an_active_charge_moves_once(trigger: str, status: ChargeStatus) -> None:
    lifecycle = ChargeLifecycle()
    assert getattr(lifecycle, trigger)() is status
    for again in ("conclude", "cancel", "expire"):
        with pytest.raises(InvalidTransition):
            getattr(lifecycle, again)()
    assert lifecycle.state is status


@pytest.mark.parametrize("state", TERMINAL)
@pytest.mark.parametrize("trigger", ["conclude", "cancel", "expire"])
def test_terminal_states_stay_terminal(state: ChargeStatus, trigger: str) -> None:
    lifecycle = ChargeLifecycle(state)
    with pytest.raises(InvalidTransition, match=state.value):
        getattr(lifecycle, trigger)()
    assert lifecycle.state is state


def test_expiry_shows_without_a_writer() -> None:
    active = charge(expiration=60)
    assert active.status_at(NOW + timedelta(seconds=59)) is ChargeStatus.ATIVA
    assert active.status_at(NOW + timedelta(seconds=60)) is ChargeStatus.REMOVIDA_PELO_PSP
    paid = charge(status=ChargeStatus.CONCLUIDA)
    assert paid.status_at(NOW + timedelta(days=9)) is ChargeStatus.CONCLUIDA


_WIRE_NAMES = {"solicitacao_pagador": "solicitacaoPagador", "info_adicionais": "infoAdicionais"}


def parse(**fields: Any) -> ChargeRequest:
    """A body's fields as JSON decodes them, through the edge (``charge_fields``) to the rules."""
    base: dict[str, Any] = {"calendario": {}, "devedor": None, "valor": {"original": "10.00"}}
    body = {_WIRE_NAMES.get(name, name): value for name, value in (base | fields).items()}
    return ChargeRequest.parse(charge_fields(msgspec.convert(body, CobIn)))


def test_defaults() -> None:
    request = parse()
    assert (request.expiration, request.amount, request.modality) == (86_400, 1000, 0)
    assert (request.key, request.debtor, request.info) == (None, None, ())


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ValidationError) as caught:
        parse(
            calendario={"expiracao": 0},
            valor={"original": "1", "modalidadeAlteracao": 3},
            devedor={"cpf": "123"},
            chave="k" * 78,
            solicitacao_pagador="s" * 141,
        )
    fields = [detail.split(":")[0] for detail in wire_details(caught.value)]
    assert fields == [
        "calendario.expiracao",
        "valor.modalidadeAlteracao",
        "valor.original",
        "devedor.cpf",
        "devedor.nome",
        "chave",
        "solicitacaoPagador",
    ]


def test_debtor_kinds() -> None:
    person = parse(devedor={"cpf": "52998224725", "nome": "Ana"}).debtor
    company = parse(devedor={"cnpj": "11222333000181", "nome": "ACME"}).debtor
    assert person is not None
    assert (person.kind, person.document) == (DocumentKind.CPF, "52998224725")
    assert company is not None
    assert company.kind is DocumentKind.CNPJ


def test_a_debtor_keeps_its_email_and_address_as_given() -> None:
    details = {
        "email": "ana@example.com",
        "logradouro": "Rua A, 1",
        "cidade": "Natal",
        "uf": "rn",
        "cep": "59000000",
    }
    debtor = parse(devedor={"cpf": "52998224725", "nome": "Ana"} | details).debtor
    assert debtor is not None
    assert (debtor.email, debtor.street, debtor.city, debtor.state, debtor.postal_code) == (
        "ana@example.com",
        "Rua A, 1",
        "Natal",
        "rn",
        "59000000",
    )
    assert (
        msgspec.to_builtins(charge_out(charge(debtor=debtor), ChargeStatus.ATIVA))["devedor"]
        == {
            "nome": "Ana",
            "cpf": "52998224725",
        }
        | details
    )


def test_what_is_given_of_a_debtor_without_a_document_is_refused_each_part_by_name() -> None:
    with pytest.raises(ValidationError) as caught:
        parse(devedor={"nome": "Ana", "cidade": "Natal", "cep": "123"})
    assert wire_details(caught.value) == [
        "devedor.nome: needs devedor.cpf or devedor.cnpj",
        "devedor.cidade: needs devedor.cpf or devedor.cnpj",
        "devedor.cep: needs devedor.cpf or devedor.cnpj",
        "devedor.cep: 8 digits, without a hyphen (e.g. 01310100)",
    ]


_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _judged(part: str, value: object, *, fits: bool) -> None:
    """A debtor with ``value`` as its ``part``: kept as given when it ``fits``, else refused with
    one problem, that part's."""
    debtor = {"cpf": "52998224725", "nome": "Ana", part: value}
    if fits:
        kept = parse(devedor=debtor).debtor
        assert kept is not None
        assert (
            msgspec.to_builtins(charge_out(charge(debtor=kept), ChargeStatus.ATIVA))["devedor"][part] == value
        )
    else:
        with pytest.raises(ValidationError) as caught:
            parse(devedor=debtor)
        assert [d.split(":")[0] for d in wire_details(caught.value)] == [f"devedor.{part}"]


@given(st.one_of(st.text(max_size=4), st.text(alphabet="SPrjçÉ1 ", max_size=3), st.integers()))
def test_a_debtors_state_is_two_ascii_letters(value: object) -> None:
    _judged("uf", value, fits=isinstance(value, str) and len(value) == 2 and set(value) <= _ASCII_LETTERS)


@given(st.one_of(st.text(max_size=10), st.text(alphabet="0123456789-٣", max_size=9), st.integers()))
def test_a_debtors_postal_code_is_eight_ascii_digits(value: object) -> None:
    _judged("cep", value, fits=isinstance(value, str) and len(value) == 8 and set(value) <= set("0123456789"))


@pytest.mark.parametrize(("name", "limit"), [("email", 254), ("logradouro", 200), ("cidade", 200)])
def test_a_debtors_email_street_and_city_have_the_standards_limits(name: str, limit: int) -> None:
    debtor = {"cpf": "52998224725", "nome": "Ana"}
    kept = parse(devedor=debtor | {name: "x" * limit}).debtor
    assert kept is not None
    with pytest.raises(ValidationError) as caught:
        parse(devedor=debtor | {name: "x" * (limit + 1)})
    assert wire_details(caught.value) == [f"devedor.{name}: a string of at most {limit} characters"]


@given(st.integers(min_value=0, max_value=10**12 - 1))
def test_valor_original_round_trips_every_two_decimal_string(cents: int) -> None:
    text = f"{cents // 100}.{cents % 100:02d}"
    if cents == 0:
        with pytest.raises(ValidationError):
            parse(valor={"original": text})
        assert parse(valor={"original": text, "modalidadeAlteracao": 1}).amount == 0
    else:
        assert parse(valor={"original": text}).amount == cents


@given(st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=12), st.none(), st.booleans()))
def test_valor_original_takes_only_its_string_form(value: object) -> None:
    is_amount = isinstance(value, str) and _is_amount_text(value)
    try:
        parsed = parse(valor={"original": value}).amount
    except ValidationError:
        assert not is_amount or int(str(value).replace(".", "")) == 0  # zero needs modalidadeAlteracao 1
    else:
        assert is_amount
        assert parsed > 0


def _is_amount_text(value: str) -> bool:
    whole, _, cents = value.partition(".")
    return (
        1 <= len(whole) <= 10 and whole.isascii() and whole.isdigit() and len(cents) == 2 and cents.isdigit()
    )


@given(st.integers(min_value=-5, max_value=5))
def test_expiracao_must_be_a_positive_whole_number(seconds: int) -> None:
    if seconds >= 1:
        assert parse(calendario={"expiracao": seconds}).expiration == seconds
    else:
        with pytest.raises(ValidationError):
            parse(calendario={"expiracao": seconds})


@pytest.mark.parametrize("value", [True, 1.5, "60", None])
def test_expiracao_of_another_type_is_refused(value: object) -> None:
    with wire_raises(ValidationError, match=r"calendario\.expiracao"):
        parse(calendario={"expiracao": value})


def test_the_charge_code_is_dynamic_single_use_and_ascii() -> None:
    code = dynamic_code(
        location="pix.example.com/qr/v2/" + "a" * 32,
        merchant_name="João Çedilha da Conceição Ferreira",
        merchant_city="São Paulo",
        amount=1050,
    )
    decoded = brcode.decode(code)
    assert decoded.point_of_initiation == "12"
    assert decoded.reference == "***"
    assert decoded.merchant_name == "Joao Cedilha da Conceicao"
    assert decoded.merchant_city == "Sao Paulo"
    assert decoded.amount == 1050
    assert code.isascii()
    assert len(code) <= brcode.MAX_LENGTH
    assert (
        brcode.decode(
            dynamic_code(location="h/qr/v2/x", merchant_name="A", merchant_city="B", amount=0)
        ).amount
        is None
    )


@given(st.text(max_size=60))
def test_ascii_text_is_always_valid_br_code_data(text: str) -> None:
    plain = ascii_text(text, 25)
    assert 1 <= len(plain) <= 25
    assert all(0x20 <= ord(c) < 0x7F for c in plain)


def test_what_a_payment_credits() -> None:
    fixed = charge(amount=1000, modality=0)
    assert amount_to_pay(fixed, None) == 1000
    assert amount_to_pay(fixed, 1000) == 1000
    with pytest.raises(AmountMismatch, match=r"10\.00"):
        amount_to_pay(fixed, 999)
    changeable = charge(amount=1000, modality=1)
    assert amount_to_pay(changeable, 1234) == 1234
    with pytest.raises(InvalidAmount):
        amount_to_pay(changeable, 0)
    open_amount = charge(amount=0, modality=1)
    with pytest.raises(AmountMismatch):
        amount_to_pay(open_amount, None)


def test_the_payload_shows_the_status_a_reader_sees() -> None:
    body = charge_payload(charge(expiration=60), NOW + timedelta(seconds=61))
    assert body["status"] == "REMOVIDA_PELO_PSP"
    assert body["valor"] == {"original": "10.00"}
    assert body["calendario"]["apresentacao"] == "2026-11-22T12:01:01.000Z"


def cash_in(**fields: Any) -> CashInRequest:
    base: dict[str, Any] = {
        "amount": 10,
        "description": "d",
        "external_id": "e-1",
        "expiration": None,
        "generate_qr_code": None,
        "payer_name": "Ana",
        "payer_document": "52998224725",
        "additional_info": None,
    }
    return CashInRequest.parse(**(base | fields))


@given(st.integers(min_value=0, max_value=700_000))
def test_cash_in_expiration_bounds(seconds: int) -> None:
    if 300 <= seconds <= 604_800:
        assert cash_in(expiration=seconds).expiration == seconds
    else:
        with wire_raises(ValidationError, match="expirationTime"):
            cash_in(expiration=seconds)


def test_cash_in_defaults() -> None:
    request = cash_in()
    assert (request.amount, request.expiration, request.generate_qr_code) == (1000, 86_400, False)
