"""Rules of the standard that no JSON Schema can say, applied to the positive data schemathesis
generates, so that data valid by the document is also valid by the standard's rules and a refusal
of it is a failure worth reading (the ``positive_data_acceptance`` check).

Only positive cases are changed, and only into other values the document's schemas accept (a
pattern-valid CPF becomes one with the right check digits): negative cases are sent as generated.
These are the standard's rules (its description, the Pix manuals), never a choice of this service:

- a CPF's and a CNPJ's last two digits are check digits;
- ``chave`` of a new charge, and of a webhook, is a Pix key of the receiver (the account signed in);
- an amount of a charge, a refund or a recurrence is more than zero;
- a due date (``dataDeVencimento``), a recurrence's first date (``dataInicial``) and a request's
  expiry (``dataExpiracaoSolicitacao``) are not in the past, and a recurrence's last date
  (``dataFinal``) is not before its first;
- a recurrence's fixed amount (``valorRec``) and minimum (``valorMinimoRecebedor``) are not both
  given;
- a period's ``fim`` is not before its ``inicio``;
- a list's ``cpf`` and ``cnpj`` are not both given;
- a charge's ``loc.id`` and a recurrence's ``loc`` name a location of the account (a generated one
  names none), and a ``status`` that cancels a charge comes alone; its expiry is above zero, its
  days after the due date not below zero (nor so many that the last day to pay is past what a
  ``date`` can write, 9999-12-31), a rebate or discount below its original value (and 100%);
- a txid names one charge of the receiver, whatever its kind;
- an ``ispbParticipante`` is the eight digits the central bank assigns (the document's pattern
  allows capital letters too);
- a ``cob`` with ``retirada`` has ``modalidadeAlteracao`` 0 and an ``original`` of 0.00 with a
  ``saque``, above 0.00 with a ``troco`` (given even on a revision: the charge's may be the other);
- a person's ``uf`` is a state's two letters, a ``cep`` eight digits (the document bounds only
  their lengths), an ``email`` at most 254 characters (RFC 5321; the document sets no bound).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from schemathesis import Case, GenerationMode

from pixcore.documents import cnpj_check_digits, cpf_check_digits
from tests.conformance.recurring import AMOUNT

__all__ = ["Receiver", "repaired"]


@dataclass(frozen=True)
class Receiver:
    """What the account signed in has, which valid data names: its Pix keys, its account's
    number, and a recurrence a payer has authorized (its ``idRec``; its fixed amount is
    :data:`tests.conformance.recurring.AMOUNT`)."""

    keys: list[str]
    account: str = ""
    rec_id: str = ""


AMOUNTS = frozenset({"original", "valor", "valorRec", "valorMinimoRecebedor"})
_CHARGES = re.compile(r"^/cobv?(/\{txid\})?$")
_RECURRENCES = re.compile(r"^/rec(/\{idRec\})?$")
_RECURRING_CHARGES = re.compile(r"^/cobr(/\{txid\})?$")
FUTURE = timedelta(days=365)
MAX_EMAIL = 254
ISPB_LENGTH = 8


def _cpf(text: str) -> str:
    base = text[:9]
    if len(set(base)) == 1:  # eleven equal digits are no CPF
        base = base[:8] + str((int(base[8]) + 1) % 10)
    return base + cpf_check_digits(base)


def _cnpj(text: str) -> str:
    base = text[:12]
    if len(set(base)) == 1:  # fourteen equal digits are no CNPJ either
        base = base[:11] + ("1" if base[11] != "1" else "2")
    return base + cnpj_check_digits(base)


def _is_zero_amount(value: object) -> bool:
    return isinstance(value, str) and value.replace("0", "") == "." and value.endswith(".00")


def _repair_value(name: str, value: Any, keys: list[str], today: date) -> Any:
    if name == "cpf" and isinstance(value, str) and len(value) == 11 and value.isdigit():
        return _cpf(value)
    if name == "cnpj" and isinstance(value, str) and len(value) == 14 and value.isalnum():
        return _cnpj(value.upper())
    if name in AMOUNTS and _is_zero_amount(value):
        return "1.00"
    if name in FUTURE_DATES or name == FUTURE_INSTANT:
        return _future(name, value, today)
    if name == "chave" and isinstance(value, str) and keys:
        return keys[0]
    return _address(name, value) if isinstance(value, str) else _repair(value, keys, today)


FUTURE_DATES = frozenset({"dataDeVencimento", "dataInicial"})
"""Dates of a charge and a recurrence that may not be before the day they are made."""
FUTURE_INSTANT = "dataExpiracaoSolicitacao"
"""A request's expiry, which may not be before the moment it is made."""


