"""The deliberate deviations forgive only what they name (not marked: no service needed)."""

from __future__ import annotations

from pixcore import brcode
from tests.conformance.deviations import REFUSED_ON_PURPOSE, SCHEMA_DEVIATIONS, STATUS_DEVIATIONS
from tests.conformance.operations import IMPLEMENTED

CODE = brcode.encode(
    brcode.BrCode(
        merchant_name="Fuzz Holder",
        merchant_city="SAO PAULO",
        location="pix.example.com/qr/v2/" + "a" * 32,
        amount=1234,
    )
)
LOCATION = SCHEMA_DEVIATIONS[0]


def test_a_long_location_is_forgiven_only_when_it_is_a_br_code_on_a_charge() -> None:
    assert len(CODE) > 77
    assert LOCATION.forgives("PUT /cob/{txid}", ["loc", "location"], "maxLength", CODE)
    assert LOCATION.forgives("GET /cob", ["cobs", 0, "location"], "maxLength", CODE)
    assert not LOCATION.forgives("PUT /cob/{txid}", ["location"], "maxLength", "x" * 100)
    broken_crc = CODE[:-1] + ("1" if CODE.endswith("0") else "0")
    assert not LOCATION.forgives("PUT /cob/{txid}", ["location"], "maxLength", broken_crc)
    assert not LOCATION.forgives("PUT /cob/{txid}", ["location"], "pattern", CODE)
    assert not LOCATION.forgives("PUT /cob/{txid}", ["chave"], "maxLength", CODE)
    assert not LOCATION.forgives("GET /pix", ["location"], "maxLength", CODE)


def test_refusals_are_forgiven_on_their_operations_with_their_exact_detail() -> None:
    by_name = {deviation.name: deviation for deviation in REFUSED_ON_PURPOSE}
    nul, unknown = by_name["no NUL in the query string"], by_name["a field the standard does not define"]
    status = by_name["GET /cob's status is one of the four"]
    assert nul.forgives("GET /pix", "Invalid request: the query string contains a NUL character.")
    assert unknown.forgives("PATCH /cob/{txid}", "data: Object contains unknown field `x`")
    assert not unknown.forgives("GET /pix", "data: Object contains unknown field `x`")
    assert not unknown.forgives("PATCH /cob/{txid}", "valor.original: must be a string")
    detail = "status: must be one of ATIVA, CONCLUIDA, REMOVIDA_PELO_USUARIO_RECEBEDOR, REMOVIDA_PELO_PSP"
    assert status.forgives("GET /cob", detail)
    assert not status.forgives("GET /pix", detail)
    batch_id = by_name["a batch id is an int32"]
    assert batch_id.forgives("PUT /lotecobv/{id}", "id: must be an integer from -2147483648 to 2147483647")
    assert not batch_id.forgives(
        "GET /lotecobv/{id}", "id: must be an integer from -2147483648 to 2147483647"
    )
    twice = by_name["a txid once in a batch"]
    txid = "a" * 32
    assert twice.forgives(
        "PATCH /lotecobv/{id}", f"cobsv[3].txid: {txid} is given more than once in the batch"
    )
    assert not twice.forgives("PUT /lotecobv/{id}", "cobsv[3].txid: required, a text")
    stranger = by_name["a PATCH names the batch's charges"]
    assert stranger.forgives("PATCH /lotecobv/{id}", f"cobsv[0].txid: {txid} is not a charge of batch -7")
    assert not stranger.forgives("PUT /lotecobv/{id}", f"cobsv[0].txid: {txid} is not a charge of batch 7")


def test_every_deviation_names_implemented_operations_and_a_problem_type() -> None:
    named = [d.operations for d in [*SCHEMA_DEVIATIONS, *STATUS_DEVIATIONS, *REFUSED_ON_PURPOSE]]
    assert all(operations and operations <= set(IMPLEMENTED) for operations in named)
    for deviation in STATUS_DEVIATIONS:
        if deviation.like is None:  # an error: forgiven only with its problem type
            assert 400 <= deviation.status < 500
            assert (deviation.problem_type or "").startswith("https://pix.bcb.gov.br/api/v2/error/")
        else:  # a success: held to the schema of the status the standard gives
            assert 200 <= deviation.status < 300
            assert deviation.problem_type is None
