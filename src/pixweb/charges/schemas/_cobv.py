"""The wire's structs of a due-date charge (``cobv``): its ``calendario`` and ``valor`` with their
modalities, the body, its revision and the charge as shown."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar.openapi.spec import OpenAPIType

from pixcore.charges.cob import ChargeStatus
from pixcore.charges.cobv import DEFAULT_DAYS_AFTER_DUE, DueField
from pixcore.money import AMOUNT_STRING_PATTERN
from pixweb.api.fields import MAX_SHORT_CODE, MoneyText, Timestamp, doc, raw
from pixweb.api.schemas import WireStruct
from pixweb.charges.schemas._cob import (
    AmountText,
    ChargeBody,
    ChargeOut,
    CobPixOut,
    CobQueryOut,
    DevedorIn,
    DevedorOut,
    InfoIn,
    InfoOut,
    LocIn,
    WholeNumber,
)
from pixweb.field_paths import wire_paths

_STRING, _INTEGER = OpenAPIType.STRING, OpenAPIType.INTEGER
MAX_DATE_TEXT = 10  # YYYY-MM-DD
_PERCENT_OR_AMOUNT_DOC = "A percentage or an amount in reais, per the modality, 2 decimals."
_PERCENT_OR_AMOUNT = Annotated[
    AmountText, doc(f"Required. {_PERCENT_OR_AMOUNT_DOC}", pattern=AMOUNT_STRING_PATTERN, example="2.00")
]
_DATE_PATTERN = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_DATE = Annotated[Any, raw("YYYY-MM-DD", kind=_STRING, max_length=MAX_DATE_TEXT)]


_DUE_DATE_DOC = "The due date (not before today, Brasília's day)."
_RATE_MODALITY = Annotated[
    WholeNumber,
    doc(
        "Required. The modality: multa and abatimento 1 to 2, juros 1 to 8.", minimum=1, maximum=8, example=1
    ),
]
_DISCOUNT_MODALITY = Annotated[
    WholeNumber,
    doc("Required. The modality, 1 to 6.", minimum=1, maximum=6, example=1),
]


_RATE_REQUIRED = ["modalidade", "valorPerc"]


class CalendarioVIn(WireStruct):
    data_de_vencimento: Annotated[
        _DATE,
        doc(
            f"Required. {_DUE_DATE_DOC}",
            pattern=_DATE_PATTERN,
            example="2026-12-10",
        ),
    ] = msgspec.UNSET
    validade_apos_vencimento: Annotated[
        WholeNumber,
        doc(
            f"Calendar days it stays payable after the due date (default {DEFAULT_DAYS_AFTER_DUE}).",
            minimum=0,
            maximum=2_147_483_647,
            example=30,
        ),
    ] = msgspec.UNSET


class RateIn(WireStruct):
    modalidade: _RATE_MODALITY = msgspec.UNSET
    valor_perc: _PERCENT_OR_AMOUNT = msgspec.UNSET


class DescontoDataIn(WireStruct):
    data: Annotated[
        _DATE,
        doc("Required. The last day of this discount.", pattern=_DATE_PATTERN, example="2026-12-01"),
    ] = msgspec.UNSET
    valor_perc: _PERCENT_OR_AMOUNT = msgspec.UNSET


class DescontoIn(WireStruct):
    modalidade: _DISCOUNT_MODALITY = msgspec.UNSET
    valor_perc: Annotated[
        AmountText,
        doc(
            f"Modalities 3 to 6 (required there): {_PERCENT_OR_AMOUNT_DOC}",
            pattern=AMOUNT_STRING_PATTERN,
            example="2.00",
        ),
    ] = msgspec.UNSET
    desconto_data_fixa: Annotated[
        list[DescontoDataIn] | None,
        doc(
            "Modalities 1 and 2: up to 3 dates, each with its discount.",
            max_items=3,
            schema={"items": {"required": ["data", "valorPerc"]}},
        ),
    ] = None


class ValorVIn(WireStruct):
    original: Annotated[
        AmountText,
        doc(
            'Required. The amount in reais on the due date, 2 decimals ("123.45"), above zero.',
            pattern=AMOUNT_STRING_PATTERN,
        ),
    ] = msgspec.UNSET
    multa: Annotated[
        RateIn | None, doc("The fine once late: 1 fixed amount, 2 percent.", required=_RATE_REQUIRED)
    ] = None
    juros: Annotated[
        RateIn | None, doc("Interest once late (modalities 1 to 8).", required=_RATE_REQUIRED)
    ] = None
    abatimento: Annotated[
        RateIn | None, doc("A rebate: 1 fixed amount, 2 percent.", required=_RATE_REQUIRED)
    ] = None
    desconto: Annotated[
        DescontoIn | None, doc("A discount for paying early (modalities 1 to 6).", required=["modalidade"])
    ] = None


class CalendarioVPatchIn(CalendarioVIn):
    """``calendario`` of a revision (:class:`CobVPatchIn`): each member left out keeps the charge's."""

    data_de_vencimento: Annotated[
        _DATE, doc(f"A new due date. {_DUE_DATE_DOC}", pattern=_DATE_PATTERN, example="2026-12-10")
    ] = msgspec.UNSET


