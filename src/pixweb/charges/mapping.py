"""Between the wire's structs (:mod:`pixweb.charges.schemas`) and pixcore's charge types: a body
under the domain's names, each leaf of its type (the structs take any JSON value in a leaf, so that a
wrong type is refused in the rule's own words: a value of another type is handed as ``INVALID``,
:func:`pixinfra.due_terms.text` and :func:`~pixinfra.due_terms.whole`), for the rules to judge; a
charge as the API shows it; the payloads the payer's PSP reads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import msgspec

from pixcore.accounts.rules import Account
from pixcore.charges.cob import (
    ABSENT,
    CalendarFields,
    Charge,
    ChargeFields,
    ChargeRequest,
    ChargeRevisionFields,
    ChargeStatus,
    DebtorFields,
    InfoFields,
    ValueFields,
)
from pixcore.charges.cob_service import ChargeListing, ReceivedPix
from pixcore.charges.cobv import DueAmount, amount_breakdown, payer_day
from pixcore.charges.cobv_requests import (
    DueCalendarChange,
    DueChargeFields,
    DueRevisionFields,
    DueValueChange,
)
from pixcore.charges.locations import location_type_of
from pixcore.charges.parts import Debtor, Whole
from pixcore.charges.withdrawal import Withdrawal, WithdrawalFields, WithdrawalPartFields
from pixcore.clock import format_timestamp
from pixcore.documents import DocumentKind, parse_document
from pixcore.errors import ValidationError
from pixcore.money import format_amount_string
from pixcore.queries.standard import ChargeQuery
from pixcore.validation import INVALID, collect
from pixinfra.due_terms import (
    calendar_fields,
    discount_fields,
    given,
    rate_fields,
    terms_wire,
    text,
    value_fields,
    whole,
    whole_or_absent,
)
from pixweb.api.standard import window_fields
from pixweb.charges import schemas as wire
from pixweb.refunds.refunds import refund_out

__all__ = [
    "calendar_change",
    "charge_change",
    "charge_fields",
    "charge_out",
    "charge_payload",
    "charge_request",
    "charges_out",
    "components_out",
    "debtor_fields",
    "debtor_out",
    "due_charge_out",
    "due_charge_payload",
    "due_charges_out",
    "due_fields",
    "due_revision_fields",
    "info_fields",
    "loc_id_of",
    "loc_out",
    "pix_out",
    "receiver_out",
    "revision_fields",
    "value_change",
    "withdrawal_fields",
    "withdrawal_out",
]


def components_out(parts: DueAmount) -> wire.ComponentesValorOut:
    """``componentesValor``: ``original`` always, the cash of a Pix Saque or Troco, each other
    part when not zero."""

    def part(cents: int) -> wire.ParteValorOut | None:
        return wire.ParteValorOut(valor=format_amount_string(cents)) if cents else None

    cash = parts.cash
    paid_out = (
        None
        if cash is None
        else wire.ParteRetiradaOut(
            valor=format_amount_string(cash.amount),
            modalidade_agente=cash.agent,
            prestador_do_servico_de_saque=cash.facilitator,
        )
    )
    return wire.ComponentesValorOut(
        original=wire.ParteValorOut(valor=format_amount_string(parts.original)),
        saque=paid_out if cash is not None and cash.kind == "saque" else None,
        troco=paid_out if cash is not None and cash.kind == "troco" else None,
        multa=part(parts.fine),
        juros=part(parts.interest),
        abatimento=part(parts.rebate),
        desconto=part(parts.discount),
    )


def pix_out(paid: ReceivedPix) -> wire.CobPixOut:
    return wire.CobPixOut(
        end_to_end_id=paid.end_to_end_id,
        valor=format_amount_string(paid.amount),
        componentes_valor=components_out(paid.components),
        horario=format_timestamp(paid.received_at),
        devolucoes=[refund_out(r) for r in paid.refunds],
        txid=paid.tx_id,
        chave=paid.pix_key,
    )


def loc_out(charge: Charge, standard: bool = False) -> wire.LocOut | None:
    """The charge's ``loc``: None when it has no location. ``location`` as the charge's own
    (:func:`_location`)."""
    if charge.loc_id is None or not charge.located:
        return None
    return wire.LocOut(
        id=charge.loc_id,
        location=_location(charge, standard),
        tipo_cob=location_type_of(charge.kind).value,
        criacao=format_timestamp(charge.loc_created_at or charge.created_at),
        txid=charge.txid,
    )


def charge_out(
    charge: Charge, status: ChargeStatus, pix: tuple[ReceivedPix, ...] = (), *, standard: bool = False
) -> wire.CobOut:
    """The charge as the API shows it; ``status`` is the one a reader sees now, ``pix`` what paid it;
    ``standard``: as the standard's face shows it (``location`` the payload URL)."""
    return wire.CobOut(
        calendario=wire.CalendarioOut(
            criacao=format_timestamp(charge.created_at), expiracao=charge.expiration
        ),
        valor=wire.ValorOut(
            original=format_amount_string(charge.amount),
            modalidade_alteracao=charge.modality,
            retirada=withdrawal_out(charge.withdrawal),
        ),
        devedor=None if charge.debtor is None else _debtor_out(charge.debtor),
        **_shown(charge, status, pix, standard),
    )


