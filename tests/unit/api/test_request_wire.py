"""The refund and cash-in bodies at the edge: each wire struct becomes the domain's typed request
under the domain's names (``pixweb.refunds.refunds.refund_request``,
``pixweb.charges.cashin.cash_in_request``),
and the messages users see still name the body's fields, word for word."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.charges.cob import CashInRequest
from pixcore.errors import ValidationError
from pixcore.money import MAX_CENTS, format_amount_string
from pixcore.refunds.rules import RefundNature, RefundRequest
from pixweb.charges.cashin import CashInIn, cash_in_request
from pixweb.field_paths import on_the_wire
from pixweb.refunds.refunds import RefundIn, refund_request
from tests.unit.wire_rendering import wire_details, wire_message

CPF = "52998224725"


def refund_of(body: dict[str, Any]) -> RefundRequest:
    return refund_request(msgspec.json.decode(msgspec.json.encode(body), type=RefundIn))


def refund_problems(body: dict[str, Any]) -> tuple[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        refund_of(body)
    return on_the_wire(caught.value)


def test_the_refund_bodys_names_become_the_domains() -> None:
    body = {"valor": "12.34", "natureza": "RETIRADA", "descricao": "troco"}
    assert refund_of(body) == RefundRequest(amount=1234, nature=RefundNature.RETIRADA, description="troco")
    assert refund_of({"valor": "0.01"}) == RefundRequest(1, RefundNature.ORIGINAL, None)


@given(st.integers(min_value=1, max_value=MAX_CENTS))
def test_a_refunds_valor_is_its_amount_in_centavos(cents: int) -> None:
    assert refund_of({"valor": format_amount_string(cents)}).amount == cents


def test_a_refunds_messages_name_the_bodys_fields() -> None:
    assert refund_problems({}) == (
        'Invalid refund: valor: required, a string with 2 decimals (e.g. "10.00")',
        ['valor: required, a string with 2 decimals (e.g. "10.00")'],
    )
    details = [
        'valor: required, a string with 2 decimals (e.g. "10.00")',
        "natureza: ORIGINAL or RETIRADA (the MED natures cannot be requested)",
        "descricao: a string of at most 140 characters",
    ]
    # Each leaf arrives as decoded: a number for valor is refused, not read as "10.00".
    assert refund_problems({"valor": 10, "natureza": "MED_FRAUDE", "descricao": 5}) == (
        "Invalid refund: " + "; ".join(details),
        details,
    )
    assert refund_problems({"valor": "1.00", "descricao": "d" * 141})[1] == [
        "descricao: a string of at most 140 characters"
    ]


def cash_in_of(body: dict[str, Any]) -> CashInRequest:
    return cash_in_request(msgspec.json.decode(msgspec.json.encode(body), type=CashInIn))


def cash_in_body(**transaction: Any) -> dict[str, Any]:
    fields = {"value": 25.5, "description": "Pedido 42", "externalId": "order-42"} | transaction
    return {"transaction": fields, "payer": {"fullName": "Ana Souza", "document": CPF}}


def test_the_cash_in_bodys_names_become_the_domains() -> None:
    body = cash_in_body(expirationTime=900, generateQrCode=True) | {"additionalInfo": {"loja": "7"}}
    assert cash_in_of(body) == CashInRequest(
        amount=2550,
        description="Pedido 42",
        external_id="order-42",
        expiration=900,
        generate_qr_code=True,
        payer_name="Ana Souza",
        payer_document=CPF,
        additional_info=(("loja", "7"),),
    )
    defaults = cash_in_of(cash_in_body())
    assert (defaults.expiration, defaults.generate_qr_code, defaults.additional_info) == (86_400, False, ())


def test_a_cash_ins_messages_name_the_bodys_fields() -> None:
    body = {
        "transaction": {"value": "10", "expirationTime": "900", "generateQrCode": "yes"},
        "payer": {"document": 52998224725},
        "additionalInfo": ["loja"],
    }
    with pytest.raises(ValidationError) as caught:
        cash_in_of(body)
    assert wire_details(caught.value) == [
        "transaction.value: Invalid amount: a positive value in reais with at most 2 decimals is expected.",
        "transaction.description: required, 1 to 140 characters",
        "transaction.externalId: required, 1 to 100 characters",
        "transaction.expirationTime: must be 300 to 604800 seconds",
        "transaction.generateQrCode: must be true or false",
        "payer.fullName: required, 1 to 100 characters",
        "payer.document: required, a CPF (11 digits) or CNPJ (14 characters)",
        "additionalInfo: an object of at most 10 string values",
    ]
    assert wire_message(caught.value) == "Invalid cash-in: " + "; ".join(wire_details(caught.value))
