"""The wire's structs of a recurrence (``/rec``): the bodies of ``POST /rec`` and
``PATCH /rec/{idRec}`` (the standard's ``RecSolicitada``, ``RecRevisada``) and the answers
(``RecGerada``, ``RecCompleta``, ``RecsConsultadas``, the payload's ``RecPayload``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from pixcore.recurrences.requests import MAX_AGREEMENT, MAX_CONTRACT, MAX_DEBTOR_NAME, MAX_PURPOSE
from pixweb.api.fields import Int64, MoneyText, Timestamp
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import PeriodOut
from pixweb.recurrences.schemas._parts import (
    AccountText,
    BranchText,
    ClosingOut,
    CnpjText,
    CpfText,
    Day,
    HistoryOut,
    IspbText,
    RecId,
    TxidText,
    text,
)

__all__ = [
    "ActivationIn",
    "ActivationOut",
    "CalendarIn",
    "DebtorIn",
    "JourneyDataIn",
    "LinkIn",
    "PayerOut",
    "QrOut",
    "RecIn",
    "RecLocOut",
    "RecOut",
    "RecPatchIn",
    "RecPayloadOut",
    "RecQueryOut",
    "ReceiverOut",
    "RecipientIn",
    "RecipientOut",
    "RecsOut",
    "RequestCalendarIn",
    "SolicRecIn",
    "SolicRecOut",
    "SolicRecPatchIn",
    "ValueIn",
]

_Name = Annotated[str, text(MAX_DEBTOR_NAME, "A name.")]


class DebtorIn(WireStruct, kw_only=True):
    """``vinculo.devedor``: a CPF or a CNPJ (one), and a name."""

    cpf: CpfText | None = None
    cnpj: CnpjText | None = None
    nome: _Name


class LinkIn(WireStruct, kw_only=True):
    """``vinculo``: the contract, its debtor and what it is for."""

    objeto: Annotated[str, text(MAX_PURPOSE, "What the recurrence is for.")] | None = None
    devedor: DebtorIn
    contrato: Annotated[str, text(MAX_CONTRACT, "The contract's number or code.")]


class CalendarIn(WireStruct, kw_only=True):
    data_inicial: Day
    data_final: Day | None = None
    periodicidade: Annotated[str, text(10, "SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL or ANUAL.")]


class ValueIn(WireStruct):
    valor_rec: MoneyText | None = None
    valor_minimo_recebedor: MoneyText | None = None


class AgreementIn(WireStruct):
    convenio: Annotated[str, text(MAX_AGREEMENT, "The agreement with the receiver's PSP.")] | None = None


class JourneyDataIn(WireStruct):
    txid: TxidText


class ActivationIn(WireStruct):
    dados_jornada: JourneyDataIn | None = None


class RecIn(WireStruct, kw_only=True):
    """The standard's ``RecSolicitada``."""

    vinculo: LinkIn
    calendario: CalendarIn
    valor: ValueIn | None = None
    recebedor: AgreementIn | None = None
    politica_retentativa: Annotated[str, text(13, "NAO_PERMITE or PERMITE_3R_7D.")]
    loc: Int64 | None = None
    ativacao: ActivationIn | None = None


class DebtorNameIn(WireStruct):
    nome: _Name


class LinkPatchIn(WireStruct):
    devedor: DebtorNameIn | None = None


class CalendarPatchIn(WireStruct):
    data_inicial: Day | None = None


class RecPatchIn(WireStruct):
    """The standard's ``RecRevisada``: the changes, and status CANCELADA (after them)."""

    status: Annotated[str, text(9, "CANCELADA.")] | None = None
    vinculo: LinkPatchIn | None = None
    loc: Int64 | None = None
    calendario: CalendarPatchIn | None = None
    ativacao: ActivationIn | None = None


class DebtorOut(WireStruct, omit_defaults=True):
    nome: str
    """Always written, the empty text too (the standard's schemas require it and set no minimum)."""
    cpf: str | None = None
    cnpj: str | None = None


class LinkOut(WireStruct, omit_defaults=True):
    contrato: str
    devedor: DebtorOut
    objeto: str | None = None


class RecCalendarOut(WireStruct, omit_defaults=True):
    data_inicial: str
    periodicidade: str
    data_final: str | None = None


