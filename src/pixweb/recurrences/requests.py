"""The bodies and path values of Pix Automático, read into ``pixcore``'s typed requests: the
wire's names of their fields (for the errors), and what only the wire can get wrong (a text that
is no periodicity, a debtor with both a CPF and a CNPJ, a date that is no date). The domain's own
rules are ``pixcore.recurrences.requests``' ``judge``, which the use cases run."""

from __future__ import annotations

import enum
import re
from datetime import date, datetime
from typing import TypeVar

from pixcore.clock import parse_timestamp
from pixcore.errors import ValidationError
from pixcore.money import parse_amount_string
from pixcore.problems import Field, Problem
from pixcore.queries.standard import RFC3339_PATTERN
from pixcore.recurrences import (
    AccountType,
    ChargeTerms,
    Debtor,
    Payer,
    Periodicity,
    RecurrenceField,
    RecurrenceQueryField,
    RecurrenceRevision,
    RecurrenceStatus,
    RecurrenceTerms,
    RecurringChargeField,
    RecurringChargeStatus,
    RequestField,
    RequestStatus,
    RequestTerms,
    RetryPolicy,
)
from pixcore.validation import collect
from pixweb.field_paths import wire_paths
from pixweb.recurrences.schemas import CobRIn, CobRPatchIn, RecIn, RecPatchIn, SolicRecIn, SolicRecPatchIn
from pixweb.recurrences.schemas._rec import DebtorIn

__all__ = [
    "RecurrenceWireField",
    "charge_cancel",
    "charge_terms",
    "recurrence_revision",
    "recurrence_terms",
    "request_cancel",
    "request_terms",
    "retry_day",
]

E = TypeVar("E", bound=enum.StrEnum)
_RFC3339 = re.compile(RFC3339_PATTERN)


class RecurrenceWireField(Field):
    """The fields whose only rule is the document's enumeration or shape (read here)."""

    PERIODICITY = enum.auto()
    RETRY_POLICY = enum.auto()
    ACCOUNT_TYPE = enum.auto()
    REQUEST_STATUS = enum.auto()


RECURRENCE_PATHS = wire_paths(
    {
        RecurrenceField.CONTRACT: "vinculo.contrato",
        RecurrenceField.DEBTOR: "vinculo.devedor",
        RecurrenceField.DEBTOR_NAME: "vinculo.devedor.nome",
        RecurrenceField.PURPOSE: "vinculo.objeto",
        RecurrenceField.START: "calendario.dataInicial",
        RecurrenceField.END: "calendario.dataFinal",
        RecurrenceField.FIXED_AMOUNT: "valor.valorRec",
        RecurrenceField.MINIMUM_AMOUNT: "valor.valorMinimoRecebedor",
        RecurrenceField.AGREEMENT: "recebedor.convenio",
        RecurrenceField.RECEIVER: "recebedor",
        RecurrenceField.LOC_ID: "loc",
        RecurrenceField.JOURNEY_TXID: "ativacao.dadosJornada.txid",
        RecurrenceField.STATUS: "status",
        RecurrenceWireField.PERIODICITY: "calendario.periodicidade",
        RecurrenceWireField.RETRY_POLICY: "politicaRetentativa",
        RecurrenceWireField.ACCOUNT_TYPE: "recebedor.tipoConta",
        RecurrenceWireField.REQUEST_STATUS: "status",
    }
)
REQUEST_PATHS = wire_paths(
    {
        RequestField.REC_ID: "idRec",
        RequestField.EXPIRES_AT: "calendario.dataExpiracaoSolicitacao",
        RequestField.RECIPIENT: "destinatario",
        RequestField.RECIPIENT_ISPB: "destinatario.ispbParticipante",
        RequestField.RECIPIENT_ACCOUNT: "destinatario.conta",
        RequestField.RECIPIENT_BRANCH: "destinatario.agencia",
    }
)
CHARGE_PATHS = wire_paths(
    {
        RecurringChargeField.REC_ID: "idRec",
        RecurringChargeField.DUE_DATE: "calendario.dataDeVencimento",
        RecurringChargeField.AMOUNT: "valor.original",
        RecurringChargeField.INFORMATION: "infoAdicional",
        RecurringChargeField.RECEIVER_ACCOUNT: "recebedor.conta",
        RecurringChargeField.RECEIVER_BRANCH: "recebedor.agencia",
        RecurringChargeField.STATUS: "status",
        RecurringChargeField.RETRY_DATE: "data",
    }
)
QUERY_PATHS = wire_paths(
    {
        RecurrenceQueryField.AGREEMENT: "convenio",
        RecurrenceQueryField.REC_ID: "idRec",
        RecurrenceQueryField.REC_PRESENT: "idRecPresente",
    }
)


def _refuse(problems: list[Problem], summary: str) -> ValidationError:
    return ValidationError(problems=problems, summary=summary)


def _member(kind: type[E], text: str) -> E:
    try:
        return kind(text)
    except ValueError:
        raise ValidationError("must be one of " + ", ".join(kind)) from None


def _document(cpf: str | None, cnpj: str | None) -> str:
    if (cpf is None) == (cnpj is None):
        raise ValidationError("give cpf or cnpj, one of them")
    return cpf or cnpj or ""


def _cents(text: str | None) -> int | None:
    return None if text is None else parse_amount_string(text)


def _debtor(problems: list[Problem], debtor: DebtorIn) -> Debtor:
    document = collect(problems, RecurrenceField.DEBTOR, lambda: _document(debtor.cpf, debtor.cnpj))
    return Debtor(document or "", debtor.nome)


