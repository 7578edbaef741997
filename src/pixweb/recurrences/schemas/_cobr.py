"""The wire's structs of a recurring charge (``/cobr``): the body of ``PUT``/``POST /cobr``
(the standard's ``CobRSolicitada``), its revision (``CobRRevisada``) and the answers
(``CobRGerada``, ``CobRCompleta``, ``CobsRConsultadas``)."""

from __future__ import annotations

from typing import Annotated

from pixcore.recurrences.requests import MAX_INFORMATION
from pixweb.api.fields import MoneyText, Timestamp
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import PeriodOut
from pixweb.recurrences.schemas._parts import (
    AccountText,
    BranchText,
    ClosingOut,
    Day,
    HistoryOut,
    RecId,
    RejectionOut,
    text,
)

__all__ = [
    "CobRAttemptOut",
    "CobRIn",
    "CobROut",
    "CobRPatchIn",
    "CobRQueryOut",
    "CobsROut",
    "PaidOut",
]


class DueIn(WireStruct):
    data_de_vencimento: Day


class AmountIn(WireStruct):
    original: MoneyText


class AccountIn(WireStruct, kw_only=True):
    conta: AccountText
    tipo_conta: Annotated[str, text(9, "CORRENTE, POUPANCA or PAGAMENTO.")]
    agencia: BranchText | None = None


class AddressIn(WireStruct):
    """``devedor`` of a recurring charge: how to reach the debtor (its name and document are the
    recurrence's)."""

    email: Annotated[str, text(140, "An e-mail.")] | None = None
    logradouro: Annotated[str, text(200, "The street.")] | None = None
    cidade: Annotated[str, text(200, "The city.")] | None = None
    uf: Annotated[str, text(2, "The state.")] | None = None
    cep: Annotated[str, text(9, "The postal code.")] | None = None


class CobRIn(WireStruct, kw_only=True):
    """The standard's ``CobRSolicitada``."""

    id_rec: RecId
    info_adicional: Annotated[str, text(MAX_INFORMATION, "Shown to the payer.")] | None = None
    calendario: DueIn
    valor: AmountIn
    ajuste_dia_util: bool = True
    recebedor: AccountIn
    devedor: AddressIn | None = None


class CobRPatchIn(WireStruct):
    """The standard's ``CobRRevisada``: status CANCELADA (its schema requires nothing: without a
    status, nothing changes)."""

    status: Annotated[str, text(9, "CANCELADA.")] | None = None


class CobRCalendarOut(WireStruct):
    criacao: str
    data_de_vencimento: str


class AmountOut(WireStruct):
    original: str


class AccountOut(WireStruct, omit_defaults=True):
    """``recebedor`` of a recurring charge: the account paid into and its holder (the standard's
    ``DadosBancariosRecebedor`` with ``PessoaJuridicaRecorrencia``)."""

    conta: str
    tipo_conta: str
    nome: str
    agencia: str | None = None
    cpf: str | None = None
    cnpj: str | None = None


class AddressOut(WireStruct, omit_defaults=True):
    email: str | None = None
    logradouro: str | None = None
    cidade: str | None = None
    uf: str | None = None
    cep: str | None = None


class CobRAttemptOut(WireStruct, omit_defaults=True, kw_only=True):
    data_liquidacao: str
    tipo: str
    status: str
    end_to_end_id: str
    atualizacao: list[HistoryOut]
    rejeicao: RejectionOut | None = None


class PaidOut(WireStruct):
    """The PIX that paid a recurring charge."""

    end_to_end_id: str
    txid: str
    valor: str
    horario: Timestamp


class CobROut(WireStruct, omit_defaults=True, kw_only=True):
    """The standard's ``CobRGerada`` and ``CobRCompleta``."""

    id_rec: str
    txid: str
    info_adicional: str | None = None
    calendario: CobRCalendarOut
    valor: AmountOut
    ajuste_dia_util: bool
    recebedor: AccountOut
    status: str
    politica_retentativa: str
    devedor: AddressOut | None = None
    pix: list[PaidOut] | None = None
    atualizacao: list[HistoryOut]
    encerramento: ClosingOut | None = None
    tentativas: list[CobRAttemptOut]


class CobRQueryOut(PeriodOut, omit_defaults=True):
    """The standard's ``ParametrosConsultaCobR``."""

    id_rec: str | None = None
    cpf: str | None = None
    cnpj: str | None = None
    status: str | None = None


class CobsROut(WireStruct):
    parametros: CobRQueryOut
    cobsr: list[CobROut]
