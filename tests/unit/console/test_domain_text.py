"""The domain's messages in the console's language: whole, piece by piece, or of a known shape;
unknown words stay as the domain said them, and English is the API's text exactly."""

from __future__ import annotations

from pixweb.console.domain_text import in_language
from pixweb.console.language import language

PT, EN = language("pt_BR"), language("en")


def test_a_known_message_whole() -> None:
    assert in_language("Charge not found.", PT) == "Cobrança não encontrada."


def test_a_summary_and_its_details_piece_by_piece_the_fields_wire_names_kept() -> None:
    message = (
        "Invalid cash-in: transaction.value: amount must be greater than zero; "
        "transaction.description: required"
    )
    assert in_language(message, PT) == (
        "Cash-in inválido: transaction.value: o valor deve ser maior que zero; "
        "transaction.description: obrigatório"
    )


def test_a_message_of_a_known_shape_with_its_amount_as_the_page_writes_money() -> None:
    assert in_language("valor: at most 1234.50 remains refundable", PT) == (
        "valor: restam no máximo R$\xa01.234,50 para devolver"
    )
    assert in_language("transaction.expirationTime: must be 300 to 604800 seconds", PT) == (
        "transaction.expirationTime: deve ser de 300 a 604800 segundos"
    )


def test_unknown_words_stay_and_english_is_the_apis_text() -> None:
    assert in_language("Something the catalog never heard of.", PT) == "Something the catalog never heard of."
    assert in_language("", PT) == ""
    message = "Invalid refund: valor: at most 5.00 remains refundable"
    assert in_language(message, EN) == message
