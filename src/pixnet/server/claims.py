"""The DICT API's claims, as the central bank's document gives them: ``createClaim``,
``listClaims``, ``getClaim`` and the steps ``acknowledge``, ``confirm``, ``cancel`` and
``complete`` (the rules: ``pixnet.directory.claims``), each write signed by its participant and
counted against the document's ``CLAIMS_*`` policies."""

from __future__ import annotations

import uuid

from aiohttp import web

from pixnet.directory import claims as rules
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
from pixwire.dict.claim_documents import (
    ClaimStep,
    claim_response,
    claims_response,
    read_claim_step,
    read_create_claim,
)
from pixwire.dict.model import ClaimQuery, ClaimStatus, ClaimType, DictProblem, ErrorType

__all__ = ["add_routes"]


async def create(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.CLAIMS_WRITE)
    asked = read_create_claim(await signed_body(request))
    now = network.now()
    claim = await rules.create_claim(
        network.store, asked, requester=caller(request).ispb, now=now, periods=network.claim_periods
    )
    answer = claim_response("CreateClaimResponse", claim, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 201)


def _claim_id(request: web.Request) -> uuid.UUID:
    try:
        return uuid.UUID(request.match_info["claim_id"])
    except ValueError:
        raise DictProblem(ErrorType.NOT_FOUND, "no claim has this id") from None


async def read(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    if header(request, "PI-RequestingParticipant") != caller(request).ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "PI-RequestingParticipant is not the caller's ISPB")
    spend(request, PolicyName.CLAIMS_READ)
    claim = await rules.get_claim(network.store, _claim_id(request), requester=caller(request).ispb)
    answer = claim_response(
        "GetClaimResponse", claim, correlation_id=request[CORRELATION_ID], now=network.now()
    )
    return signed(network, answer, 200)


_STEPS = {
    ClaimStep.ACKNOWLEDGE: rules.acknowledge_claim,
    ClaimStep.CONFIRM: rules.confirm_claim,
    ClaimStep.CANCEL: rules.cancel_claim,
    ClaimStep.COMPLETE: rules.complete_claim,
}


async def step(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    try:
        taken = ClaimStep(request.match_info["step"])
    except ValueError:
        raise DictProblem(ErrorType.NOT_FOUND, "no such resource") from None
    spend(request, PolicyName.CLAIMS_WRITE)
    action = read_claim_step(await signed_body(request), taken, _claim_id(request))
    now = network.now()
    claim = await _STEPS[taken](network.store, action, requester=caller(request).ispb, now=now)
    entry = None
    if taken is ClaimStep.COMPLETE:
        entry = await network.store.by_key(claim.asked.key)
    answer = claim_response(
        taken.response, claim, correlation_id=request[CORRELATION_ID], now=now, entry=entry
    )
    return signed(network, answer, 200)


def _query(request: web.Request) -> ClaimQuery:
    try:
        statuses = tuple(ClaimStatus(value) for value in query_values(request, "Status"))
        type_ = request.query.get("Type")
        limit = query_limit(request)
        return ClaimQuery(
            participant=request.query.get("Participant", ""),
            is_donor=query_flag(request, "IsDonor"),
            is_claimer=query_flag(request, "IsClaimer"),
            statuses=statuses,
            type=None if type_ is None else ClaimType(type_),
            modified_after=query_instant(request, "ModifiedAfter"),
            modified_before=query_instant(request, "ModifiedBefore"),
            limit=limit,
        )
    except ValueError as exc:
        raise DictProblem(ErrorType.BAD_REQUEST, f"a filter is out of its domain: {exc}") from None


async def listed(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    query = _query(request)
    with_role = query.is_donor is not None or query.is_claimer is not None
    spend(request, PolicyName.CLAIMS_LIST_WITH_ROLE if with_role else PolicyName.CLAIMS_LIST_WITHOUT_ROLE)
    found, more = await rules.list_claims(network.store, query, requester=caller(request).ispb)
    answer = claims_response(found, more, correlation_id=request[CORRELATION_ID], now=network.now())
    return signed(network, answer, 200)


def add_routes(app: web.Application) -> None:
    app.router.add_post(f"{API}/claims/", create)
    app.router.add_get(f"{API}/claims/", listed)
    app.router.add_get(f"{API}/claims/{{claim_id}}", read)
    app.router.add_post(f"{API}/claims/{{claim_id}}/{{step}}", step)
