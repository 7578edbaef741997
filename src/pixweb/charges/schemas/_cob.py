"""The wire's structs of an immediate charge (``cob``) and the parts a ``cobv`` shares with it: the
debtor, the extra items, ``loc``, a received PIX, a page's query."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter

from pixcore.addresses import MAX_CITY, MAX_EMAIL, MAX_STREET, POSTAL_CODE_PATTERN, STATE_PATTERN
from pixcore.charges.cob import (
    MAX_DEBTOR_NAME,
    MAX_EXPIRATION,
    MAX_INFO_ITEMS,
    MAX_INFO_NAME,
    MAX_INFO_VALUE,
    MAX_KEY,
    MAX_LOC_ID,
    MAX_PAYER_REQUEST,
    ChargeStatus,
    ImmediateField,
)
from pixcore.charges.parts import ChargeField
from pixcore.charges.withdrawal import AGENTS, FACILITATOR_PATTERN, WithdrawalField, WithdrawalKind
from pixcore.documents import CNPJ_PATTERN, CPF_PATTERN
from pixcore.identifiers import TXID_PATTERN
from pixcore.keys import KEY_PATTERN
from pixcore.money import AMOUNT_STRING_PATTERN
from pixweb.api.fields import (
    MAX_AMOUNT_TEXT,
    MAX_DOCUMENT,
    MAX_SHORT_CODE,
    Int64,
    MoneyText,
    Timestamp,
    doc,
    raw,
    whole,
)
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import WindowOut
from pixweb.field_paths import wire_paths
from pixweb.refunds.refunds import RefundOut

# The request's leaves are taken as decoded (Litestar would coerce "3600" into 3600 and the
# spec wants "10.00" as a string only): charge_fields judges each leaf's type (a value of another
# type is handed as INVALID, refused in the rule's own words) and hands them to
# pixcore.charges.cob.ChargeRequest under the domain's names, which judges the rest, each text's
# maximum among them (documented here).
_STRING, _INTEGER = OpenAPIType.STRING, OpenAPIType.INTEGER


WholeNumber = Annotated[Any, raw("an integer", kind=_INTEGER)]
"""An integer leaf, taken as decoded (a field's own ``doc`` describes it)."""
AmountText = Annotated[
    Any, raw('a string with 2 decimals, "10.00"', kind=_STRING, max_length=MAX_AMOUNT_TEXT)
]
"""An amount in reais as the standard writes it (``valor.original``), taken as decoded."""


class CalendarioIn(WireStruct):
    expiracao: Annotated[
        WholeNumber,
        doc(
            f"Seconds the charge is payable after its creation, 1 to {MAX_EXPIRATION}; default 86400.",
            minimum=1,
            maximum=MAX_EXPIRATION,
            example=3600,
        ),
    ] = msgspec.UNSET


class DevedorIn(WireStruct):
    cpf: Annotated[
        Any,
        raw("11 digits", kind=_STRING, max_length=11),
        doc("The debtor's CPF (not with cnpj).", pattern=CPF_PATTERN, example="52998224725"),
    ] = msgspec.UNSET
    cnpj: Annotated[
        Any,
        raw("14 characters", kind=_STRING, max_length=MAX_DOCUMENT),
        doc("The debtor's CNPJ (not with cpf).", pattern=CNPJ_PATTERN),
    ] = msgspec.UNSET
    nome: Annotated[
        Any,
        raw("required with a document", kind=_STRING, max_length=MAX_DEBTOR_NAME),
        doc("The debtor's name; required with a document.", min_length=1, example="João Souza"),
    ] = msgspec.UNSET
    email: Annotated[
        Any,
        raw("the debtor's e-mail", kind=_STRING, max_length=MAX_EMAIL),
        doc("The debtor's e-mail (optional, with a document).", example="joao.souza@example.com"),
    ] = msgspec.UNSET
    logradouro: Annotated[
        Any,
        raw("the debtor's street address", kind=_STRING, max_length=MAX_STREET),
        doc("The debtor's street address (optional, with a document).", example="Rua das Flores, 12"),
    ] = msgspec.UNSET
    cidade: Annotated[
        Any,
        raw("the debtor's city", kind=_STRING, max_length=MAX_CITY),
        doc("The debtor's city (optional, with a document).", example="Recife"),
    ] = msgspec.UNSET
    uf: Annotated[
        Any,
        raw("two letters", kind=_STRING, max_length=2),
        doc(
            "The debtor's state, two letters (optional, with a document).",
            pattern=STATE_PATTERN,
            example="PE",
        ),
    ] = msgspec.UNSET
    cep: Annotated[
        Any,
        raw("8 digits", kind=_STRING, max_length=8),
        doc(
            "The debtor's postal code, 8 digits without a hyphen (optional, with a document).",
            pattern=POSTAL_CODE_PATTERN,
            example="50010000",
        ),
    ] = msgspec.UNSET


class _RetiradaParteIn(WireStruct):
    """What ``saque`` and ``troco`` share."""

    valor: Annotated[
        AmountText,
        doc(
            'Required. The cash in reais, 2 decimals ("5.00"); above zero unless modalidadeAlteracao is 1.',
            pattern=AMOUNT_STRING_PATTERN,
            example="5.00",
        ),
    ] = msgspec.UNSET
    modalidade_alteracao: Annotated[
        WholeNumber,
        doc("0: the payer takes this cash (default); 1: the payer may change it.", enum=[0, 1], example=0),
    ] = msgspec.UNSET
    modalidade_agente: Any = msgspec.UNSET
    prestador_do_servico_de_saque: Annotated[
        Any,
        raw("an ISPB", kind=_STRING, max_length=8),
        doc(
            "Required. The ISPB of the withdrawal service facilitator: 8 digits or capital letters.",
            pattern=FACILITATOR_PATTERN,
            example="12345678",
        ),
    ] = msgspec.UNSET


def _agent(kind: WithdrawalKind) -> Any:
    agents = [agent.value for agent in AGENTS[kind]]
    return Annotated[
        Any,
        raw("the agent's modality", kind=_STRING, max_length=MAX_SHORT_CODE),
        doc("Required. Who hands the cash over: " + ", ".join(agents) + ".", enum=agents, example=agents[0]),
    ]


class SaqueIn(_RetiradaParteIn):
    """A Pix Saque: cash only (``valor.original`` 0.00)."""

    modalidade_agente: _agent(WithdrawalKind.SAQUE) = msgspec.UNSET  # type: ignore[valid-type]


class TrocoIn(_RetiradaParteIn):
    """A Pix Troco: cash on top of a purchase (``valor.original`` above 0.00)."""

    modalidade_agente: _agent(WithdrawalKind.TROCO) = msgspec.UNSET  # type: ignore[valid-type]


_PART_REQUIRES = ["valor", "modalidadeAgente", "prestadorDoServicoDeSaque"]


class RetiradaIn(WireStruct):
    """The standard's ``retirada``: exactly one of ``saque`` and ``troco``."""

    STANDARD_ONE_OF: ClassVar[dict[str, tuple[str, ...]]] = dict.fromkeys(
        ("saque", "troco"), tuple(_PART_REQUIRES)
    )
    """Its ``oneOf`` as the standard's face reads it (``pixweb.standard.bodies.ONE_OF``): beside a
    whole ``saque``, a ``troco`` that is not one is a member its branch does not define."""

    saque: Annotated[SaqueIn | None, doc("A Pix Saque (not with troco).", required=_PART_REQUIRES)] = None
    troco: Annotated[TrocoIn | None, doc("A Pix Troco (not with saque).", required=_PART_REQUIRES)] = None


_Retirada = Annotated[
    RetiradaIn | None,
    doc(
        "Optional: a Pix Saque or Pix Troco. The payer pays original plus the cash; modalidadeAlteracao"
        " must be 0.",
        not_null=True,
    ),
]


class ValorIn(WireStruct):
    original: Annotated[
        AmountText,
        doc(
            'Required. The amount in reais as a string with 2 decimals ("10.00"); above zero unless'
            " modalidadeAlteracao is 1.",
            pattern=AMOUNT_STRING_PATTERN,
            example="37.50",
        ),
    ] = msgspec.UNSET
    modalidade_alteracao: Annotated[
        WholeNumber,
        doc("0: the payer pays the amount (default); 1: the payer may change it.", enum=[0, 1], example=0),
    ] = msgspec.UNSET
    retirada: _Retirada = None


class ValorPatchIn(ValorIn):
    """``valor`` of a revision (:class:`CobPatchIn`): each member left out keeps the charge's."""

    original: Annotated[
        AmountText,
        doc(
            'A new amount in reais as a string with 2 decimals ("10.00").',
            pattern=AMOUNT_STRING_PATTERN,
            example="37.50",
        ),
    ] = msgspec.UNSET


class InfoIn(WireStruct):
    nome: Annotated[
        Any,
        raw("the item's name", kind=_STRING, max_length=MAX_INFO_NAME),
        doc("Required. The item's name.", min_length=1, example="Pedido"),
    ] = msgspec.UNSET
    valor: Annotated[
        Any,
        raw("the item's value", kind=_STRING, max_length=MAX_INFO_VALUE),
        doc("Required. The item's value.", min_length=1, example="117"),
    ] = msgspec.UNSET


_Key = Annotated[
    Any,
    raw("a PIX key of the account", kind=_STRING, max_length=MAX_KEY),
    doc(
        "A PIX key of the account that receives it; on creation the default is its first key.",
        pattern=KEY_PATTERN,
    ),
]
_PayerRequest = Annotated[
    Any,
    raw("shown to the payer", kind=_STRING, max_length=MAX_PAYER_REQUEST),
    doc("A message shown to the payer.", example="Order 117"),
]
_Info = Annotated[
    list[InfoIn] | None,
    doc(
        f"Up to {MAX_INFO_ITEMS} name/value items shown to the payer.",
        max_items=MAX_INFO_ITEMS,
        schema={"items": {"required": ["nome", "valor"]}},
    ),
]


class LocIn(WireStruct):
    """The standard's ``loc`` of a request: an existing location of the account."""

    id: Annotated[
        Any,
        raw("a location id (integer)", kind=_INTEGER, format_="int64"),
        doc(
            "The id of a location of the account (`POST /loc`) of this charge's `tipoCob`, serving no"
            " charge: the charge is put there instead of at a new one.",
            minimum=1,
            maximum=MAX_LOC_ID,
            example=311,
        ),
    ] = None


_Loc = Annotated[
    LocIn | None,
    doc("Optional: an existing location of the account (`loc.id`) instead of a new one.", not_null=True),
]


# The members of a body of either kind and of its revision, in the standard's order; each kind
# declares the types and documentation of its own (a field redeclared keeps its place).
class ChargeBody(WireStruct):
    calendario: Any = None
    valor: Any = None
    devedor: Any = None
    chave: Any = None
    solicitacao_pagador: Any = None
    info_adicionais: Any = None
    loc: Any = None


class _CobBody(ChargeBody):
    chave: _Key = None
    solicitacao_pagador: _PayerRequest = None
    info_adicionais: _Info = None
    loc: _Loc = None


class CobIn(_CobBody):
    calendario: Annotated[
        CalendarioIn | None, doc("Required: when it expires (may be `{}`: the default).", not_null=True)
    ] = None
    valor: Annotated[ValorIn | None, doc("Required: how much.", required=["original"], not_null=True)] = None
    devedor: Annotated[DevedorIn | None, doc("Who owes it (optional): a document and a name.")] = None


class CobPatchIn(_CobBody, forbid_unknown_fields=True):
    """The standard's ``CobRevisada``: each part left out is unchanged; a field it does not have
    is refused, not silently ignored."""

    calendario: Annotated[CalendarioIn | None, doc("A new expiry.")] = None
    valor: Annotated[ValorPatchIn | None, doc("A new amount or modality (each left out is kept).")] = None
    devedor: Annotated[DevedorIn | None, doc("A new debtor: a document and a name.")] = None
    status: Annotated[
        Any,
        raw("REMOVIDA_PELO_USUARIO_RECEBEDOR", kind=_STRING, max_length=MAX_SHORT_CODE),
        doc(
            "REMOVIDA_PELO_USUARIO_RECEBEDOR cancels the charge; alone, not with other changes.",
            enum=[ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value],
            example=ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR.value,
        ),
    ] = None


CHARGE_PATHS = wire_paths(
    {
        ChargeField.CALENDAR: "calendario",
        ChargeField.VALUE: "valor",
        ChargeField.ORIGINAL: "valor.original",
        ChargeField.DEBTOR: "devedor",
        ChargeField.DEBTOR_CPF: "devedor.cpf",
        ChargeField.DEBTOR_CNPJ: "devedor.cnpj",
        ChargeField.DEBTOR_NAME: "devedor.nome",
        ChargeField.DEBTOR_EMAIL: "devedor.email",
        ChargeField.DEBTOR_STREET: "devedor.logradouro",
        ChargeField.DEBTOR_CITY: "devedor.cidade",
        ChargeField.DEBTOR_STATE: "devedor.uf",
        ChargeField.DEBTOR_POSTAL_CODE: "devedor.cep",
        ChargeField.KEY: "chave",
        ChargeField.PAYER_REQUEST: "solicitacaoPagador",
        ChargeField.INFO: "infoAdicionais",
        ChargeField.INFO_ITEM: "infoAdicionais[]",
        ChargeField.INFO_NAME: "infoAdicionais[].nome",
        ChargeField.INFO_VALUE: "infoAdicionais[].valor",
        ChargeField.LOC_ID: "loc.id",
        ChargeField.STATUS: "status",
    }
)
"""Where the bodies of both kinds (:class:`ChargeBody`'s, a ``cobv``'s too) carry the fields their
rules share (``[]``: an item's place)."""

IMMEDIATE_PATHS = wire_paths(
    {ImmediateField.EXPIRATION: "calendario.expiracao", ImmediateField.MODALITY: "valor.modalidadeAlteracao"}
)
"""Where :class:`CobIn` and :class:`CobPatchIn` carry a ``cob``'s own fields."""

WITHDRAWAL_PATHS = wire_paths(
    {
        WithdrawalField.WITHDRAWAL: "valor.retirada",
        WithdrawalField.SAQUE: "valor.retirada.saque",
        WithdrawalField.SAQUE_AMOUNT: "valor.retirada.saque.valor",
        WithdrawalField.SAQUE_MODALITY: "valor.retirada.saque.modalidadeAlteracao",
        WithdrawalField.SAQUE_AGENT: "valor.retirada.saque.modalidadeAgente",
        WithdrawalField.SAQUE_FACILITATOR: "valor.retirada.saque.prestadorDoServicoDeSaque",
        WithdrawalField.TROCO: "valor.retirada.troco",
        WithdrawalField.TROCO_AMOUNT: "valor.retirada.troco.valor",
        WithdrawalField.TROCO_MODALITY: "valor.retirada.troco.modalidadeAlteracao",
        WithdrawalField.TROCO_AGENT: "valor.retirada.troco.modalidadeAgente",
        WithdrawalField.TROCO_FACILITATOR: "valor.retirada.troco.prestadorDoServicoDeSaque",
    }
)
"""Where :class:`ValorIn` carries a ``cob``'s withdrawal."""


class CalendarioOut(WireStruct):
    criacao: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    expiracao: Annotated[int, doc("Seconds it is payable after its creation.")]


class LocOut(WireStruct):
    id: Annotated[Int64, doc("The location's id.")]
    location: Annotated[str, doc("The payload's URL (without scheme), as in the BR Code.")]
    tipo_cob: Annotated[str, doc("`cob` (a `cobv`'s: `cobv`).")]
    criacao: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    txid: Annotated[str, doc("The charge's txid.")]


class DevedorOut(WireStruct, omit_defaults=True):
    """The standard's ``DadosDevedor``: a document and a name, and what else was given of the
    debtor (each left out when it was not)."""

    nome: Annotated[str, doc("The debtor's name.")]
    cpf: Annotated[str, doc("The debtor's CPF.")] | None = None
    cnpj: Annotated[str, doc("The debtor's CNPJ.")] | None = None
    email: Annotated[str, doc("The debtor's e-mail.")] | None = None
    logradouro: Annotated[str, doc("The debtor's street address.")] | None = None
    cidade: Annotated[str, doc("The debtor's city.")] | None = None
    uf: Annotated[str, doc("The debtor's state, two letters.")] | None = None
    cep: Annotated[str, doc("The debtor's postal code, 8 digits.")] | None = None


class RetiradaParteOut(WireStruct):
    """A ``saque`` or ``troco`` as the charge keeps it."""

    valor: Annotated[MoneyText, doc('The cash in reais, 2 decimals ("5.00").')]
    modalidade_alteracao: Annotated[int, doc("0: fixed; 1: the payer may change it.")]
    modalidade_agente: Annotated[str, doc("Who hands the cash over: AGTEC, AGTOT or AGPSS.")]
    prestador_do_servico_de_saque: Annotated[str, doc("The ISPB of the withdrawal service facilitator.")]


class RetiradaOut(WireStruct, omit_defaults=True):
    """The standard's ``retirada``: its ``saque`` or its ``troco``."""

    saque: RetiradaParteOut | None = None
    troco: RetiradaParteOut | None = None


class ValorOut(WireStruct, omit_defaults=True):
    original: Annotated[MoneyText, doc('The amount in reais, 2 decimals ("37.50").')]
    modalidade_alteracao: Annotated[int, doc("0: fixed; 1: the payer may change it.")]
    retirada: Annotated[RetiradaOut | None, doc("A Pix Saque or Pix Troco; left out without one.")] = None


class InfoOut(WireStruct):
    nome: Annotated[str, doc("The item's name.")]
    valor: Annotated[str, doc("The item's value.")]


class ParteValorOut(WireStruct):
    """One part of the amount of a received PIX (an item of ``componentesValor``)."""

    valor: Annotated[MoneyText, doc("The part, in reais, 2 decimals.")]


class ParteRetiradaOut(WireStruct):
    """The cash part of a Pix Saque's or Troco's amount (``componentesValor.saque`` or ``.troco``)."""

    valor: Annotated[MoneyText, doc("The cash, in reais, 2 decimals.")]
    modalidade_agente: Annotated[str, doc("Who handed the cash over: AGTEC, AGTOT or AGPSS.")]
    prestador_do_servico_de_saque: Annotated[str, doc("The withdrawal service facilitator's ISPB.")]


class ComponentesValorOut(WireStruct, omit_defaults=True):
    """The standard's ``Pix.componentesValor``: what the amount of a received PIX is made of,
    ``valor`` = ``original`` + ``saque`` + ``troco`` + ``multa`` + ``juros`` - ``abatimento`` -
    ``desconto``. A due-date charge's payment gives the parts of its amount on the day it was paid
    (each of the four left out when zero); a Pix Saque's or Troco's, its purchase as ``original``
    (0.00 for a saque) and its cash; any other PIX, ``original`` alone, its whole amount."""

    original: Annotated[ParteValorOut, doc("The charge's original amount (or the PIX's whole amount).")]
    saque: Annotated[ParteRetiradaOut | None, doc("The cash of a Pix Saque.")] = None
    troco: Annotated[ParteRetiradaOut | None, doc("The cash of a Pix Troco.")] = None
    multa: Annotated[ParteValorOut | None, doc("The fine of a late due-date charge.")] = None
    juros: Annotated[ParteValorOut | None, doc("The interest of a late due-date charge.")] = None
    abatimento: Annotated[ParteValorOut | None, doc("The rebate of a due-date charge.")] = None
    desconto: Annotated[ParteValorOut | None, doc("The discount of a due-date charge paid early.")] = None


class CobPixOut(WireStruct, omit_defaults=True):
    """The standard's ``Pix``: a PIX received (the one that paid a charge, or one of ``GET /pix``).
    ``infoPagador`` is never given: a payment reaches this service without a message from its
    payer (docs/decisions/charges.md)."""

    end_to_end_id: Annotated[str, doc("The end-to-end id of the PIX.")]
    valor: Annotated[MoneyText, doc("The amount received, in reais, 2 decimals.")]
    componentes_valor: Annotated[ComponentesValorOut, doc("What the amount is made of.")]
    horario: Annotated[Timestamp, doc("When it was received (UTC, ISO 8601).")]
    devolucoes: Annotated[list[RefundOut], doc("Its refunds to the payer, oldest first.")]
    txid: Annotated[str | None, doc("The txid of the charge it paid, if any.")] = None
    chave: Annotated[str | None, doc("The PIX key it was sent to.")] = None


# The members a cob and a cobv show first, alike; each kind declares its own calendar (a field
# redeclared keeps its place) and the rest.
class ChargeOut(WireStruct, omit_defaults=True, kw_only=True):
    calendario: Any
    txid: Annotated[str, doc("The charge's id, the client's.")]
    revisao: Annotated[int, doc("Its revision: 0 when created, one more per change.")]
    loc: Annotated[
        LocOut | None, doc("Its location; left out when it has none (`DELETE /loc/{id}/txid`).")
    ] = None


class CobOut(ChargeOut, omit_defaults=True, kw_only=True):
    calendario: CalendarioOut
    location: Annotated[str | None, doc("The BR Code; left out when the charge has no location.")] = None
    status: Annotated[
        str,
        doc(
            "ATIVA (payable), CONCLUIDA (paid), REMOVIDA_PELO_USUARIO_RECEBEDOR (cancelled) or"
            " REMOVIDA_PELO_PSP (expired)."
        ),
    ]
    valor: ValorOut
    chave: Annotated[str, doc("The PIX key that receives it.")]
    pix_copia_e_cola: Annotated[
        str | None, doc("The BR Code (PIX copy-and-paste) the payer pays; left out without a location.")
    ] = None
    devedor: DevedorOut | None = None
    solicitacao_pagador: str | None = None
    info_adicionais: list[InfoOut] | None = None
    pix: list[CobPixOut] | None = None
    """Only on a CONCLUIDA charge: the PIX that paid it, with its refunds."""


class CobQueryOut(WindowOut, omit_defaults=True):
    """The standard's ``ParametrosConsultaCob``: the query as the service read it (``cpf`` or
    ``cnpj``: the debtor's)."""

    location_presente: Annotated[bool | None, doc("The location filter asked for.")] = None
    status: Annotated[str | None, doc("The status asked for.")] = None


class CobsOut(WireStruct):
    """The standard's ``CobsConsultadas``: a page of the account's charges."""

    parametros: CobQueryOut
    cobs: Annotated[list[CobOut], doc("The charges of the page, oldest first.")]


TXID_EXAMPLE = "7d3b9f1a2c4e6g8h0j2k4m6n8p0q2r4s"
Txid = Annotated[
    str,
    Parameter(
        description="The charge's id, chosen by the client: 26 to 35 letters and digits.",
        schema_extra={"pattern": whole(TXID_PATTERN)},
        examples=[Example(value=TXID_EXAMPLE)],
    ),
]
