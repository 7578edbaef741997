"""The DICT API's MED between institutions, as the central bank's document gives it: infraction
reports (``createInfractionReport``, ``listInfractionReport``, ``getInfractionReport``,
acknowledge, close, cancel) and refund requests (``createRefund``, ``listRefund``, ``getRefund``,
close, cancel); the rules are ``pixnet.directory.med``; each write signed by its participant and
counted against the document's policies."""

from __future__ import annotations

import uuid

from aiohttp import web

from pixnet.directory import med as rules
from pixnet.directory.policies import PolicyName
from pixnet.server.common import (
    CORRELATION_ID,
    NETWORK,
    caller,
    query_flag,
    query_instant,
    query_limit,
    query_values,
    signed,
    signed_body,
)
from pixnet.server.directory import API, header, spend
from pixwire.dict.med import InfractionStatus, RefundRole, RefundStatus
from pixwire.dict.med_documents import (
    ReportStep,
    read_cancel_refund,
    read_close_refund,
    read_create_refund,
    read_create_report,
    read_report_step,
    refund_response,
    refunds_response,
    report_response,
    reports_response,
)
from pixwire.dict.model import DictProblem, ErrorType

__all__ = ["add_routes"]


def _as(request: web.Request, participant: str) -> str:
    """The caller's ISPB, which the document's ``Participant`` must be."""
    ispb = caller(request).ispb
    if participant != ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "Participant is not the caller's ISPB")
    return ispb


def _id(request: web.Request, name: str) -> uuid.UUID:
    try:
        return uuid.UUID(request.match_info[name])
    except ValueError:
        raise DictProblem(ErrorType.NOT_FOUND, "no such resource") from None


def _reader(request: web.Request) -> str:
    ispb = caller(request).ispb
    if header(request, "PI-RequestingParticipant") != ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "PI-RequestingParticipant is not the caller's ISPB")
    return ispb


async def create_report(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.INFRACTION_REPORTS_WRITE)
    participant, asked = read_create_report(await signed_body(request))
    now = network.now()
    report = await rules.create_report(network.med, asked, requester=_as(request, participant), now=now)
    answer = report_response(
        "CreateInfractionReportResponse", report, correlation_id=request[CORRELATION_ID], now=now
    )
    return signed(network, answer, 201)


async def read_report(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.INFRACTION_REPORTS_READ)
    report = await rules.get_report(network.med, _id(request, "report_id"), requester=_reader(request))
    answer = report_response(
        "GetInfractionReportResponse", report, correlation_id=request[CORRELATION_ID], now=network.now()
    )
    return signed(network, answer, 200)


