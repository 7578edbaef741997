"""Pix Automático's records as the standard's document shows them: a recurrence (``RecGerada``,
``RecCompleta``, ``RecPayload``), a request (``SolicRecCompleta``), a recurring charge
(``CobRCompleta``), a location (``PayloadLocationRecCompleta``) and the lists' pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pixcore.accounts.rules import Account
from pixcore.clock import format_timestamp
from pixcore.documents import parse_document
from pixcore.money import format_amount_string
from pixcore.recurrences import (
    Attempt,
    ChargeListQuery,
    Closing,
    ClosingKind,
    LocationListing,
    LocationListQuery,
    Recurrence,
    RecurrenceListing,
    RecurrenceListQuery,
    RecurrenceLocation,
    RecurrenceRequest,
    RecurrenceStatus,
    RecurringCharge,
    RecurringChargeListing,
    RequestStatus,
    StatusChange,
)
from pixcore.recurrences.closing import today_of
from pixweb.api.standard import period_fields
from pixweb.recurrences.schemas import (
    CobROut,
    CobRQueryOut,
    CobsROut,
    LocRecQueryOut,
    LocsRecOut,
    RecLocOut,
    RecOut,
    RecPayloadOut,
    RecQueryOut,
    RecsOut,
    SolicRecOut,
)
from pixweb.recurrences.schemas._cobr import (
    AccountOut,
    AddressOut,
    AmountOut,
    CobRAttemptOut,
    CobRCalendarOut,
    PaidOut,
)
from pixweb.recurrences.schemas._parts import CancellationOut, ClosingOut, HistoryOut, RejectionOut
from pixweb.recurrences.schemas._rec import (
    ActivationOut,
    AgreementIn,
    DebtorOut,
    JourneyDataOut,
    LinkOut,
    PayerOut,
    QrOut,
    RecCalendarOut,
    ReceiverOut,
    RecipientOut,
    RequestCalendarOut,
    ValueOut,
)

__all__ = [
    "charge_out",
    "charges_out",
    "location_out",
    "locations_out",
    "payload_out",
    "recurrence_out",
    "recurrences_out",
    "request_out",
]


def _history(lines: Sequence[StatusChange[Any]]) -> list[HistoryOut]:
    return [HistoryOut(status=line.status.value, data=format_timestamp(line.at)) for line in lines]


def _closing(closing: Closing | None) -> ClosingOut | None:
    if closing is None:
        return None
    if closing.kind is ClosingKind.REJEICAO:
        return ClosingOut(rejeicao=RejectionOut(codigo=closing.code, descricao=closing.description))
    requester = closing.requester.value if closing.requester else None
    return ClosingOut(
        cancelamento=CancellationOut(
            codigo=closing.code, descricao=closing.description, solicitante=requester
        )
    )


def _person(document: str) -> dict[str, str]:
    """``{"cpf": ...}`` or ``{"cnpj": ...}`` as the document is."""
    return {"cpf" if len(parse_document(document).value) == 11 else "cnpj": document}


def _link(recurrence: Recurrence) -> LinkOut:
    debtor = DebtorOut(nome=recurrence.debtor.name, **_person(recurrence.debtor.document))
    return LinkOut(contrato=recurrence.contract, devedor=debtor, objeto=recurrence.purpose)


def _calendar(recurrence: Recurrence) -> RecCalendarOut:
    return RecCalendarOut(
        data_inicial=recurrence.start.isoformat(),
        periodicidade=recurrence.periodicity.value,
        data_final=recurrence.end.isoformat() if recurrence.end else None,
    )


def _value(recurrence: Recurrence) -> ValueOut | None:
    fixed, minimum = recurrence.fixed_amount, recurrence.minimum_amount
    if fixed is None and minimum is None:
        return None
    return ValueOut(
        valor_rec=format_amount_string(fixed) if fixed is not None else None,
        valor_minimo_recebedor=format_amount_string(minimum) if minimum is not None else None,
    )


def _receiver(account: Account, **extra: Any) -> ReceiverOut:
    return ReceiverOut(nome=account.name, **_person(account.document), **extra)


def location_out(location: RecurrenceLocation, prefix: str) -> RecLocOut:
    """The standard's ``PayloadLocationRecCompleta``: ``location`` the payload's URL without scheme."""
    return RecLocOut(
        id=location.id,
        location=location.url(prefix),
        criacao=format_timestamp(location.created_at),
        id_rec=location.rec_id,
    )


def _activation(recurrence: Recurrence) -> ActivationOut:
    txid = recurrence.journey_txid
    return ActivationOut(
        tipo_jornada=recurrence.journey.value,
        dados_jornada=JourneyDataOut(txid=txid) if txid is not None else None,
    )


def payload_out(recurrence: Recurrence, account: Account) -> RecPayloadOut:
    """The standard's ``RecPayload``: the recurrence as a payer's bank reads it."""
    return RecPayloadOut(
        id_rec=recurrence.rec_id,
        vinculo=_link(recurrence),
        calendario=_calendar(recurrence),
        valor=_value(recurrence),
        recebedor=_receiver(account, ispb_participante=account.ispb),
        politica_retentativa=recurrence.retry_policy.value,
        atualizacao=_history(recurrence.history),
    )


def request_out(
    request: RecurrenceRequest, status: RequestStatus, recurrence: Recurrence, account: Account
) -> SolicRecOut:
    """The standard's ``SolicRecCompleta``, ``status`` the one a reader sees now."""
    recipient = request.recipient
    return SolicRecOut(
        id_solic_rec=request.request_id,
        id_rec=request.rec_id,
        calendario=RequestCalendarOut(data_expiracao_solicitacao=format_timestamp(request.expires_at)),
        destinatario=RecipientOut(
            conta=request.recipient_account,
            ispb_participante=recipient.ispb,
            agencia=request.recipient_branch,
            **_person(recipient.document),
        ),
        status=status.value,
        atualizacao=_history(request.history),
        rec_payload=payload_out(recurrence, account),
    )