def _location(charge: Charge, standard: bool) -> str:
    """A charge's ``location``: on our face the BR Code (our specification: the client shows it at
    once), on the standard's the payload URL without scheme, as the standard says (its code is
    ``pixCopiaECola``)."""
    return charge.location if standard else charge.br_code


def _shown(
    charge: Charge, status: ChargeStatus, pix: tuple[ReceivedPix, ...], standard: bool
) -> dict[str, Any]:
    """The members a ``cob`` and a ``cobv`` show alike, by their names in the answer's struct."""
    return {
        "txid": charge.txid,
        "revisao": charge.revision,
        "loc": loc_out(charge, standard),
        "location": _location(charge, standard) if charge.located else None,
        "status": status.value,
        "chave": charge.pix_key,
        "pix_copia_e_cola": charge.br_code if charge.located else None,
        "solicitacao_pagador": charge.payer_request,
        "info_adicionais": [wire.InfoOut(nome=n, valor=v) for n, v in charge.info] or None,
        "pix": [pix_out(p) for p in pix] or None,
    }


def _debtor_out(debtor: Debtor) -> wire.DevedorOut:
    cpf, cnpj = _cpf_or_cnpj(debtor.document, debtor.kind)
    return wire.DevedorOut(
        nome=debtor.name,
        cpf=cpf,
        cnpj=cnpj,
        email=debtor.email,
        logradouro=debtor.street,
        cidade=debtor.city,
        uf=debtor.state,
        cep=debtor.postal_code,
    )


def _cpf_or_cnpj(document: str, kind: DocumentKind) -> tuple[str | None, str | None]:
    """``cpf`` and ``cnpj`` of a person or company shown: the one its document is, the other None."""
    return (document, None) if kind is DocumentKind.CPF else (None, document)


def debtor_fields(debtor: wire.DevedorIn | None) -> DebtorFields | None:
    if debtor is None:
        return None
    return DebtorFields(
        cpf=text(debtor.cpf),
        cnpj=text(debtor.cnpj),
        name=text(debtor.nome),
        email=text(debtor.email),
        street=text(debtor.logradouro),
        city=text(debtor.cidade),
        state=text(debtor.uf),
        postal_code=text(debtor.cep),
    )


def info_fields(items: list[wire.InfoIn] | None) -> tuple[InfoFields, ...] | None:
    if items is None:
        return None
    return tuple(InfoFields(name=text(i.nome), value=text(i.valor)) for i in items)


