"""The state rules the conformance suite forgives are exactly the service's words for the
standard's violations, and nothing else: a different wording, status, type or operation is not
forgiven."""

from __future__ import annotations

from tests.conformance.state import TYPE, refused_by_state


def test_a_charge_that_is_not_active_is_forgiven_only_as_the_standard_words_it() -> None:
    detail = "a REMOVIDA_PELO_USUARIO_RECEBEDOR charge cannot be revised"
    assert refused_by_state("PUT /cob/{txid}", 400, TYPE + "CobOperacaoInvalida", detail)
    assert not refused_by_state("PUT /cob/{txid}", 422, TYPE + "CobOperacaoInvalida", detail)
    assert not refused_by_state("PUT /cob/{txid}", 400, TYPE + "RequisicaoInvalida", detail)
    assert not refused_by_state("POST /cob", 400, TYPE + "CobOperacaoInvalida", detail)
    assert not refused_by_state(
        "PUT /cob/{txid}", 400, TYPE + "CobOperacaoInvalida", "valor.original: too big"
    )


def test_a_batch_rule_is_forgiven_on_its_own_operation() -> None:
    detail = "Invalid batch of due-date charges: cobsv[0].txid: abc is not a charge of batch 7"
    assert refused_by_state("PATCH /lotecobv/{id}", 400, TYPE + "LoteCobVOperacaoInvalida", detail)
    assert not refused_by_state("PUT /lotecobv/{id}", 400, TYPE + "LoteCobVOperacaoInvalida", detail)


def test_a_recurring_charge_of_no_authorized_recurrence_is_forgiven_with_what_it_reads_of_it() -> None:
    kind = TYPE + "CobROperacaoInvalida"
    assert refused_by_state("POST /cobr", 400, kind, "idRec: names no recurrence of yours")
    not_approved = (
        "Invalid recurring charge: idRec: the recurrence is CRIADA: charges are made of an APROVADA one;"
        " recebedor.conta: not an account of yours"
    )
    assert refused_by_state("PUT /cobr/{txid}", 400, kind, not_approved)
    assert not refused_by_state("PATCH /cobr/{txid}", 400, kind, not_approved)
    with_a_form_error = not_approved + "; valor.original: must be a positive amount"
    assert not refused_by_state("POST /cobr", 400, kind, with_a_form_error)


def test_a_closed_recurrence_or_request_is_forgiven_on_its_own_operation() -> None:
    closed = "the recurrence is CANCELADA: it takes no change"
    assert refused_by_state("PATCH /rec/{idRec}", 400, TYPE + "RecOperacaoInvalida", closed)
    assert not refused_by_state("PATCH /rec/{idRec}", 400, TYPE + "SolicRecOperacaoInvalida", closed)
    taken = "the request SC9999999920261128cH97doUImYO is ENVIADA"
    assert refused_by_state("POST /solicrec", 400, TYPE + "SolicRecOperacaoInvalida", taken)
    assert not refused_by_state("PATCH /solicrec/{idSolicRec}", 400, TYPE + "SolicRecOperacaoInvalida", taken)


def test_a_charged_cycle_or_a_txid_in_use_is_forgiven_only_where_the_document_says_it() -> None:
    kind = TYPE + "CobROperacaoInvalida"
    cycle = "The recurrence has a recurring charge in this cycle already (one not REJEITADA or CANCELADA)."
    assert refused_by_state("POST /cobr", 400, kind, cycle)
    assert not refused_by_state("PATCH /cobr/{txid}", 400, kind, cycle)
    in_use = "a charge with this txid exists already"
    assert refused_by_state("PUT /cobr/{txid}", 400, kind, in_use)
    assert not refused_by_state("POST /cobr", 400, kind, in_use)
    assert refused_by_state(
        "PATCH /cobr/{txid}", 400, kind, "a CANCELADA recurring charge cannot be cancelled"
    )
    assert not refused_by_state(
        "PATCH /cobr/{txid}", 400, kind, "an ATIVA recurring charge cannot be cancelled"
    )