def _future(name: str, value: Any, today: date) -> Any:
    """A date (or instant) moved a year ahead when it is earlier."""
    if name == FUTURE_INSTANT:
        moment = _instant(value)
        if moment is not None and moment.date() < today + FUTURE:
            return f"{(today + FUTURE).isoformat()}T12:00:00Z"
    elif isinstance(value, str) and value < (today + FUTURE).isoformat():
        return (today + FUTURE).isoformat()
    return value


def _address(name: str, value: str) -> str:
    """A part of a person's address (``DadosComplementaresPessoa``), an e-mail or an ISPB in the
    form every real one has; any other text as it is."""
    if name == "uf" and not (len(value) == 2 and value.isascii() and value.isalpha()):
        return "SP"
    if name == "cep" and not (len(value) == 8 and value.isascii() and value.isdigit()):
        return "01310100"
    if name == "email" and len(value) > MAX_EMAIL:
        return value[:MAX_EMAIL]
    if name == "ispbParticipante" and len(value) == ISPB_LENGTH and not value.isdigit():
        return "".join(char if char.isdigit() else str(ord(char) % 10) for char in value)
    return value


def _repair(value: Any, keys: list[str], today: date) -> Any:
    if isinstance(value, dict):
        return {name: _repair_value(name, item, keys, today) for name, item in value.items()}
    if isinstance(value, list):
        return [_repair(item, keys, today) for item in value]
    return value