def _value_fields(value: wire.ValorIn | None, original: Callable[[Any], Any]) -> ValueFields | None:
    """``valor``; ``original`` reads its amount (left out: ``null`` on creation, kept on a revision)."""
    if value is None:
        return None
    return ValueFields(
        original=original(value.original),
        modality=whole_or_absent(value.modalidade_alteracao),
        withdrawal=ABSENT if value.retirada is None else withdrawal_fields(value.retirada),
    )


def withdrawal_fields(retirada: wire.RetiradaIn) -> WithdrawalFields:
    """``valor.retirada`` under the domain's names, each leaf's type judged."""

    def part(given: wire.SaqueIn | wire.TrocoIn | None) -> WithdrawalPartFields | None:
        if given is None:
            return None
        return WithdrawalPartFields(
            amount=text(given.valor),
            modality=whole_or_absent(given.modalidade_alteracao),
            agent=text(given.modalidade_agente),
            facilitator=text(given.prestador_do_servico_de_saque),
        )

    return WithdrawalFields(saque=part(retirada.saque), troco=part(retirada.troco))


def withdrawal_out(withdrawal: Withdrawal | None) -> wire.RetiradaOut | None:
    """A ``cob``'s ``valor.retirada`` (None: it has none)."""
    if withdrawal is None:
        return None
    shown = wire.RetiradaParteOut(
        valor=format_amount_string(withdrawal.amount),
        modalidade_alteracao=withdrawal.modality,
        modalidade_agente=withdrawal.agent.value,
        prestador_do_servico_de_saque=withdrawal.facilitator,
    )
    return wire.RetiradaOut(**{withdrawal.kind.value: shown})


def _calendar_fields(calendar: wire.CalendarioIn | None) -> CalendarFields | None:
    return None if calendar is None else CalendarFields(expiration=whole_or_absent(calendar.expiracao))


def charge_fields(body: wire.CobIn) -> ChargeFields:
    """The body under the domain's names, each leaf's type judged (``ChargeRequest.parse`` judges it)."""
    return ChargeFields(
        calendar=_calendar_fields(body.calendario),
        value=_value_fields(body.valor, text),
        **_particulars(body),
    )


def _particulars(body: wire.ChargeBody) -> dict[str, Any]:
    """What a body of either kind carries beside its calendar and value (and a revision's
    ``status``), under the domain's names (:class:`pixcore.charges.parts.RequestFields`')."""
    return {
        "debtor": debtor_fields(body.devedor),
        "key": text(body.chave),
        "payer_request": text(body.solicitacao_pagador),
        "info": info_fields(body.info_adicionais),
        "loc_id": loc_id_of(body.loc),
    }


def loc_id_of(loc: wire.LocIn | None) -> Whole:
    """``loc.id`` (None: no ``loc``); ``{}`` or ``"id": null`` names no location: ``INVALID``, refused
    by the rules as any other type."""
    if loc is None:
        return None
    judged = whole(loc.id)
    return INVALID if judged is None else judged


def revision_fields(body: wire.CobPatchIn) -> ChargeRevisionFields:
    """A ``PATCH`` body under the domain's names (a part left out or ``null``: unchanged; inside
    ``valor``, a leaf left out keeps the charge's)."""
    return ChargeRevisionFields(
        calendar=_calendar_fields(body.calendario),
        value=_value_fields(body.valor, given),
        status=text(body.status),
        **_particulars(body),
    )


def charges_out(query: ChargeQuery, listing: ChargeListing, *, standard: bool = False) -> wire.CobsOut:
    return wire.CobsOut(
        parametros=_query_out(query, listing),
        cobs=[charge_out(c, c.status_at(listing.now), standard=standard) for c in listing.charges],
    )


def _query_out(query: ChargeQuery, listing: ChargeListing) -> wire.CobQueryOut:
    return wire.CobQueryOut(
        **window_fields(query, listing.total),
        location_presente=query.location_present,
        status=query.other_status if query.status is None else query.status.value,
    )


