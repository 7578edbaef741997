"""Requests for the payer's authorization (``/solicrec``, JORNADA_1): the receiver asks the holder
of an account at another institution to authorize a CRIADA recurrence; the holder's bank (the
sandbox's, :mod:`pixcore.recurrences.payer_service`) receives it and the holder answers.

A recurrence has at most one request open (CRIADA, ENVIADA or RECEBIDA) at a time; one past its
``dataExpiracaoSolicitacao`` reads EXPIRADA, and is stored so when a new request replaces it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixcore.charges.cob_service import load_account
from pixcore.clock import Clock
from pixcore.identifiers import new_recurrence_request_id
from pixcore.problems import Problem
from pixcore.recurrences.closing import today_of
from pixcore.recurrences.errors import (
    ActiveRequestExists,
    InvalidRecurrenceRequest,
    RecurrenceNotFound,
    RecurrenceRequestNotFound,
    RecurrenceTransition,
)
from pixcore.recurrences.lifecycles import RecurrenceStatus, RequestLifecycle, RequestStatus
from pixcore.recurrences.records import NewRecurrenceRequest, Recurrence, RecurrenceRequest
from pixcore.recurrences.requests import RequestField, RequestTerms
from pixcore.recurrences.terms import RECEIVER_NOT_A_COMPANY, receives_by_pix_automatico

if TYPE_CHECKING:
    from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["RequestView", "cancel_recurrence_request", "create_recurrence_request", "read_recurrence_request"]


@dataclass(frozen=True, slots=True)
class RequestView:
    """A request as ``/solicrec`` shows it: with its recurrence (``recPayload``); ``status`` is
    the one a reader sees now (past its expiry: EXPIRADA)."""

    request: RecurrenceRequest
    status: RequestStatus
    recurrence: Recurrence


async def create_recurrence_request(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, terms: RequestTerms
) -> RequestView:
    """``POST /solicrec``: a new CRIADA request to authorize the account's CRIADA recurrence
    ``terms.rec_id``. Refused while the recurrence has another open request, and for a person's
    account (a recurrence it made before Pix Automático received for companies only)."""
    now = clock.now()
    terms.judge(now)
    async with uow() as tx:
        account = await load_account(tx, account_id)
        recurrence = await tx.recurrences.lock(account_id, terms.rec_id)
        if recurrence is None:
            raise RecurrenceNotFound()
        if not receives_by_pix_automatico(account.document):  # a recurrence made before the rule
            problem = Problem.of(RequestField.REC_ID, RECEIVER_NOT_A_COMPANY)
            raise InvalidRecurrenceRequest(problem, problems=[problem])
        status = recurrence.status_at(today_of(now))
        if status is not RecurrenceStatus.CRIADA:
            text = f"the recurrence is {status.value}: only a CRIADA one is asked for authorization"
            problem = Problem.of(RequestField.REC_ID, text)
            raise InvalidRecurrenceRequest(problem, problems=[problem])
        for earlier in await tx.recurrence_requests.of_recurrence(recurrence.id):
            if earlier.status.open:
                if earlier.status_at(now) is not RequestStatus.EXPIRADA:
                    raise ActiveRequestExists(f"the request {earlier.request_id} is {earlier.status.value}")
                expired = RequestLifecycle(earlier.status).expire()
                await tx.recurrence_requests.save(earlier.moved(expired, earlier.expires_at))
        request = await tx.recurrence_requests.add(
            NewRecurrenceRequest(
                account_id=account_id,
                request_id=new_recurrence_request_id(account.ispb, today_of(now)),
                recurrence_id=recurrence.id,
                rec_id=recurrence.rec_id,
                recipient=terms.recipient,
                recipient_account=terms.recipient_account,
                recipient_branch=terms.recipient_branch,
                expires_at=terms.expires_at,
                created_at=now,
            )
        )
        await tx.commit()
    return RequestView(request, request.status, recurrence)


async def read_recurrence_request(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, request_id: str
) -> RequestView:
    """``GET /solicrec/{idSolicRec}``: the account's request, with its recurrence."""
    now = clock.now()
    async with uow() as tx:
        request = await tx.recurrence_requests.get(account_id, request_id)
        if request is None:
            raise RecurrenceRequestNotFound()
        recurrence = await tx.recurrences.get(account_id, request.rec_id)
    if recurrence is None:  # a request's recurrence is never deleted
        raise RecurrenceRequestNotFound()
    return RequestView(request, request.status_at(now), recurrence)


async def cancel_recurrence_request(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, request_id: str
) -> RequestView:
    """``PATCH /solicrec/{idSolicRec}`` with status CANCELADA: only an open request (CRIADA,
    ENVIADA or RECEBIDA, not past its expiry) is cancelled; its recurrence stays as it is."""
    now = clock.now()
    async with uow() as tx:
        request = await tx.recurrence_requests.lock(account_id, request_id)
        if request is None:
            raise RecurrenceRequestNotFound()
        try:
            status = RequestLifecycle(request.status_at(now)).cancel()
        except RecurrenceTransition:
            raise InvalidRecurrenceRequest(
                "A request whose status is not CRIADA, ENVIADA or RECEBIDA cannot be cancelled."
            ) from None
        cancelled = request.moved(status, now)
        await tx.recurrence_requests.save(cancelled)
        recurrence = await tx.recurrences.get(account_id, request.rec_id)
        await tx.commit()
    if recurrence is None:
        raise RecurrenceRequestNotFound()
    return RequestView(cancelled, cancelled.status, recurrence)