def _instant(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _ordered_period(query: dict[str, Any]) -> dict[str, Any]:
    start, end = _instant(query.get("inicio")), _instant(query.get("fim"))
    if start is not None and end is not None and end < start:
        return {**query, "inicio": query["fim"], "fim": query["inicio"]}
    return query


def _is_positive(case: Case) -> bool:
    meta = case.meta
    return meta is None or meta.generation.mode == GenerationMode.POSITIVE


def _one_document(query: dict[str, Any]) -> dict[str, Any]:
    """``cpf`` and ``cnpj`` of a list's query are one or the other (the description's rule)."""
    if query.get("cpf") is not None and query.get("cnpj") is not None:
        return {name: value for name, value in query.items() if name != "cnpj"}
    return query


def _charge_body(body: dict[str, Any]) -> dict[str, Any]:
    """A charge's body by the description's rules of ``cob`` and ``cobv``: ``loc.id`` names a location
    the account has (a generated number names none: the body goes without it), a ``status`` that
    cancels comes alone, ``calendario.expiracao`` is above zero, ``validadeAposVencimento`` not
    below zero, and a rebate or a discount is below the original value (and below 100%)."""
    body = {name: value for name, value in body.items() if name != "loc"}
    if "status" in body:
        return {"status": body["status"]}
    calendar = body.get("calendario")
    if isinstance(calendar, dict):
        calendar = dict(calendar)
        if isinstance(calendar.get("expiracao"), int) and calendar["expiracao"] <= 0:
            calendar["expiracao"] = 3600
        days = calendar.get("validadeAposVencimento")
        if isinstance(days, int) and not 0 <= days <= MAX_DAYS_AFTER_DUE:
            calendar["validadeAposVencimento"] = 30
        body["calendario"] = calendar
    if isinstance(body.get("valor"), dict):
        body["valor"] = _below_original(body["valor"])
    return body


MAX_DAYS_AFTER_DUE = 2_000_000
"""Days after a due date whose last payable day the document's ``date`` (four-digit years) can still
write (before 9999-12-31)."""
SMALL = "0.01"
"""A rebate or discount every original value (at least 0.01 once repaired) stays above."""


def _below_original(value: dict[str, Any]) -> dict[str, Any]:
    value = dict(value)
    if isinstance(value.get("abatimento"), dict) and "valorPerc" in value["abatimento"]:
        value["abatimento"] = {**value["abatimento"], "valorPerc": SMALL}
    discount = value.get("desconto")
    if isinstance(discount, dict):
        discount = dict(discount)
        if "valorPerc" in discount:
            discount["valorPerc"] = SMALL
        if isinstance(discount.get("descontoDataFixa"), list):
            discount["descontoDataFixa"] = [
                {**item, "valorPerc": SMALL} if isinstance(item, dict) else item
                for item in discount["descontoDataFixa"]
            ]
        value["desconto"] = discount
    return value


def _withdrawal(body: dict[str, Any]) -> dict[str, Any]:
    """A ``cob``'s value with ``retirada`` as its description says: the original's modality 0, the
    original 0.00 with a ``saque`` and above it with a ``troco`` (after ``_repair``, which lifts a
    zero amount to 1.00)."""
    value = body.get("valor")
    if not isinstance(value, dict) or not isinstance(value.get("retirada"), dict):
        return body
    value = {**value, "modalidadeAlteracao": 0}
    matched = [name for name in ("saque", "troco") if _whole(value["retirada"].get(name))]
    if matched == ["saque"]:
        value["original"] = "0.00"
    elif matched == ["troco"] and "original" not in value:
        value["original"] = "1.00"
    return {**body, "valor": value}


def _whole(part: object) -> bool:
    """Whether ``part`` is a ``saque`` or ``troco`` its ``oneOf`` branch matches (the others, beside
    it, are members that branch does not define)."""
    required = ("valor", "modalidadeAgente", "prestadorDoServicoDeSaque")
    return isinstance(part, dict) and all(key in part for key in required)


def _recurrence_body(body: dict[str, Any], today: date) -> dict[str, Any]:
    """A recurrence's body by the error list of ``RecOperacaoInvalida``: ``loc`` names a location
    of the account (a generated number names none: the body goes without it), ``dataFinal`` is not
    before ``dataInicial`` (both moved to the future first), and ``valorRec`` and
    ``valorMinimoRecebedor`` are not both given."""
    body = {name: value for name, value in body.items() if name != "loc"}
    calendar = body.get("calendario")
    if isinstance(calendar, dict):
        first = _repair_value("dataInicial", calendar.get("dataInicial"), [], today)
        last = calendar.get("dataFinal")
        if isinstance(first, str) and isinstance(last, str) and last < first:
            calendar = {**calendar, "dataFinal": first}
        body["calendario"] = calendar
    value = body.get("valor")
    if isinstance(value, dict) and "valorRec" in value and "valorMinimoRecebedor" in value:
        body["valor"] = {name: item for name, item in value.items() if name != "valorMinimoRecebedor"}
    return body


_KIND_MARKS = {"/cobv/": ("V", "W"), "/cobr/": ("R", "S")}


def _apart(case: Case) -> None:
    """A txid names one charge of the receiver, of any kind: a ``cobv``'s and a ``cobr``'s
    generated txid are kept apart from a ``cob``'s (the coverage phase gives them all the same)."""
    txid = (case.path_parameters or {}).get("txid")
    for prefix, (mark, other) in _KIND_MARKS.items():
        if isinstance(txid, str) and txid and case.operation.path.startswith(prefix):
            case.path_parameters = {
                **(case.path_parameters or {}),
                "txid": txid[:-1] + (mark if txid[-1] != mark else other),
            }


def _recurring_charge_body(body: dict[str, Any], receiver: Receiver) -> dict[str, Any]:
    """A recurring charge's body by the error list of ``CobROperacaoInvalida``: of the receiver's
    authorized recurrence (``idRec``) and of its fixed amount, to the receiver's own account
    (``recebedor.conta`` and ``agencia`` name an account of the receiver)."""
    body = {**body, "idRec": receiver.rec_id, "valor": {"original": AMOUNT}}
    payee = body.get("recebedor")
    if isinstance(payee, dict):
        body["recebedor"] = {name: value for name, value in payee.items() if name != "agencia"} | {
            "conta": receiver.account
        }
    return body


def _creates_a_recurring_charge(case: Case) -> bool:
    return (
        case.method.upper() in {"POST", "PUT"} and _RECURRING_CHARGES.match(case.operation.path) is not None
    )


def repaired(case: Case, receiver: Receiver) -> Case:
    """``case`` with the standard's unwritten rules applied, when it is positive data."""
    if not _is_positive(case):
        return case
    keys = receiver.keys
    today = datetime.now(UTC).date()
    if isinstance(case.body, dict) and _CHARGES.match(case.operation.path):
        case.body = _charge_body(case.body)
        _apart(case)
    if isinstance(case.body, dict) and _RECURRENCES.match(case.operation.path):
        case.body = _recurrence_body(case.body, today)
    if _creates_a_recurring_charge(case) and isinstance(case.body, dict) and receiver.rec_id:
        case.body = _recurring_charge_body(case.body, receiver)
        _apart(case)
    if isinstance(case.body, dict | list):
        case.body = _repair(case.body, keys, today)
    if isinstance(case.body, dict) and _CHARGES.match(case.operation.path):
        case.body = _withdrawal(case.body)
    if case.path_parameters and "chave" in case.path_parameters and keys:
        case.path_parameters = {**case.path_parameters, "chave": keys[0]}
    if case.query:
        case.query = _one_document(
            _ordered_period(
                {name: _repair_value(name, value, [], today) for name, value in case.query.items()}
            )
        )
    return case