def charge_request(body: wire.CobIn) -> ChargeRequest:
    """The ``PUT /cob/{txid}`` body judged by ``ChargeRequest.parse``, every broken rule at once."""
    return ChargeRequest.parse(charge_fields(body))


def charge_change(body: wire.CobPatchIn) -> bool:
    """The ``PATCH /cob/{txid}`` body's rules that need no charge (a status other than
    REMOVIDA_PELO_USUARIO_RECEBEDOR, a cancel with other changes, an empty change): whether it
    cancels. The rest is judged against the charge, by ``revise_charge``."""
    return revision_fields(body).cancels()


def charge_payload(charge: Charge, now: datetime) -> dict[str, Any]:
    """The JSON payload the payer's PSP reads at the location (the standard's ``CobPayload``)."""
    body = _payload_head(charge, now, {"expiracao": charge.expiration}) | {
        "status": charge.status_at(now).value,
        "valor": {"original": format_amount_string(charge.amount)},
        "chave": charge.pix_key,
    }
    if charge.modality:
        body["valor"]["modalidadeAlteracao"] = charge.modality
    if charge.withdrawal is not None:
        body["valor"]["retirada"] = msgspec.to_builtins(withdrawal_out(charge.withdrawal))
    if charge.debtor is not None:
        body["devedor"] = msgspec.to_builtins(_debtor_out(charge.debtor))
    return _with_texts(body, charge)


def _payload_head(charge: Charge, now: datetime, calendar: dict[str, Any]) -> dict[str, Any]:
    """What a payload of either kind starts with: ``txid``, ``revisao`` and ``calendario`` (its
    ``criacao`` and ``apresentacao``, then the kind's own ``calendar``)."""
    return {
        "txid": charge.txid,
        "revisao": charge.revision,
        "calendario": {
            "criacao": format_timestamp(charge.created_at),
            "apresentacao": format_timestamp(now),
            **calendar,
        },
    }


def _with_texts(body: dict[str, Any], charge: Charge) -> dict[str, Any]:
    """``body`` ending with what a payload of either kind ends with, when given:
    ``solicitacaoPagador`` and ``infoAdicionais``."""
    if charge.payer_request is not None:
        body["solicitacaoPagador"] = charge.payer_request
    if charge.info:
        body["infoAdicionais"] = [{"nome": n, "valor": v} for n, v in charge.info]
    return body


def due_fields(body: wire.CobVIn) -> DueChargeFields:
    return DueChargeFields(
        calendar=calendar_fields(body.calendario), value=value_fields(body.valor), **_particulars(body)
    )


def due_revision_fields(body: wire.CobVPatchIn) -> DueRevisionFields:
    return DueRevisionFields(
        calendar=calendar_change(body.calendario),
        value=value_change(body.valor),
        status=text(body.status),
        **_particulars(body),
    )


def calendar_change(calendar: wire.CalendarioVIn | None) -> DueCalendarChange | None:
    """``calendario`` of a ``PATCH``: each member left out keeps the charge's."""
    if calendar is None:
        return None
    return DueCalendarChange(
        given(calendar.data_de_vencimento), whole_or_absent(calendar.validade_apos_vencimento)
    )


def value_change(value: wire.ValorVIn | None) -> DueValueChange | None:
    """``valor`` of a ``PATCH``: each member left out (or ``null``) keeps the charge's."""
    if value is None:
        return None

    def kept(part: Any, fields: Any) -> Any:
        return ABSENT if part is None else fields

    return DueValueChange(
        given(value.original),
        kept(value.multa, rate_fields(value.multa)),
        kept(value.juros, rate_fields(value.juros)),
        kept(value.abatimento, rate_fields(value.abatimento)),
        kept(value.desconto, discount_fields(value.desconto)),
    )


def debtor_out(charge: Charge) -> wire.DevedorOut:
    debtor = charge.debtor
    if debtor is None:  # the database's charges_cobv_check forbids it
        raise RuntimeError("a cobv without a debtor")
    return _debtor_out(debtor)


