"""A recurrence a payer has authorized, made before the run through the standard's face and the
sandbox's payer: the standard creates recurring charges only of such a recurrence, and no
operation of the document authorizes one (the payer's bank does), so the suite's own
recurrences stay CRIADA. Valid charges name this one (:mod:`tests.conformance.data`)."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from pixcore.recurrences.closing import today_of
from tests.fuzz.service import Target
from tests.support import random_cpf

__all__ = ["AMOUNT", "authorize_a_recurrence"]

AMOUNT = "10.00"
"""The recurrence's fixed amount, which each of its charges has."""
PAYER_ISPB = "12345678"


def _ok(response: httpx.Response) -> dict[str, object]:
    if response.is_error:
        raise RuntimeError(f"{response.request.method} {response.request.url}: {response.text}")
    body: dict[str, object] = response.json()
    return body


def authorize_a_recurrence(target: Target, prefix: str) -> str:
    """The ``idRec`` of a monthly recurrence of :data:`AMOUNT` from today, with no last date, a
    payer's authorization given (JORNADA_2: the payer read its own code)."""
    payer = random_cpf()
    today = today_of(datetime.now(UTC))
    auth = {"Authorization": f"Bearer {target.token()}"}
    with httpx.Client(base_url=target.base_url, headers=auth, timeout=30) as http:
        loc = _ok(http.post(f"{prefix}/locrec"))
        made = _ok(
            http.post(
                f"{prefix}/rec",
                json={
                    "vinculo": {"contrato": "conformance", "devedor": {"cpf": payer, "nome": "Pagador"}},
                    "calendario": {"dataInicial": today.isoformat(), "periodicidade": "MENSAL"},
                    "valor": {"valorRec": AMOUNT},
                    "politicaRetentativa": "PERMITE_3R_7D",
                    "loc": loc["id"],
                },
            )
        )
        rec_id = str(made["idRec"])
        code = _ok(http.get(f"{prefix}/rec/{rec_id}"))["dadosQR"]
        assert isinstance(code, dict)
        _ok(
            http.post(
                "/sandbox/rec/authorize",
                json={
                    "pixCopiaECola": code["pixCopiaECola"],
                    "payer": {"document": payer, "ispb": PAYER_ISPB},
                },
            )
        )
    return rec_id
