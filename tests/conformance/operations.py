"""The operations of the central bank's standard Pix API that this service implements: the one
place that says which (a new one, such as ``/cobv`` or ``/webhook/{chave}``, is one line of
:data:`IMPLEMENTED`), each with the bodies and path values the service accepts, so that positive
data reaches the success paths and the response schemas of the standard are checked on real data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.service import HOOK, Target
from tests.support import random_cpf

Strategy = st.SearchStrategy[Any]

_centavos = st.integers(min_value=1, max_value=500_00)
_amount = _centavos.map(lambda cents: f"{cents // 100}.{cents % 100:02d}")
_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=140)
_txid = st.from_regex(r"[a-zA-Z0-9]{26,35}", fullmatch=True)
_refund_id = st.from_regex(r"[a-zA-Z0-9]{1,35}", fullmatch=True)


def _cob(target: Target) -> Strategy:
    return st.fixed_dictionaries(
        {
            # Required by the standard (the service would take the account's first key without it).
            "chave": st.sampled_from(target.account.keys),
            "calendario": st.fixed_dictionaries(
                {}, optional={"expiracao": st.integers(min_value=1, max_value=2**31 - 1)}
            ),
            "valor": st.fixed_dictionaries({"original": _amount}),
        },
        optional={"solicitacaoPagador": _text},
    )


def _revision(_target: Target) -> Strategy:
    return st.one_of(
        st.fixed_dictionaries({"solicitacaoPagador": _text}),
        st.fixed_dictionaries({"valor": st.fixed_dictionaries({"original": _amount})}),
        # Long enough that the charge kept for revisions never expires under the suite.
        st.fixed_dictionaries(
            {"calendario": st.fixed_dictionaries({"expiracao": st.integers(86400 * 365, 2**31 - 1)})}
        ),
    )


_due_date = st.dates(min_value=date(2030, 1, 1), max_value=date(2080, 12, 31)).map(date.isoformat)
_debtor = st.builds(lambda cpf: {"cpf": cpf, "nome": "Conformance Debtor"}, st.builds(random_cpf))


def _cobv(target: Target) -> Strategy:
    return st.fixed_dictionaries(
        {
            "chave": st.sampled_from(target.account.keys),
            "calendario": st.fixed_dictionaries(
                {"dataDeVencimento": _due_date},
                optional={"validadeAposVencimento": st.integers(min_value=0, max_value=3650)},
            ),
            "devedor": _debtor,
            "valor": st.fixed_dictionaries(
                {"original": _amount},
                optional={
                    "multa": st.fixed_dictionaries(
                        {"modalidade": st.just(2), "valorPerc": st.sampled_from(["1.00", "2.00"])}
                    ),
                    "juros": st.fixed_dictionaries(
                        {"modalidade": st.integers(1, 8), "valorPerc": st.sampled_from(["0.10", "1.00"])}
                    ),
                },
            ),
        },
        optional={"solicitacaoPagador": _text},
    )


def _due_revision(_target: Target) -> Strategy:
    return st.one_of(
        st.fixed_dictionaries({"solicitacaoPagador": _text}),
        st.fixed_dictionaries({"valor": st.fixed_dictionaries({"original": _amount})}),
        st.fixed_dictionaries({"calendario": st.fixed_dictionaries({"dataDeVencimento": _due_date})}),
    )


def _batch(target: Target) -> Strategy:
    charge = st.tuples(_txid, _cobv(target)).map(lambda pair: pair[1] | {"txid": pair[0]})
    return st.fixed_dictionaries(
        {
            "descricao": st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=140),
            "cobsv": st.lists(charge, min_size=1, max_size=3, unique_by=lambda c: c["txid"]),
        }
    )


def _batch_revision(target: Target) -> Strategy:
    txid = st.sampled_from(target.known["batch_txid"])
    change = st.tuples(txid, _due_revision(target)).map(lambda pair: pair[1] | {"txid": pair[0]})
    return st.fixed_dictionaries({"cobsv": st.lists(change, min_size=1, max_size=1)})


_batch_id = st.integers(min_value=0, max_value=2**31 - 1).map(str)


def _webhook(_target: Target) -> Strategy:
    return st.just({"webhookUrl": HOOK})


def _refund(_target: Target) -> Strategy:
    return st.fixed_dictionaries({"valor": st.sampled_from(["0.01", "0.02", "0.03"])})


@dataclass(frozen=True)
class Operation:
    """What the service accepts for one operation, beyond what the standard's schemas say."""

    body: Callable[[Target], Strategy] | None = None
    """Bodies the service accepts (None: no body, or the generated ones reach success alone)."""
    fresh: dict[str, Strategy] = field(default_factory=dict)
    """Path parameters that name something to create: well-formed values not used yet."""
    known: dict[str, str] = field(default_factory=dict)
    """Path parameters that name something that exists: the key of ``Target.known`` to draw from."""
    negative: bool = True
    """False when the standard's document leaves nothing of the request invalid (``/loc/{id}``: an
    ``id`` of any text, no query, no body), so no negative data exists to send."""


IMPLEMENTED: dict[str, Operation] = {
    "PUT /cob/{txid}": Operation(body=_cob, fresh={"txid": _txid}),
    "PATCH /cob/{txid}": Operation(body=_revision, known={"txid": "revisable"}),
    "GET /cob/{txid}": Operation(known={"txid": "txid"}),
    "POST /cob": Operation(body=_cob),
    "GET /cob": Operation(),
    "GET /pix/{e2eid}": Operation(known={"e2eid": "received"}),
    "GET /pix": Operation(),
    "PUT /pix/{e2eid}/devolucao/{id}": Operation(
        body=_refund, known={"e2eid": "received"}, fresh={"id": _refund_id}
    ),
    "GET /pix/{e2eid}/devolucao/{id}": Operation(known={"e2eid": "received", "id": "refund_id"}),
    "PUT /cobv/{txid}": Operation(body=_cobv, fresh={"txid": _txid}),
    "PATCH /cobv/{txid}": Operation(body=_due_revision, known={"txid": "due"}),
    "GET /cobv/{txid}": Operation(known={"txid": "due"}),
    "GET /cobv": Operation(),
    "PUT /lotecobv/{id}": Operation(body=_batch, fresh={"id": _batch_id}),
    "PATCH /lotecobv/{id}": Operation(body=_batch_revision, known={"id": "batch"}),
    "GET /lotecobv/{id}": Operation(known={"id": "batch"}),
    "GET /lotecobv": Operation(),
    "PUT /webhook/{chave}": Operation(body=_webhook, known={"chave": "pix_key"}),
    "GET /webhook/{chave}": Operation(known={"chave": "pix_key"}),
    "DELETE /webhook/{chave}": Operation(known={"chave": "pix_key"}),
    "GET /webhook": Operation(),
    "POST /loc": Operation(),
    "GET /loc": Operation(),
    "GET /loc/{id}": Operation(known={"id": "loc"}, negative=False),
    "DELETE /loc/{id}/txid": Operation(known={"id": "loc"}, negative=False),
}
"""``METHOD /path`` of the standard's document: what the service implements of it."""


NOTHING_NEGATIVE = frozenset({"GET /lotecobv/{id}"})
"""Operations whose only input in the standard is a path parameter of any text (no pattern, no
query, no body): no data breaks their schema, so there is no negative data to send; the negative
test checks that this is still so."""