def _payer(recurrence: Recurrence) -> PayerOut | None:
    payer = recurrence.payer
    if payer is None:
        return None
    return PayerOut(ispb_participante=payer.ispb, cod_mun=payer.city_code, **_person(payer.document))


def recurrence_out(
    recurrence: Recurrence,
    account: Account,
    prefix: str,
    *,
    status: RecurrenceStatus | None = None,
    location: RecurrenceLocation | None = None,
    requests: Sequence[tuple[RecurrenceRequest, RequestStatus]] | None = None,
    qr: tuple[str, str] | None = None,
    complete: bool = False,
) -> RecOut:
    """The standard's ``RecGerada`` (``complete``: ``RecCompleta``, with the payer, the requests and
    the composite code ``qr``, its journey and code); ``status``: the one a reader sees now."""
    return RecOut(
        id_rec=recurrence.rec_id,
        vinculo=_link(recurrence),
        calendario=_calendar(recurrence),
        valor=_value(recurrence),
        recebedor=_receiver(account, convenio=recurrence.agreement),
        pagador=_payer(recurrence) if complete else None,
        status=(status or recurrence.status).value,
        politica_retentativa=recurrence.retry_policy.value,
        loc=location_out(location, prefix) if location is not None else None,
        atualizacao=_history(recurrence.history),
        encerramento=_closing(recurrence.closing),
        solicitacao=[request_out(r, s, recurrence, account) for r, s in requests] if requests else None,
        ativacao=_activation(recurrence),
        dados_qr=QrOut(jornada=qr[0], pix_copia_e_cola=qr[1]) if qr is not None else None,
    )