def recurrence_terms(body: RecIn) -> RecurrenceTerms:
    """``POST /rec``'s body as ``pixcore``'s terms (what the wire alone can break: one error)."""
    problems: list[Problem] = []
    debtor = _debtor(problems, body.vinculo.devedor)
    periodicity = collect(
        problems,
        RecurrenceWireField.PERIODICITY,
        lambda: _member(Periodicity, body.calendario.periodicidade),
    )
    policy = collect(
        problems, RecurrenceWireField.RETRY_POLICY, lambda: _member(RetryPolicy, body.politica_retentativa)
    )
    if problems or periodicity is None or policy is None:
        raise _refuse(problems, "Invalid recurrence: {}")
    value, activation = body.valor, body.ativacao
    journey = activation.dados_jornada if activation is not None else None
    return RecurrenceTerms(
        contract=body.vinculo.contrato,
        debtor=debtor,
        purpose=body.vinculo.objeto,
        start=body.calendario.data_inicial,
        end=body.calendario.data_final,
        periodicity=periodicity,
        fixed_amount=_cents(value.valor_rec) if value else None,
        minimum_amount=_cents(value.valor_minimo_recebedor) if value else None,
        retry_policy=policy,
        agreement=body.recebedor.convenio if body.recebedor else None,
        loc_id=body.loc,
        journey_txid=journey.txid if journey else None,
    )


def recurrence_revision(body: RecPatchIn) -> RecurrenceRevision:
    """``PATCH /rec/{idRec}``'s body: the changes, and status CANCELADA, which comes after them."""
    if body.status is not None and body.status != RecurrenceStatus.CANCELADA:
        problem = Problem.of(RecurrenceField.STATUS, "must be CANCELADA")
        raise _refuse([problem], "Invalid recurrence change: {}")
    debtor = body.vinculo.devedor if body.vinculo else None
    journey = body.ativacao.dados_jornada if body.ativacao else None
    return RecurrenceRevision(
        cancel=body.status is not None,
        debtor_name=debtor.nome if debtor else None,
        loc_id=body.loc,
        start=body.calendario.data_inicial if body.calendario else None,
        journey_txid=journey.txid if journey else None,
    )


def _instant(text: str) -> datetime:
    if _RFC3339.fullmatch(text) is None:
        raise ValidationError("must be an RFC 3339 date and time with an offset")
    return parse_timestamp(text)


def request_terms(body: SolicRecIn) -> RequestTerms:
    """``POST /solicrec``'s body as ``pixcore``'s terms."""
    problems: list[Problem] = []
    recipient = body.destinatario
    expires = collect(
        problems, RequestField.EXPIRES_AT, lambda: _instant(body.calendario.data_expiracao_solicitacao)
    )
    document = collect(problems, RequestField.RECIPIENT, lambda: _document(recipient.cpf, recipient.cnpj))
    if problems or expires is None or document is None:
        raise _refuse(problems, "Invalid request: {}")
    return RequestTerms(
        rec_id=body.id_rec,
        expires_at=expires,
        recipient=Payer(document, recipient.ispb_participante),
        recipient_account=recipient.conta,
        recipient_branch=recipient.agencia,
    )


def request_cancel(body: SolicRecPatchIn) -> None:
    """``PATCH /solicrec/{idSolicRec}``'s body: status CANCELADA, the only change there is."""
    if body.status != RequestStatus.CANCELADA:
        problem = Problem.of(RecurrenceWireField.REQUEST_STATUS, "must be CANCELADA")
        raise _refuse([problem], "Invalid request change: {}")


def charge_terms(body: CobRIn) -> ChargeTerms:
    """``PUT``/``POST /cobr``'s body as ``pixcore``'s terms."""
    problems: list[Problem] = []
    account_type = collect(
        problems, RecurrenceWireField.ACCOUNT_TYPE, lambda: _member(AccountType, body.recebedor.tipo_conta)
    )
    amount = collect(problems, RecurringChargeField.AMOUNT, lambda: parse_amount_string(body.valor.original))
    if problems or account_type is None or amount is None:
        raise _refuse(problems, "Invalid recurring charge: {}")
    address = body.devedor
    return ChargeTerms(
        rec_id=body.id_rec,
        due_date=body.calendario.data_de_vencimento,
        amount=amount,
        adjust_to_business_day=body.ajuste_dia_util,
        information=body.info_adicional,
        receiver_account=body.recebedor.conta,
        receiver_branch=body.recebedor.agencia,
        receiver_account_type=account_type,
        debtor_email=address.email if address else None,
        debtor_street=address.logradouro if address else None,
        debtor_city=address.cidade if address else None,
        debtor_state=address.uf if address else None,
        debtor_postal_code=address.cep if address else None,
    )


def charge_cancel(body: CobRPatchIn) -> bool:
    """``PATCH /cobr/{txid}``'s body: whether it cancels (status CANCELADA; no status: no change)."""
    if body.status is None:
        return False
    if body.status != RecurringChargeStatus.CANCELADA:
        problem = Problem.of(RecurringChargeField.STATUS, "must be CANCELADA")
        raise _refuse([problem], "Invalid recurring charge change: {}")
    return True


def retry_day(text: str) -> date:
    """The path's ``{data}`` of ``POST /cobr/{txid}/retentativa/{data}``: a date, YYYY-MM-DD."""
    problem = Problem.of(RecurringChargeField.RETRY_DATE, "must be a date, YYYY-MM-DD")
    if len(text) != len("YYYY-MM-DD"):
        raise _refuse([problem], "Invalid retry: {}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise _refuse([problem], "Invalid retry: {}") from None