def receiver_out(account: Account) -> wire.RecebedorOut:
    cpf, cnpj = _cpf_or_cnpj(account.document, parse_document(account.document).kind)
    address = account.address
    return wire.RecebedorOut(
        nome=account.name,
        logradouro=address.street,
        cidade=address.city,
        uf=address.state,
        cep=address.postal_code,
        cpf=cpf,
        cnpj=cnpj,
    )


def due_charge_out(
    charge: Charge,
    status: ChargeStatus,
    account: Account,
    pix: tuple[ReceivedPix, ...] = (),
    *,
    standard: bool = False,
) -> wire.CobVOut:
    if charge.due is None:
        raise RuntimeError("not a cobv")
    calendar, value = terms_wire(charge.due)
    return wire.CobVOut(
        calendario=wire.CalendarioVOut(
            criacao=format_timestamp(charge.created_at),
            data_de_vencimento=calendar["dataDeVencimento"],
            validade_apos_vencimento=calendar["validadeAposVencimento"],
        ),
        devedor=debtor_out(charge),
        recebedor=receiver_out(account),
        valor=msgspec.convert(value, wire.ValorVOut, from_attributes=False),
        **_shown(charge, status, pix, standard),
    )


def due_charges_out(
    query: ChargeQuery, listing: ChargeListing, account: Account, *, standard: bool = False
) -> wire.CobsVOut:
    return wire.CobsVOut(
        parametros=_query_out(query, listing),
        cobs=[
            due_charge_out(c, c.status_at(listing.now), account, standard=standard) for c in listing.charges
        ],
    )


def _payment_day(text: str | None, today: date) -> date:
    """``DPP``: the day the payer means to pay (default today), not before today."""
    if text is None:
        return today
    try:
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise ValidationError("must be a date YYYY-MM-DD")
    if day < today:
        raise ValidationError(f"must not be before today ({today.isoformat()})")
    return day


def _municipality(text: str | None) -> str | None:
    if text is not None and (len(text) != 7 or not text.isascii() or not text.isdigit()):
        raise ValidationError("must be an IBGE municipality code of 7 digits")
    return text


def due_charge_payload(
    charge: Charge, account: Account, now: datetime, *, dpp: str | None, cod_mun: str | None
) -> dict[str, Any]:
    """The standard's ``CobVPayload`` with the amount due on ``DPP`` (default: the payer's day
    now). ``codMun`` is checked and otherwise unused: only national holidays move a due date."""
    problems: list[str] = []
    today = payer_day(now)
    day = collect(problems, "DPP", lambda: _payment_day(dpp, today))
    collect(problems, "codMun", lambda: _municipality(cod_mun))
    if problems or day is None or charge.due is None:
        raise ValidationError("Invalid payload query: " + "; ".join(problems), details=problems)
    terms = charge.due
    status = charge.status_at(now)
    last = terms.last_payable_day()
    if day > last and status is ChargeStatus.ATIVA:
        problems.append(f"DPP: after the last day to pay ({last.isoformat()})")
        raise ValidationError("Invalid payload query: " + "; ".join(problems), details=problems)
    parts = amount_breakdown(terms, min(day, last))
    calendar, _ = terms_wire(terms)
    valor: dict[str, str] = {"original": format_amount_string(parts.original)}
    for name, cents in (
        ("multa", parts.fine),
        ("juros", parts.interest),
        ("abatimento", parts.rebate),
        ("desconto", parts.discount),
    ):
        if cents:
            valor[name] = format_amount_string(cents)
    valor["final"] = format_amount_string(parts.final)
    body = _payload_head(charge, now, calendar) | {
        "devedor": msgspec.to_builtins(debtor_out(charge)),
        "recebedor": msgspec.to_builtins(receiver_out(account)),
        "status": status.value,
        "valor": valor,
        "chave": charge.pix_key,
    }
    return _with_texts(body, charge)