def recurrences_out(
    query: RecurrenceListQuery, listing: RecurrenceListing, account: Account, prefix: str
) -> RecsOut:
    """A page of ``GET /rec`` (each recurrence's status the one a reader sees now)."""
    today = today_of(listing.now)
    agreement = AgreementIn(convenio=query.agreement) if query.agreement is not None else None
    return RecsOut(
        parametros=RecQueryOut(
            **period_fields(query, listing.total),
            cpf=query.cpf,
            cnpj=query.cnpj,
            location_presente=query.location_present,
            status=query.other_status if query.status is None else query.status.value,
            recebedor=agreement,
        ),
        recs=[recurrence_out(r, account, prefix, status=r.status_at(today)) for r in listing.recurrences],
    )


def _attempt(attempt: Attempt) -> CobRAttemptOut:
    rejection = attempt.rejection
    return CobRAttemptOut(
        data_liquidacao=attempt.settles_on.isoformat(),
        tipo=attempt.type.value,
        status=attempt.status.value,
        end_to_end_id=attempt.end_to_end_id,
        atualizacao=_history(attempt.history),
        rejeicao=RejectionOut(codigo=rejection.code, descricao=rejection.description) if rejection else None,
    )


def _address(charge: RecurringCharge) -> AddressOut | None:
    parts = (
        charge.debtor_email,
        charge.debtor_street,
        charge.debtor_city,
        charge.debtor_state,
        charge.debtor_postal_code,
    )
    if all(part is None for part in parts):
        return None
    email, street, city, state, postal_code = parts
    return AddressOut(email=email, logradouro=street, cidade=city, uf=state, cep=postal_code)


def _paid(charge: RecurringCharge) -> list[PaidOut] | None:
    attempt = charge.paid_by
    if attempt is None or charge.paid_at is None:
        return None
    return [
        PaidOut(
            end_to_end_id=attempt.end_to_end_id,
            txid=charge.txid,
            valor=format_amount_string(charge.amount),
            horario=format_timestamp(charge.paid_at),
        )
    ]


def charge_out(charge: RecurringCharge, account: Account) -> CobROut:
    """The standard's ``CobRCompleta`` (``CobRGerada`` is the same at its creation); ``account``
    the receiver's, its holder named in ``recebedor``."""
    return CobROut(
        id_rec=charge.rec_id,
        txid=charge.txid,
        info_adicional=charge.information,
        calendario=CobRCalendarOut(
            criacao=today_of(charge.created_at).isoformat(),
            data_de_vencimento=charge.due_date.isoformat(),
        ),
        valor=AmountOut(original=format_amount_string(charge.amount)),
        ajuste_dia_util=charge.adjust_to_business_day,
        recebedor=AccountOut(
            conta=charge.receiver_account,
            tipo_conta=charge.receiver_account_type,
            agencia=charge.receiver_branch,
            nome=account.name,
            **_person(account.document),
        ),
        status=charge.status.value,
        politica_retentativa=charge.retry_policy.value,
        devedor=_address(charge),
        pix=_paid(charge),
        atualizacao=_history(charge.history),
        encerramento=_closing(charge.closing),
        tentativas=[_attempt(attempt) for attempt in charge.attempts],
    )


def charges_out(query: ChargeListQuery, listing: RecurringChargeListing, account: Account) -> CobsROut:
    """A page of ``GET /cobr``."""
    return CobsROut(
        parametros=CobRQueryOut(
            **period_fields(query, listing.total),
            id_rec=query.rec_id,
            cpf=query.cpf,
            cnpj=query.cnpj,
            status=query.other_status if query.status is None else query.status.value,
        ),
        cobsr=[charge_out(charge, account) for charge in listing.charges],
    )


def locations_out(query: LocationListQuery, listing: LocationListing, prefix: str) -> LocsRecOut:
    """A page of ``GET /locrec``."""
    return LocsRecOut(
        parametros=LocRecQueryOut(
            **period_fields(query, listing.total),
            id_rec_presente=query.rec_present,
        ),
        loc=[location_out(location, prefix) for location in listing.locations],
    )
