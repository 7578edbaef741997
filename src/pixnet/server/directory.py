"""The DICT API, as the central bank's document gives it (the routes' table is in docs/network.md):
``createEntry``, ``getEntry`` (with its anti-fraud ``Statistics``; the headers
``PI-RequestingParticipant``, the caller's own ISPB, ``PI-PayerId`` and ``PI-EndToEndId`` are
required, as the document says), ``deleteEntry`` and ``checkKeys``, under the document's bases
``/api/v1`` and ``/api-np/v1``."""

from __future__ import annotations

from aiohttp import web

from pixcore.errors import InvalidPixKey
from pixcore.keys import PixKey, parse_pix_key
from pixnet.directory.entries import create_entry, delete_entry, get_entry
from pixnet.directory.policies import (
    POLICIES,
    Bucket,
    Buckets,
    PolicyName,
    lookup_policies,
    participant_antiscan,
)
from pixnet.server.common import CORRELATION_ID, NETWORK, caller, signed, signed_body
from pixwire.dict.documents import (
    PolicyState,
    check_keys_response,
    create_entry_response,
    delete_entry_response,
    get_entry_response,
    policies_response,
    policy_response,
    read_check_keys,
    read_create_entry,
    read_delete_entry,
)
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.xml import parse

__all__ = ["API", "add_routes", "header", "spend"]

API = "/api/v1"
API_NP = "/api-np/v1"


def _parsed_key(request: web.Request) -> PixKey:
    """The path's key (a key no type takes has no entry: ``NotFound``)."""
    try:
        return parse_pix_key(request.match_info["key"])
    except InvalidPixKey:
        raise DictProblem(ErrorType.NOT_FOUND, "no entry has this key") from None


def _key(request: web.Request) -> str:
    """The path's key in its canonical form."""
    return _parsed_key(request).value


def spend(request: web.Request, name: PolicyName) -> None:
    """One token of the caller's bucket of ``name``; ``RateLimited`` when it holds none."""
    buckets = request.app[NETWORK].buckets
    bucket = buckets.bucket(POLICIES[name], caller(request).ispb)
    if not buckets.allows([bucket]):
        raise DictProblem(
            ErrorType.RATE_LIMITED, f"the {name.value} policy's bucket is empty: wait for it to refill"
        )
    Buckets.take([(bucket, 1)])


async def create(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.ENTRIES_WRITE)
    asked = read_create_entry(await signed_body(request))
    now = network.now()
    entry = await create_entry(network.store, asked, requester=caller(request).ispb, now=now)
    answer = create_entry_response(entry, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 201)


def header(request: web.Request, name: str) -> str:
    value = request.headers.get(name, "")
    if not value:
        raise DictProblem(ErrorType.BAD_REQUEST, f"the {name} header is required")
    return value


async def read(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    if header(request, "PI-RequestingParticipant") != caller(request).ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "PI-RequestingParticipant is not the caller's ISPB")
    payer_id = header(request, "PI-PayerId")
    header(request, "PI-EndToEndId")
    key = _parsed_key(request)
    wanted, costs = lookup_policies(network.buckets, caller(request).ispb, payer_id, key.type)
    if not network.buckets.allows(wanted):
        raise DictProblem(ErrorType.RATE_LIMITED, "a look-up policy's bucket is empty: wait for it to refill")
    try:
        entry = await get_entry(network.store, key.value)
    except DictProblem:
        Buckets.take(costs(found=False))
        raise
    Buckets.take(costs(found=True))
    now = network.now()
    statistics = await network.store.statistics(entry, now)
    answer = get_entry_response(entry, statistics, correlation_id=request[CORRELATION_ID], now=now)
    return signed(network, answer, 200)


async def delete(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.ENTRIES_WRITE)
    asked = read_delete_entry(await signed_body(request), _key(request))
    entry = await delete_entry(network.store, asked, requester=caller(request).ispb)
    answer = delete_entry_response(entry, correlation_id=request[CORRELATION_ID], now=network.now())
    return signed(network, answer, 200)


async def check_keys(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    spend(request, PolicyName.KEYS_CHECK)
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


def _state(bucket: Bucket) -> PolicyState:
    policy = bucket.policy
    return (
        policy.name.value,
        bucket.tokens,
        policy.capacity,
        policy.refill,
        int(policy.period.total_seconds()),
    )


def _participant_buckets(request: web.Request) -> list[Bucket]:
    """The caller's participant-scoped buckets, its anti-scan one first."""
    buckets, ispb = request.app[NETWORK].buckets, caller(request).ispb
    return [buckets.bucket(participant_antiscan(buckets.category(ispb)), ispb)] + [
        buckets.bucket(policy, ispb) for policy in POLICIES.values()
    ]


def _as_caller(request: web.Request) -> None:
    if header(request, "PI-RequestingParticipant") != caller(request).ispb:
        raise DictProblem(ErrorType.FORBIDDEN, "PI-RequestingParticipant is not the caller's ISPB")


async def list_policies(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    _as_caller(request)
    spend(request, PolicyName.POLICIES_LIST)
    category = network.buckets.category(caller(request).ispb).value
    states = [_state(bucket) for bucket in _participant_buckets(request)]
    answer = policies_response(category, states, correlation_id=request[CORRELATION_ID], now=network.now())
    return signed(network, answer, 200)


async def get_policy(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    _as_caller(request)
    spend(request, PolicyName.POLICIES_READ)
    named = request.match_info["policy"]
    found = next((b for b in _participant_buckets(request) if b.policy.name.value == named), None)
    if found is None:
        raise DictProblem(ErrorType.NOT_FOUND, f"no policy of a participant is named {named}")
    category = network.buckets.category(caller(request).ispb).value
    answer = policy_response(
        category, _state(found), correlation_id=request[CORRELATION_ID], now=network.now()
    )
    return signed(network, answer, 200)


def add_routes(app: web.Application) -> None:
    app.router.add_get(f"{API}/policies/", list_policies)
    app.router.add_get(f"{API}/policies/{{policy}}", get_policy)
    app.router.add_post(f"{API}/entries/", create)
    app.router.add_get(f"{API}/entries/{{key}}", read)
    app.router.add_post(f"{API}/entries/{{key}}/delete", delete)
    app.router.add_post(f"{API_NP}/keys/check", check_keys)