class ValorVPatchIn(ValorVIn):
    """``valor`` of a revision (:class:`CobVPatchIn`): each member left out keeps the charge's."""

    original: Annotated[
        AmountText,
        doc(
            'A new amount in reais on the due date, 2 decimals ("123.45"), above zero.',
            pattern=AMOUNT_STRING_PATTERN,
        ),
    ] = msgspec.UNSET


class DevedorVIn(DevedorIn):
    """The debtor of a new due-date charge (:class:`CobVIn`): ``nome`` is required."""


_KEY_DOC = "A PIX key of the account that receives it; on creation the default is its first key."


_INFO = Annotated[
    list[InfoIn] | None,
    doc("Up to 50 name/value items.", max_items=50, schema={"items": {"required": ["nome", "valor"]}}),
]


class _CobVBody(ChargeBody):
    chave: Annotated[Any, raw(_KEY_DOC, kind=OpenAPIType.STRING, max_length=77)] = None
    solicitacao_pagador: Annotated[
        Any, raw("shown to the payer", kind=OpenAPIType.STRING, max_length=140)
    ] = None
    info_adicionais: _INFO = None


class CobVIn(_CobVBody):
    """The standard's ``CobVSolicitada``."""

    calendario: Annotated[
        CalendarioVIn | None,
        doc(
            "Required: the due date and the days it stays payable after it.",
            required=["dataDeVencimento"],
            not_null=True,
        ),
    ] = None
    valor: Annotated[
        ValorVIn | None,
        doc("Required: the original amount and its adjustments.", required=["original"], not_null=True),
    ] = None
    devedor: Annotated[
        DevedorVIn | None,
        doc("Required: who owes it, a cpf or cnpj with nome.", required=["nome"], not_null=True),
    ] = None
    loc: Annotated[
        LocIn | None,
        doc(
            "Optional: an existing `cobv` location of the account (`loc.id`) instead of a new one.",
            not_null=True,
        ),
    ] = None


class CobVPatchIn(_CobVBody, forbid_unknown_fields=True):
    """The standard's ``CobVRevisada``: each part left out is unchanged; inside ``calendario`` and
    ``valor``, each member left out (or, for ``multa``, ``juros``, ``abatimento`` and ``desconto``,
    null) keeps the charge's; a field it does not have is refused."""

    calendario: Annotated[CalendarioVPatchIn | None, doc("A new due date, or days payable after it.")] = None
    valor: Annotated[ValorVPatchIn | None, doc("New members of the amount (each left out is kept).")] = None
    devedor: Annotated[DevedorIn | None, doc("A new debtor: a cpf or cnpj with nome.")] = None
    loc: Annotated[
        LocIn | None, doc("Move the charge to another `cobv` location of the account.", not_null=True)
    ] = None
    status: Annotated[
        Any,
        raw("REMOVIDA_PELO_USUARIO_RECEBEDOR", kind=OpenAPIType.STRING, max_length=MAX_SHORT_CODE),
        doc(
            "REMOVIDA_PELO_USUARIO_RECEBEDOR cancels the charge; alone, not with other changes.",
            enum=[ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value],
        ),
    ] = None