async def report_step(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    try:
        step = ReportStep(request.match_info["step"])
    except ValueError:
        raise DictProblem(ErrorType.NOT_FOUND, "no such resource") from None
    spend(request, PolicyName.INFRACTION_REPORTS_WRITE)
    action = read_report_step(await signed_body(request), step, _id(request, "report_id"))
    ispb, now = caller(request).ispb, network.now()
    if step is ReportStep.ACKNOWLEDGE:
        report = await rules.acknowledge_report(
            network.med, action.report_id, participant=action.participant, requester=ispb, now=now
        )
    elif step is ReportStep.CANCEL:
        report = await rules.cancel_report(
            network.med, action.report_id, participant=action.participant, requester=ispb, now=now
        )
    else:
        if action.result is None:  # read_report_step requires it for a closing
            raise DictProblem(ErrorType.BAD_REQUEST, "AnalysisResult is required")
        report = await rules.close_report(
            network.med,
            action.report_id,
            participant=action.participant,
            result=action.result,
            details=action.details,
            requester=ispb,
            now=now,
        )
    answer = report_response(step.response, report, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 200)


def _query(request: web.Request, statuses: type[InfractionStatus] | type[RefundStatus]) -> rules.MedQuery:
    try:
        wanted = tuple(statuses(value).value for value in query_values(request, "Status"))
        role = request.query.get("ParticipantRole")
        return rules.MedQuery(
            participant=request.query.get("Participant", ""),
            is_debited=query_flag(request, "IsDebited"),
            is_credited=query_flag(request, "IsCredited"),
            role=None if role is None else RefundRole(role),
            statuses=wanted,
            modified_after=query_instant(request, "ModifiedAfter"),
            modified_before=query_instant(request, "ModifiedBefore"),
            limit=query_limit(request),
        )
    except ValueError as exc:
        raise DictProblem(ErrorType.BAD_REQUEST, f"a filter is out of its domain: {exc}") from None


async def list_reports(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    query = _query(request, InfractionStatus)
    with_role = query.is_debited is not None or query.is_credited is not None
    spend(
        request,
        PolicyName.INFRACTION_REPORTS_LIST_WITH_ROLE
        if with_role
        else PolicyName.INFRACTION_REPORTS_LIST_WITHOUT_ROLE,
    )
    found, more = await rules.list_reports(network.med, query, requester=caller(request).ispb)
    answer = reports_response(found, more, correlation_id=request[CORRELATION_ID], now=network.now())
    return signed(network, answer, 200)


async def create_refund(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.REFUNDS_WRITE)
    participant, asked = read_create_refund(await signed_body(request))
    now = network.now()
    refund = await rules.create_refund(network.med, asked, requester=_as(request, participant), now=now)
    answer = refund_response("CreateRefundResponse", refund, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 201)


async def read_refund(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.REFUNDS_READ)
    refund = await rules.get_refund(network.med, _id(request, "refund_id"), requester=_reader(request))
    answer = refund_response(
        "GetRefundResponse", refund, correlation_id=request[CORRELATION_ID], now=network.now()
    )
    return signed(network, answer, 200)


async def close_refund(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.REFUNDS_WRITE)
    closing = read_close_refund(await signed_body(request), _id(request, "refund_id"))
    now = network.now()
    refund = await rules.close_refund(
        network.med,
        closing.refund_id,
        participant=closing.participant,
        result=closing.result,
        details=closing.details,
        rejection=closing.rejection,
        refund_transaction_id=closing.refund_transaction_id,
        requester=caller(request).ispb,
        now=now,
    )
    answer = refund_response("CloseRefundResponse", refund, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 200)


async def cancel_refund(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.REFUNDS_WRITE)
    refund_id = _id(request, "refund_id")
    participant = read_cancel_refund(await signed_body(request), refund_id)
    now = network.now()
    refund = await rules.cancel_refund(
        network.med, refund_id, participant=participant, requester=caller(request).ispb, now=now
    )
    answer = refund_response("CancelRefundResponse", refund, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 200)


async def list_refunds(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.REFUND_LIST_WITH_ROLE)  # the role is required
    query = _query(request, RefundStatus)
    found, more = await rules.list_refunds(network.med, query, requester=caller(request).ispb)
    answer = refunds_response(found, more, correlation_id=request[CORRELATION_ID], now=network.now())
    return signed(network, answer, 200)


def add_routes(app: web.Application) -> None:
    app.router.add_post(f"{API}/infraction-reports/", create_report)
    app.router.add_get(f"{API}/infraction-reports/", list_reports)
    app.router.add_get(f"{API}/infraction-reports/{{report_id}}", read_report)
    app.router.add_post(f"{API}/infraction-reports/{{report_id}}/{{step}}", report_step)
    app.router.add_post(f"{API}/refunds/", create_refund)
    app.router.add_get(f"{API}/refunds/", list_refunds)
    app.router.add_get(f"{API}/refunds/{{refund_id}}", read_refund)
    app.router.add_post(f"{API}/refunds/{{refund_id}}/close", close_refund)
    app.router.add_post(f"{API}/refunds/{{refund_id}}/cancel", cancel_refund)
