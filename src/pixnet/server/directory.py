"""The DICT API, as the central bank's document gives it (the routes' table is in docs/network.md):
``createEntry``, ``getEntry`` (with its anti-fraud ``Statistics``; the headers
``PI-RequestingParticipant``, the caller's own ISPB, ``PI-PayerId`` and ``PI-EndToEndId`` are
required, as the document says), ``deleteEntry`` and ``checkKeys``, under the document's bases
``/api/v1`` and ``/api-np/v1``."""

from __future__ import annotations

from aiohttp import web

from pixcore.errors import InvalidPixKey
from pixcore.keys import parse_pix_key
from pixnet.directory.entries import create_entry, delete_entry, get_entry
from pixnet.server.common import CORRELATION_ID, NETWORK, caller, signed, signed_body
from pixwire.dict.documents import (
    check_keys_response,
    create_entry_response,
    delete_entry_response,
    get_entry_response,
    read_check_keys,
    read_create_entry,
    read_delete_entry,
)
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.xml import parse

__all__ = ["add_routes"]

API = "/api/v1"
API_NP = "/api-np/v1"


def _key(request: web.Request) -> str:
    """The path's key in its canonical form (a key no type takes has no entry: ``NotFound``)."""
    try:
        return parse_pix_key(request.match_info["key"]).value
    except InvalidPixKey:
        raise DictProblem(ErrorType.NOT_FOUND, "no entry has this key") from None


async def create(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    asked = read_create_entry(await signed_body(request))
    now = network.now()
    entry = await create_entry(network.store, asked, requester=caller(request).ispb, now=now)
    answer = create_entry_response(entry, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 201)


def _header(request: web.Request, name: str) -> str:
    value = request.headers.get(name, "")
    if not value:
        raise DictProblem(ErrorType.BAD_REQUEST, f"the {name} header is required")
    return value


async def read(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    if _header(request, "PI-RequestingParticipant") != caller(request).ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "PI-RequestingParticipant is not the caller's ISPB")
    _header(request, "PI-PayerId")
    _header(request, "PI-EndToEndId")
    entry = await get_entry(network.store, _key(request))
    now = network.now()
    statistics = await network.store.statistics(entry, now)
    answer = get_entry_response(entry, statistics, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 200)


async def delete(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    asked = read_delete_entry(await signed_body(request), _key(request))
    entry = await delete_entry(network.store, asked, requester=caller(request).ispb)
    answer = delete_entry_response(entry, correlation_id=request[CORRELATION_ID], now=network.now())
    return signed(network, answer, 200)


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
    return signed(network, answer, 200)


def add_routes(app: web.Application) -> None:
    app.router.add_post(f"{API}/entries/", create)
    app.router.add_get(f"{API}/entries/{{key}}", read)
    app.router.add_post(f"{API}/entries/{{key}}/delete", delete)
    app.router.add_post(f"{API_NP}/keys/check", check_keys)
