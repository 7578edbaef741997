"""The DICT API, as the central bank's document gives it, over mutual TLS.

Routes (the document's paths under its base ``/api/v1``; ``keys/check`` under ``/api-np/v1``, as
the document serves it):

* ``POST /api/v1/entries/``: ``createEntry`` (a signed ``CreateEntryRequest``), 201;
* ``GET /api/v1/entries/{Key}``: ``getEntry``, with the anti-fraud ``Statistics``; the headers
  ``PI-RequestingParticipant`` (the caller's own ISPB), ``PI-PayerId`` and ``PI-EndToEndId`` are
  required, as the document says;
* ``POST /api/v1/entries/{Key}/delete``: ``deleteEntry`` (a signed ``DeleteEntryRequest``);
* ``POST /api-np/v1/keys/check``: ``checkKeys``.

Every answer, refusals included, is XML signed by the network; a refusal is the DICT's
``problem`` with its type and HTTP status, never a stack trace: a body that is no acceptable XML
is ``BadRequest``, a write whose signature is missing or not its sender's
``RequestSignatureInvalid`` (logged), a connection whose certificate no participant registered
``Forbidden``, a failure of the network itself ``ServiceUnavailable`` (503, logged with its trace).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg
from aiohttp import web

from pixcore.errors import InvalidPixKey
from pixcore.keys import parse_pix_key
from pixnet.directory.entries import create_entry, delete_entry, get_entry
from pixnet.server.tls import peer_fingerprint
from pixnet.store.entries import Participant, PostgresEntryStore, participant_by_fingerprint
from pixwire.dict.documents import (
    check_keys_response,
    create_entry_response,
    delete_entry_response,
    get_entry_response,
    problem_document,
    read_check_keys,
    read_create_entry,
    read_delete_entry,
)
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.signatures import SignatureRefused, sign, verify
from pixwire.xml import MAX_BODY, BadXml, Element, parse, serialize

__all__ = ["Identity", "make_app"]

log = logging.getLogger(__name__)

XML = "application/xml"
API = "/api/v1"
API_NP = "/api-np/v1"


@dataclass(frozen=True, slots=True)
class Identity:
    """The network's own certificate and key: it signs every answer with them."""

    certificate_pem: bytes
    private_key_pem: bytes


@dataclass(frozen=True, slots=True)
class Network:
    pool: asyncpg.Pool[Any]
    store: PostgresEntryStore
    identity: Identity
    now: Callable[[], datetime]


NETWORK = web.AppKey("network", Network)
CORRELATION_ID = web.RequestKey("correlation_id", str)
PARTICIPANT = web.RequestKey("participant", Participant)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _signed(network: Network, root: Element, status: int) -> web.Response:
    identity = network.identity
    body = serialize(sign(root, key_pem=identity.private_key_pem, cert_pem=identity.certificate_pem))
    return web.Response(body=body, status=status, content_type=XML)


def _problem(network: Network, problem: DictProblem, correlation_id: str) -> web.Response:
    document = problem_document(
        problem.type, problem.detail, correlation_id=correlation_id, violations=problem.violations
    )
    return _signed(network, document, problem.type.status)


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


def _caller(request: web.Request) -> Participant:
    return request[PARTICIPANT]


async def _signed_body(request: web.Request) -> Element:
    """The request's root, verified as signed by the calling participant."""
    return verify(await request.read(), cert_pem=_caller(request).certificate)


def _key(request: web.Request) -> str:
    """The path's key in its canonical form (a key no type takes has no entry: ``NotFound``)."""
    try:
        return parse_pix_key(request.match_info["key"]).value
    except InvalidPixKey:
        raise DictProblem(ErrorType.NOT_FOUND, "no entry has this key") from None


async def create(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    asked = read_create_entry(await _signed_body(request))
    now = network.now()
    entry = await create_entry(network.store, asked, requester=_caller(request).ispb, now=now)
    answer = create_entry_response(entry, correlation_id=request[CORRELATION_ID], now=now)
    return _signed(network, answer, 201)


def _header(request: web.Request, name: str) -> str:
    value = request.headers.get(name, "")
    if not value:
        raise DictProblem(ErrorType.BAD_REQUEST, f"the {name} header is required")
    return value


async def read(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    if _header(request, "PI-RequestingParticipant") != _caller(request).ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "PI-RequestingParticipant is not the caller's ISPB")
    _header(request, "PI-PayerId")
    _header(request, "PI-EndToEndId")
    entry = await get_entry(network.store, _key(request))
    now = network.now()
    statistics = await network.store.statistics(entry, now)
    answer = get_entry_response(entry, statistics, correlation_id=request[CORRELATION_ID], now=now)
    return _signed(network, answer, 200)


async def delete(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    asked = read_delete_entry(await _signed_body(request), _key(request))
    entry = await delete_entry(network.store, asked, requester=_caller(request).ispb)
    answer = delete_entry_response(entry, correlation_id=request[CORRELATION_ID], now=network.now())
    return _signed(network, answer, 200)


async def check_keys(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    asked = read_check_keys(parse(await request.read()))
    answers = []
    for key in asked:
        try:
            canonical = parse_pix_key(key).value
        except InvalidPixKey:
            answers.append((key, False))
            continue
        answers.append((key, await network.store.by_key(canonical) is not None))
    answer = check_keys_response(answers, correlation_id=request[CORRELATION_ID], now=network.now())
    return _signed(network, answer, 200)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def make_app(
    pool: asyncpg.Pool[Any], identity: Identity, *, now: Callable[[], datetime] = _utc_now
) -> web.Application:
    """The DICT application on ``pool`` (a migrated network database), signing with ``identity``."""
    app = web.Application(middlewares=[problems], client_max_size=MAX_BODY)
    app[NETWORK] = Network(pool, PostgresEntryStore(pool), identity, now)
    app.router.add_post(f"{API}/entries/", create)
    app.router.add_get(f"{API}/entries/{{key}}", read)
    app.router.add_post(f"{API}/entries/{{key}}/delete", delete)
    app.router.add_post(f"{API_NP}/keys/check", check_keys)
    return app