DUE_PATHS = wire_paths(
    {
        DueField.DUE_DATE: "calendario.dataDeVencimento",
        DueField.DAYS_AFTER_DUE: "calendario.validadeAposVencimento",
        DueField.FINE: "valor.multa",
        DueField.FINE_MODALITY: "valor.multa.modalidade",
        DueField.FINE_VALUE: "valor.multa.valorPerc",
        DueField.INTEREST: "valor.juros",
        DueField.INTEREST_MODALITY: "valor.juros.modalidade",
        DueField.INTEREST_VALUE: "valor.juros.valorPerc",
        DueField.REBATE: "valor.abatimento",
        DueField.REBATE_MODALITY: "valor.abatimento.modalidade",
        DueField.REBATE_VALUE: "valor.abatimento.valorPerc",
        DueField.DISCOUNT: "valor.desconto",
        DueField.DISCOUNT_MODALITY: "valor.desconto.modalidade",
        DueField.DISCOUNT_VALUE: "valor.desconto.valorPerc",
        DueField.DISCOUNT_DATES: "valor.desconto.descontoDataFixa",
        DueField.DISCOUNT_DATE_UNTIL: "valor.desconto.descontoDataFixa[].data",
        DueField.DISCOUNT_DATE_VALUE: "valor.desconto.descontoDataFixa[].valorPerc",
    }
)
"""Where :class:`CobVIn` and :class:`CobVPatchIn` carry a ``cobv``'s own fields (the shared ones:
``CHARGE_PATHS``; ``[]``: an item's place)."""


class CalendarioVOut(WireStruct):
    criacao: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    data_de_vencimento: Annotated[str, doc("The due date (YYYY-MM-DD).")]
    validade_apos_vencimento: Annotated[int, doc("Calendar days it stays payable after the due date.")]


class RateOut(WireStruct):
    modalidade: int
    valor_perc: MoneyText


class DescontoDataOut(WireStruct):
    data: str
    valor_perc: MoneyText


class DescontoOut(WireStruct, omit_defaults=True):
    modalidade: int
    valor_perc: MoneyText | None = None
    desconto_data_fixa: list[DescontoDataOut] | None = None


class ValorVOut(WireStruct, omit_defaults=True):
    original: Annotated[MoneyText, doc('The amount on the due date, in reais ("123.45").')]
    multa: RateOut | None = None
    juros: RateOut | None = None
    abatimento: RateOut | None = None
    desconto: DescontoOut | None = None


class RecebedorOut(WireStruct, omit_defaults=True):
    """The standard's ``DadosRecebedor``: the account that receives it, its holder's name,
    document and postal address (each of the four parts required there)."""

    nome: Annotated[str, doc("The account holder's name.")]
    logradouro: Annotated[str, doc("The holder's street address.")]
    cidade: Annotated[str, doc("The holder's city.")]
    uf: Annotated[str, doc("The holder's state, two letters.")]
    cep: Annotated[str, doc("The holder's postal code, 8 digits.")]
    cpf: Annotated[str, doc("The holder's CPF.")] | None = None
    cnpj: Annotated[str, doc("The holder's CNPJ.")] | None = None


class CobVOut(ChargeOut, omit_defaults=True, kw_only=True):
    """The standard's ``CobVCompleta``."""

    calendario: CalendarioVOut
    location: Annotated[
        str | None,
        doc("The BR Code, as ``location`` of a ``cob``; left out without a location."),
    ] = None
    status: Annotated[
        str,
        doc(
            "ATIVA (payable), CONCLUIDA (paid), REMOVIDA_PELO_USUARIO_RECEBEDOR (cancelled) or"
            " REMOVIDA_PELO_PSP (its last payable day is over)."
        ),
    ]
    devedor: DevedorOut
    recebedor: RecebedorOut
    valor: ValorVOut
    chave: Annotated[str, doc("The PIX key that receives it.")]
    pix_copia_e_cola: Annotated[
        str | None,
        doc("The BR Code the payer pays (no amount: the payload says it); left out without a location."),
    ] = None
    solicitacao_pagador: str | None = None
    info_adicionais: list[InfoOut] | None = None
    pix: list[CobPixOut] | None = None
    """Only on a CONCLUIDA charge: the PIX that paid it, with its refunds."""


class CobsVOut(WireStruct):
    """The standard's ``CobsVConsultadas``: a page of the account's due-date charges."""

    parametros: CobQueryOut
    cobs: Annotated[list[CobVOut], doc("The due-date charges of the page, oldest first.")]
