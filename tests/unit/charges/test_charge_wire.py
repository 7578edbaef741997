"""The charge body at the edge: the wire struct becomes the domain's typed ``ChargeFields`` (no
wire names inside pixcore), and a charge made from it renders back the JSON it was given."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.charges.cob import (
    ABSENT,
    CalendarFields,
    Charge,
    ChargeFields,
    ChargeKind,
    ChargeRequest,
    ChargeStatus,
    DebtorFields,
    InfoFields,
    ValueFields,
)
from pixcore.charges.cob_service import ReceivedPix
from pixcore.errors import ValidationError
from pixcore.refunds.rules import Refund, RefundKind, RefundNature
from pixweb.charges.mapping import charge_fields, charge_out, charge_payload
from pixweb.charges.schemas import CobIn
from tests.unit.wire_rendering import wire_details

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
REQUEST_KEYS = ("calendario", "valor", "chave", "devedor", "solicitacaoPagador", "infoAdicionais")


def fields_of(body: dict[str, Any]) -> ChargeFields:
    return charge_fields(msgspec.json.decode(msgspec.json.encode(body), type=CobIn))


def problems(body: dict[str, Any]) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        ChargeRequest.parse(fields_of(body))
    return wire_details(caught.value)


def charge_from(request: ChargeRequest) -> Charge:
    return Charge(
        id=7,
        account_id=1,
        txid="a" * 26,
        kind=ChargeKind.COB,
        created_at=NOW,
        expiration=request.expiration,
        amount=request.amount,
        modality=request.modality,
        pix_key=request.key or "holder@example.com",
        location_id="0" * 32,
        location="pix.example.com/qr/v2/" + "0" * 32,
        br_code="00020101021226...",
        payer_request=request.payer_request,
        debtor=request.debtor,
        info=request.info,
    )


def test_the_wire_names_become_the_domains() -> None:
    body = {
        "calendario": {"expiracao": 3600},
        "valor": {"original": "10.00", "modalidadeAlteracao": 1},
        "devedor": {"cpf": "52998224725", "nome": "Ana"},
        "chave": "holder@example.com",
        "solicitacaoPagador": "obrigado",
        "infoAdicionais": [{"nome": "pedido", "valor": "42"}],
    }
    assert fields_of(body) == ChargeFields(
        calendar=CalendarFields(expiration=3600),
        value=ValueFields(original="10.00", modality=1),
        debtor=DebtorFields(cpf="52998224725", cnpj=None, name="Ana"),
        key="holder@example.com",
        payer_request="obrigado",
        info=(InfoFields(name="pedido", value="42"),),
    )


def test_left_out_is_not_null_where_a_default_exists() -> None:
    left_out = fields_of({"calendario": {}, "valor": {"original": "1.00"}})
    assert left_out.calendar == CalendarFields(expiration=ABSENT)
    assert left_out.value == ValueFields(original="1.00", modality=ABSENT)
    request = ChargeRequest.parse(left_out)
    assert (request.expiration, request.modality) == (86_400, 0)
    assert problems({"calendario": {"expiracao": None}, "valor": {"original": "1.00"}}) == [
        "calendario.expiracao: must be a whole number of seconds, 1 to 2147483647"
    ]
    assert problems({"calendario": {}, "valor": {"original": "1.00", "modalidadeAlteracao": None}}) == [
        "valor.modalidadeAlteracao: must be 0 or 1"
    ]


def test_left_out_reads_as_null_elsewhere() -> None:
    assert problems({"valor": {"original": "1.00"}}) == ["calendario: required"]
    assert problems({"calendario": {}, "valor": {}}) == [
        'valor.original: required, a string with 2 decimals (e.g. "10.00")'
    ]
    assert problems({"calendario": {}, "valor": {"original": "1.00"}, "devedor": {"nome": "Ana"}}) == [
        "devedor.nome: needs devedor.cpf or devedor.cnpj"
    ]
    assert problems({"calendario": {}, "valor": {"original": "1.00"}, "infoAdicionais": [{"nome": "x"}]}) == [
        "infoAdicionais[0]: nome and valor are required strings"
    ]


def test_leaves_keep_their_json_type() -> None:
    assert problems({"calendario": {"expiracao": "60"}, "valor": {"original": 10}}) == [
        "calendario.expiracao: must be a whole number of seconds, 1 to 2147483647",
        'valor.original: required, a string with 2 decimals (e.g. "10.00")',
    ]


_characters = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
_text = st.text(_characters, min_size=1, max_size=20).filter(str.strip)


@st.composite
def bodies(draw: st.DrawFn) -> dict[str, Any]:
    """Valid ``PUT /cob`` bodies in the form the service renders them back."""
    cents = draw(st.integers(min_value=1, max_value=10**12 - 1))
    valor: dict[str, Any] = {"original": f"{cents // 100}.{cents % 100:02d}"}
    if draw(st.booleans()):
        valor["modalidadeAlteracao"] = 1
    body: dict[str, Any] = {
        "calendario": {"expiracao": draw(st.integers(min_value=1, max_value=2_147_483_647))},
        "valor": valor,
        "chave": "holder@example.com",
    }
    debtor = draw(st.sampled_from([None, {"cpf": "52998224725"}, {"cnpj": "11222333000181"}]))
    if debtor is not None:
        body["devedor"] = debtor | {"nome": draw(_text)}
    payer_request = draw(st.none() | _text)
    if payer_request is not None:
        body["solicitacaoPagador"] = payer_request
    info = draw(st.lists(st.fixed_dictionaries({"nome": _text, "valor": _text}), max_size=3))
    if info:
        body["infoAdicionais"] = info
    return body


@given(bodies())
def test_a_charge_renders_back_the_body_it_was_made_from(body: dict[str, Any]) -> None:
    charge = charge_from(ChargeRequest.parse(fields_of(body)))

    payload = charge_payload(charge, NOW)
    rendered = {key: payload[key] for key in REQUEST_KEYS if key in payload}
    rendered["calendario"] = {"expiracao": payload["calendario"]["expiracao"]}
    assert rendered == body

    shown = msgspec.to_builtins(charge_out(charge, charge.status))
    assert shown.get("devedor") == body.get("devedor")
    assert shown["valor"] == {"modalidadeAlteracao": 0} | body["valor"]
    assert shown.get("infoAdicionais") == body.get("infoAdicionais")


def test_a_paid_charge_shows_its_pix_and_refunds_in_the_standard_s_names() -> None:
    charge = charge_from(ChargeRequest.parse(fields_of({"calendario": {}, "valor": {"original": "10.00"}})))
    assert "pix" not in msgspec.to_builtins(charge_out(charge, ChargeStatus.ATIVA))
    refund = Refund(
        id=3,
        kind=RefundKind.SENT,
        account_id=1,
        original_transaction_id=9,
        refund_id="dev1",
        rtr_id="D" + "1" * 31,
        amount=250,
        nature=RefundNature.ORIGINAL,
        requested_at=NOW,
        process_after=NOW,
        transaction_id=10,
        reserved=True,
        description="Troca",
    )
    paid = ReceivedPix(
        end_to_end_id="E" + "2" * 31, tx_id=charge.txid, amount=1000, received_at=NOW, refunds=(refund,)
    )
    shown = msgspec.to_builtins(charge_out(charge, ChargeStatus.CONCLUIDA, (paid,)))
    assert shown["pix"] == [
        {
            "endToEndId": "E" + "2" * 31,
            "txid": "a" * 26,
            "valor": "10.00",
            "componentesValor": {"original": {"valor": "10.00"}},
            "horario": "2026-11-22T12:00:00.000Z",
            "devolucoes": [
                {
                    "id": "dev1",
                    "rtrId": "D" + "1" * 31,
                    "valor": "2.50",
                    "natureza": "ORIGINAL",
                    "horario": {"solicitacao": "2026-11-22T12:00:00.000Z"},
                    "status": "EM_PROCESSAMENTO",
                    "descricao": "Troca",
                }
            ],
        }
    ]
