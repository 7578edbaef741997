"""What the wire's structs of Pix Automático share: the constrained texts, a person of the
standard's (``devedor``, ``pagador``, ``destinatario``: a CPF or a CNPJ), a history line and a
closing (``encerramento``)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import msgspec

from pixcore.documents import CNPJ_PATTERN, CPF_PATTERN
from pixcore.identifiers import ISPB_PATTERN, TXID_PATTERN
from pixcore.recurrences.queries import REC_ID_PATTERN
from pixweb.api.fields import MoneyText, Timestamp, doc, whole
from pixweb.api.schemas import WireStruct

__all__ = [
    "AccountText",
    "BranchText",
    "CancellationOut",
    "ClosingOut",
    "CnpjText",
    "CpfText",
    "Day",
    "HistoryOut",
    "IspbText",
    "MoneyText",
    "RecId",
    "RejectionOut",
    "TxidText",
    "text",
]


def text(limit: int, description: str) -> msgspec.Meta:
    """A text of at most ``limit`` characters (msgspec refuses a longer one: a 400)."""
    return msgspec.Meta(max_length=limit, description=description)


CpfText = Annotated[str, msgspec.Meta(pattern=whole(CPF_PATTERN), description="A CPF, 11 digits.")]
CnpjText = Annotated[str, msgspec.Meta(pattern=whole(CNPJ_PATTERN), description="A CNPJ, 14 characters.")]
IspbText = Annotated[str, msgspec.Meta(pattern=whole(ISPB_PATTERN), description="An ISPB, 8 digits.")]
RecId = Annotated[
    str, msgspec.Meta(pattern=whole(REC_ID_PATTERN), description="An idRec: 29 letters and digits.")
]
TxidText = Annotated[
    str, msgspec.Meta(pattern=whole(TXID_PATTERN), description="A txid: 26 to 35 letters and digits.")
]
AccountText = Annotated[str, text(20, "An account number.")]
BranchText = Annotated[str, text(4, "A branch.")]
Day = Annotated[date, doc("A date, YYYY-MM-DD.")]


class HistoryOut(WireStruct):
    """One line of ``atualizacao``: a status and when it was taken."""

    status: str
    data: Timestamp


class CancellationOut(WireStruct, omit_defaults=True):
    codigo: str
    descricao: str
    solicitante: str | None = None


class RejectionOut(WireStruct):
    codigo: str
    descricao: str


class ClosingOut(WireStruct, omit_defaults=True):
    """``encerramento``: a rejection or a cancellation."""

    rejeicao: RejectionOut | None = None
    cancelamento: CancellationOut | None = None
