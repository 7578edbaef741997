"""What the network's routes share: the network a request reaches, who calls (by the client
certificate), signed answers, and every refusal as the DICT's signed ``problem``: a body that is
no acceptable XML is ``BadRequest``, a write whose signature is missing or not its sender's
``RequestSignatureInvalid`` (logged), a connection whose certificate no participant registered
``Forbidden``, a failure of the network itself ``ServiceUnavailable`` (503, logged with its trace),
never a stack trace.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
from aiohttp import web

from pixnet.directory.claims import ClaimPeriods
from pixnet.directory.policies import Buckets
from pixnet.server.tls import peer_fingerprint
from pixnet.settlement.spi import Spi
from pixnet.store.claims import PostgresDirectory
from pixnet.store.entries import Participant, participant_by_fingerprint
from pixnet.store.med import PostgresMed
from pixwire.dict.documents import problem_document
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.signatures import SignatureRefused, sign, verify
from pixwire.xml import MAX_BODY, BadXml, Element, serialize

__all__ = [
    "CORRELATION_ID",
    "NETWORK",
    "Identity",
    "Network",
    "caller",
    "problems",
    "query_flag",
    "query_instant",
    "query_limit",
    "query_values",
    "signed",
    "signed_body",
]

log = logging.getLogger(__name__)

XML = "application/xml"


@dataclass(frozen=True, slots=True)
class Identity:
    """The network's own certificate and key: it signs every answer with them."""

    certificate_pem: bytes
    private_key_pem: bytes


@dataclass(frozen=True, slots=True)
class Network:
    """What every route is handed: the database, the directory's store, the SPI, the network's
    identity and clock."""

    pool: asyncpg.Pool[Any]
    store: PostgresDirectory
    spi: Spi
    identity: Identity
    now: Callable[[], datetime]
    buckets: Buckets
    """The rate-limiting policies' buckets (``pixnet.directory.policies``)."""
    claim_periods: ClaimPeriods
    med: PostgresMed
    """The DICT's infraction reports and refund requests."""


NETWORK = web.AppKey("network", Network)
CORRELATION_ID = web.RequestKey("correlation_id", str)
PARTICIPANT = web.RequestKey("participant", Participant)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def signed(network: Network, root: Element, status: int) -> web.Response:
    identity = network.identity
    body = serialize(sign(root, key_pem=identity.private_key_pem, cert_pem=identity.certificate_pem))
    return web.Response(body=body, status=status, content_type=XML)


def _problem(network: Network, problem: DictProblem, correlation_id: str) -> web.Response:
    document = problem_document(
        problem.type, problem.detail, correlation_id=correlation_id, violations=problem.violations
    )
    return signed(network, document, problem.type.status)


_HTTP_PROBLEMS = {
    404: (ErrorType.NOT_FOUND, "no such resource"),
    405: (ErrorType.BAD_REQUEST, "the resource does not take this method"),
    413: (ErrorType.BAD_REQUEST, f"the body is over {MAX_BODY} bytes"),
}


@web.middleware
async def problems(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Who calls (by the certificate), and every refusal as the DICT's signed ``problem``."""
    network = request.app[NETWORK]
    correlation_id = uuid.uuid4().hex
    request[CORRELATION_ID] = correlation_id
    try:
        request[PARTICIPANT] = await _participant(network, request)
        return await handler(request)
    except DictProblem as problem:
        return _problem(network, problem, correlation_id)
    except BadXml as exc:
        return _problem(network, DictProblem(ErrorType.BAD_REQUEST, str(exc)), correlation_id)
    except SignatureRefused as exc:
        who = request.get(PARTICIPANT)
        log.warning(
            "request signature refused: %s",
            exc,
            extra={"participant": who.ispb if who else None, "path": request.path},
        )
        refused = DictProblem(ErrorType.REQUEST_SIGNATURE_INVALID, str(exc))
        return _problem(network, refused, correlation_id)
    except web.HTTPException as exc:
        type_, detail = _HTTP_PROBLEMS.get(exc.status, (ErrorType.BAD_REQUEST, exc.reason))
        return _problem(network, DictProblem(type_, detail), correlation_id)
    except Exception:
        log.exception("the network failed a request", extra={"path": request.path})
        unavailable = DictProblem(ErrorType.SERVICE_UNAVAILABLE, "the network could not answer; try again")
        return _problem(network, unavailable, correlation_id)


async def _participant(network: Network, request: web.Request) -> Participant:
    """The participant whose registered certificate the connection presented."""
    found = peer_fingerprint(request.transport)
    participant = None if found is None else await participant_by_fingerprint(network.pool, found)
    if participant is None:
        raise DictProblem(ErrorType.FORBIDDEN, "the client certificate is no participant's")
    return participant


def caller(request: web.Request) -> Participant:
    return request[PARTICIPANT]


async def signed_body(request: web.Request) -> Element:
    """The request's root, verified as signed by the calling participant."""
    return verify(await request.read(), cert_pem=caller(request).certificate)


def query_flag(request: web.Request, name: str) -> bool | None:
    """A listing's boolean filter (``true`` or ``false``; None when absent)."""
    raw = request.query.get(name)
    if raw is None:
        return None
    if raw not in {"true", "false"}:
        raise DictProblem(ErrorType.BAD_REQUEST, f"{name} is true or false")
    return raw == "true"


def query_instant(request: web.Request, name: str) -> datetime | None:
    """A listing's date-time filter, with its offset (None when absent)."""
    raw = request.query.get(name)
    if raw is None:
        return None
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        raise DictProblem(ErrorType.BAD_REQUEST, f"{name} is a date-time (RFC 3339)") from None
    if parsed.tzinfo is None:
        raise DictProblem(ErrorType.BAD_REQUEST, f"{name} is a date-time with its offset")
    return parsed


def query_values(request: web.Request, name: str) -> list[str]:
    """A listing's filter of several values: the parameter repeated, or its values comma-separated."""
    return [value for raw in request.query.getall(name, []) for value in raw.split(",") if value]


def query_limit(request: web.Request) -> int:
    """A listing's ``Limit`` (20 when absent; a value that is no number is ``BadRequest``)."""
    raw = request.query.get("Limit", "20")
    if not raw.isdigit():
        raise DictProblem(ErrorType.BAD_REQUEST, f"Limit is a whole number, not {raw!r}")
    return int(raw)