class ValueOut(WireStruct, omit_defaults=True):
    valor_rec: str | None = None
    valor_minimo_recebedor: str | None = None


class ReceiverOut(WireStruct, omit_defaults=True):
    """``recebedor``: the account's holder (its CNPJ, or the CPF of a person), with its agreement
    or (in the payload) its institution."""

    nome: str
    cnpj: str | None = None
    cpf: str | None = None
    convenio: str | None = None
    ispb_participante: str | None = None


class PayerOut(WireStruct, omit_defaults=True):
    ispb_participante: str
    cpf: str | None = None
    cnpj: str | None = None
    cod_mun: str | None = None


class RecLocOut(WireStruct, omit_defaults=True):
    """The standard's ``PayloadLocationRecCompleta``."""

    id: Int64
    location: str
    criacao: Timestamp
    id_rec: str | None = None


class JourneyDataOut(WireStruct):
    txid: str


class ActivationOut(WireStruct, omit_defaults=True):
    tipo_jornada: str
    dados_jornada: JourneyDataOut | None = None


class QrOut(WireStruct):
    """``dadosQR``: the composite code of a journey."""

    jornada: str
    pix_copia_e_cola: str


class RecPayloadOut(WireStruct, omit_defaults=True, kw_only=True):
    """The standard's ``RecPayload``: what a payer's bank reads at a recurrence's location."""

    id_rec: str
    vinculo: LinkOut
    calendario: RecCalendarOut
    valor: ValueOut | None = None
    recebedor: ReceiverOut
    politica_retentativa: str
    atualizacao: list[HistoryOut]


class RecipientIn(WireStruct, kw_only=True):
    """``destinatario``: the holder asked, by a CPF or a CNPJ, at an institution, with the account."""

    cpf: CpfText | None = None
    cnpj: CnpjText | None = None
    conta: AccountText
    ispb_participante: IspbText
    agencia: BranchText | None = None


class RequestCalendarIn(WireStruct):
    data_expiracao_solicitacao: Annotated[str, text(40, "Until when the holder may answer (RFC 3339).")]


class SolicRecIn(WireStruct, kw_only=True):
    """The standard's ``SolicRecSolicitada``."""

    id_rec: RecId
    calendario: RequestCalendarIn
    destinatario: RecipientIn


class SolicRecPatchIn(WireStruct):
    """The standard's ``SolicRecRevisada``: status CANCELADA."""

    status: Annotated[str, text(9, "CANCELADA.")]


class RecipientOut(WireStruct, omit_defaults=True):
    conta: str
    ispb_participante: str
    cpf: str | None = None
    cnpj: str | None = None
    agencia: str | None = None


class RequestCalendarOut(WireStruct):
    data_expiracao_solicitacao: Timestamp


class SolicRecOut(WireStruct, omit_defaults=True, kw_only=True):
    """The standard's ``SolicRecCompleta``."""

    id_solic_rec: str
    id_rec: str
    calendario: RequestCalendarOut
    destinatario: RecipientOut
    status: str
    atualizacao: list[HistoryOut]
    rec_payload: RecPayloadOut | None = None


class RecOut(WireStruct, omit_defaults=True, kw_only=True):
    """The standard's ``RecGerada`` and ``RecCompleta`` (``pagador``, ``solicitacao`` and
    ``dadosQR`` given by ``GET /rec/{idRec}`` only)."""

    id_rec: str
    vinculo: LinkOut
    calendario: RecCalendarOut
    valor: ValueOut | None = None
    recebedor: ReceiverOut
    pagador: PayerOut | None = None
    status: str
    politica_retentativa: str
    loc: RecLocOut | None = None
    atualizacao: list[HistoryOut]
    encerramento: ClosingOut | None = None
    solicitacao: list[SolicRecOut] | None = None
    ativacao: ActivationOut
    dados_qr: QrOut | None = msgspec.field(default=None, name="dadosQR")


class RecQueryOut(PeriodOut, omit_defaults=True):
    """The standard's ``ParametrosConsultaRec``."""

    cpf: str | None = None
    cnpj: str | None = None
    location_presente: bool | None = None
    status: str | None = None
    recebedor: AgreementIn | None = None


class RecsOut(WireStruct):
    parametros: RecQueryOut
    recs: list[RecOut]
