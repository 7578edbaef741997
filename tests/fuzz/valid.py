"""Requests that the service's rules accept, for the operations whose document is looser than
those rules (amounts as strings of 2 decimals, keys that exist, a required idempotency key).

Generated bodies from the document alone are nearly all refused with a 400; mixing these in lets
the fuzzer reach the success paths (money moving, charges created and cancelled, refunds, MED)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from pixcore.webhooks.rules import REGISTRABLE
from tests.fuzz.service import HOOK, Target
from tests.support import random_cpf

Body = st.SearchStrategy[dict[str, Any]]

_centavos = st.integers(min_value=1, max_value=500_00)
_reais = _centavos.map(lambda cents: cents / 100)  # a JSON number of at most 2 decimals
_reais_text = _centavos.map(lambda cents: f"{cents / 100:.2f}")
_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=140)
_cpf = st.randoms(use_true_random=False).map(random_cpf)
# Due dates from 1 to 60 days after the wall clock's today (the fuzzed service's clock only moves on).
_days_ahead = st.integers(min_value=1, max_value=60).map(
    lambda days: (datetime.now(UTC).date() + timedelta(days=days)).isoformat()
)


def valid_bodies(target: Target) -> dict[str, Body]:
    """A strategy of accepted bodies, by operation label (``METHOD /path``)."""
    own, other = target.account, target.other
    received = target.known["e2eid"][:1]
    return {
        "POST /api/auth/token": st.just(own.credentials),
        "POST /oauth/token": st.just(
            {
                "grant_type": "client_credentials",
                "client_id": own.client_id,
                "client_secret": own.client_secret,
            }
        ),
        "PUT /cob/{txid}": st.fixed_dictionaries(
            {
                "calendario": st.fixed_dictionaries(
                    {}, optional={"expiracao": st.integers(min_value=1, max_value=2**31 - 1)}
                ),
                "valor": st.fixed_dictionaries({"original": _reais_text}),
            },
            optional={"solicitacaoPagador": _text},
        ),
        "PATCH /cob/{txid}": st.just({"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}),
        "PUT /cobv/{txid}": st.fixed_dictionaries(
            {
                "calendario": st.fixed_dictionaries(
                    {"dataDeVencimento": _days_ahead},
                    optional={"validadeAposVencimento": st.integers(min_value=0, max_value=3_650)},
                ),
                "valor": st.fixed_dictionaries(
                    {"original": _reais_text},
                    optional={
                        "multa": st.fixed_dictionaries(
                            {"modalidade": st.just(2), "valorPerc": st.sampled_from(["1.00", "2.00"])}
                        ),
                        "juros": st.fixed_dictionaries(
                            {"modalidade": st.integers(2, 8), "valorPerc": st.sampled_from(["0.10", "1.00"])}
                        ),
                    },
                ),
                "devedor": st.fixed_dictionaries({"cpf": _cpf, "nome": st.just("Fuzz Debtor")}),
            },
            optional={"solicitacaoPagador": _text},
        ),
        "PATCH /cobv/{txid}": st.just({"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}),
        "POST /dict/pix": st.fixed_dictionaries(
            {
                "pixKey": st.sampled_from(other.keys),
                "payment": st.fixed_dictionaries({"amount": _reais, "currency": st.just("BRL")}),
            },
            optional={"description": _text, "priority": st.sampled_from(["HIGH", "NORM"])},
        ),
        "POST /sandbox/payments": st.fixed_dictionaries(
            {"pixKey": st.sampled_from(own.keys), "amount": _reais}
        ),
        "POST /api/pix/cash-in": st.fixed_dictionaries(
            {
                "transaction": st.fixed_dictionaries(
                    {
                        "value": _reais,
                        "description": _text,
                        "externalId": st.uuids().map(str),
                    },
                    optional={"generateQrCode": st.booleans()},
                ),
                "payer": st.fixed_dictionaries({"fullName": st.just("Fuzz Payer"), "document": _cpf}),
            }
        ),
        "PUT /pix/{e2eid}/devolucao/{refund_id}": st.fixed_dictionaries({"valor": _reais_text}),
        "POST /api/webhooks": st.fixed_dictionaries(
            {"url": st.just(HOOK), "eventType": st.sampled_from([kind.value for kind in REGISTRABLE])}
        ),
        "POST /sandbox/med": st.fixed_dictionaries(
            {
                "endToEndId": st.sampled_from(received),
                "reason": st.sampled_from(["MED_FRAUDE", "MED_OPERACIONAL"]),
            }
        ),
    }


def fresh_path_values() -> dict[str, st.SearchStrategy[str]]:
    """Well-formed identifiers of things that do not exist yet (a charge's txid, a refund's id)."""
    return {
        "txid": st.from_regex(r"[a-zA-Z0-9]{26,35}", fullmatch=True),
        "refund_id": st.from_regex(r"[a-zA-Z0-9]{1,35}", fullmatch=True),
    }


def with_client_certificate(target: Target, headers: dict[str, Any] | None) -> st.SearchStrategy[Any]:
    """The headers as generated, or with the signed-in account's certificate (token endpoints)."""
    generated = dict(headers or {})
    cert = target.account.cert_header
    # And the certificate with a NUL in it, before or after the PEM (text the service cannot store).
    with_nul = [{**generated, "X-SSL-Client-Cert": value} for value in ("%00" + cert, cert + "%00")]
    return st.sampled_from([generated, {**generated, "X-SSL-Client-Cert": cert}, *with_nul])


def with_idempotency_key(headers: dict[str, Any] | None) -> st.SearchStrategy[dict[str, Any]]:
    """The headers as generated, or with a fresh ``x-idempotency-key`` (a UUID v4)."""
    generated = dict(headers or {})
    keyed = st.uuids(version=4).map(lambda key: {**generated, "x-idempotency-key": str(key)})
    return st.one_of(st.just(generated), keyed)
