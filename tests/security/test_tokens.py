"""Bearer tokens under attack: replay after expiry, a stolen token with another certificate,
forged and tampered tokens, algorithm confusion, and certificates that should not get one.

Every refusal is a 401 in the error shape with ``WWW-Authenticate: Bearer``, and a refused
request changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.security.certificates import create_self_signed
from tests.e2e.conftest import Api
from tests.security.conftest import Signed, assert_error, signed_in
from tests.support import add_external_key, certificate_header, fund, new_client

TOKEN_LIFETIME = 1800


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def compact(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}.{b64(signature)}"


def parts(auth: dict[str, str]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The token of an Authorization header, its header and its claims (unverified)."""
    token = auth["Authorization"].removeprefix("Bearer ")
    claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return token, jwt.get_unverified_header(token), claims


def signing_key(api: Api) -> ec.EllipticCurvePrivateKey:
    """The service's own key, read from its file: forgeries signed with it test the claim checks."""
    key = serialization.load_pem_private_key(api.settings.signing_key_path.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


async def refused(http: httpx.AsyncClient, token: str, **headers: str) -> None:
    response = await http.get("/balance", headers={"Authorization": f"Bearer {token}"} | headers)
    assert_error(response, 401, reasons=("Unauthorized",))
    assert response.headers["www-authenticate"].startswith("Bearer")


async def accepted(http: httpx.AsyncClient, token: str) -> None:
    response = await http.get("/balance", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> Signed:
    return await signed_in(pg_uow, api.client)


# -- expiry --------------------------------------------------------------------------------------------


async def test_a_token_replayed_after_expiry_is_refused_everywhere(
    pg_uow: UnitOfWorkFactory, api: Api, owner: Signed
) -> None:
    http = api.client
    await fund(http, owner.client, owner.auth, "50.00")
    key, _ = await add_external_key(http, owner.auth)
    token, _, claims = parts(owner.auth)
    assert claims["exp"] - claims["iat"] == TOKEN_LIFETIME
    await accepted(http, token)  # verified once, and remembered by the service
    # Half a second before it expires it still works; at its expiry it never does again. The
    # moves are measured from the clock's own now: the claims are whole seconds, and the time
    # the set-up took must not decide the test.
    api.clock.advance(claims["exp"] - api.clock.now().timestamp() - 0.5)
    await accepted(http, token)
    api.clock.advance(0.5)
    await refused(http, token)
    body = {"pixKey": key, "payment": {"amount": 10}}
    late = await http.post(
        "/dict/pix", json=body, headers=owner.auth | {"x-idempotency-key": str(uuid.uuid4())}
    )
    assert_error(late, 401, reasons=("Unauthorized",))
    for method, path in (
        ("GET", "/api/transactions"),
        ("GET", "/api/webhooks/secret"),
        ("POST", "/sandbox/clock"),
    ):
        assert_error(await http.request(method, path, json={}, headers=owner.auth), 401)
    fresh = await signed_in(
        pg_uow, http
    )  # the clock moved: a token issued now works, the old one never again
    await accepted(http, fresh.auth["Authorization"].removeprefix("Bearer "))
    await refused(http, token)
    # Nothing was sent with the expired token.
    renewed = (await signed_in_again(http, owner)).auth
    listed = (await http.get("/api/transactions", params={"type": "WITHDRAW"}, headers=renewed)).json()
    assert listed["metadata"]["total"] == 0


async def signed_in_again(http: httpx.AsyncClient, who: Signed) -> Signed:
    response = await http.post(
        "/api/auth/token", json=who.client.credentials, headers={"X-SSL-Client-Cert": who.client.cert_header}
    )
    assert response.status_code == 201, response.text
    return Signed(who.client, {"Authorization": f"Bearer {response.json()['access_token']}"})


async def test_a_token_from_the_future_is_refused(api: Api, owner: Signed) -> None:
    token, header, claims = parts(owner.auth)
    await accepted(http=api.client, token=token)
    ahead = claims | {"iat": claims["iat"] + 3600, "exp": claims["exp"] + 3600}
    await refused(api.client, jwt.encode(ahead, signing_key(api), algorithm="ES256", headers=header))


# -- certificate binding -----------------------------------------------------------------------------


async def test_a_token_presented_with_another_certificate_is_refused(
    pg_uow: UnitOfWorkFactory, api: Api, owner: Signed
) -> None:
    http = api.client
    token, _, _ = parts(owner.auth)
    other = await new_client(pg_uow)  # a certificate linked to another account
    _, unlinked, _ = create_self_signed("not-linked")
    ok = await http.get("/balance", headers=owner.auth | {"X-SSL-Client-Cert": owner.client.cert_header})
    assert ok.status_code == 200
    for cert in (other.cert_header, certificate_header(unlinked), "%2D%2D%2D%2Dgarbage"):
        await refused(http, token, **{"X-SSL-Client-Cert": cert})


async def test_an_expired_certificate_gets_no_token(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    expired = await new_client(pg_uow, cert_now=datetime.now(UTC) - timedelta(days=400), days=365)
    response = await api.client.post(
        "/api/auth/token", json=expired.credentials, headers={"X-SSL-Client-Cert": expired.cert_header}
    )
    assert_error(response, 401, reasons=("Unauthorized",))
    form = {"grant_type": "client_credentials"} | {
        "client_id": expired.credentials["clientId"],
        "client_secret": expired.credentials["clientSecret"],
    }
    oauth = await api.client.post(
        "/oauth/token", data=form, headers={"X-SSL-Client-Cert": expired.cert_header}
    )
    assert oauth.status_code == 401
    assert (oauth.json()["error"], oauth.json()["statusCode"]) == ("invalid_client", 401)
    assert "access_token" not in oauth.text


async def test_a_certificate_that_expires_later_stops_getting_tokens_then(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    soon = await new_client(
        pg_uow, cert_now=datetime.now(UTC) - timedelta(days=1), days=2
    )  # valid one more day
    cert = {"X-SSL-Client-Cert": soon.cert_header}
    assert (await api.client.post("/api/auth/token", json=soon.credentials, headers=cert)).status_code == 201
    api.clock.advance(2 * 86_400)  # by the service clock, the certificate has expired
    response = await api.client.post("/api/auth/token", json=soon.credentials, headers=cert)
    assert_error(response, 401, reasons=("Unauthorized",))


# -- forged tokens ---------------------------------------------------------------------------------------


async def test_a_tampered_payload_or_header_is_refused(
    pg_uow: UnitOfWorkFactory, api: Api, owner: Signed
) -> None:
    http = api.client
    victim = await signed_in(pg_uow, http)
    token, header, claims = parts(owner.auth)
    head, _, signature = token.split(".")
    for changed in (
        claims | {"sub": str(victim.account_id)},  # someone else's account
        claims | {"exp": claims["exp"] + 86_400},  # a longer life
        claims | {"cnf": parts(victim.auth)[2]["cnf"]},  # another certificate
    ):
        await refused(http, f"{head}.{b64(json.dumps(changed).encode())}.{signature}")
    _, payload, _ = token.split(".")
    for changed_header in (header | {"kid": "another-key"}, header | {"typ": "JOSE"}):
        await refused(http, f"{b64(json.dumps(changed_header).encode())}.{payload}.{signature}")
    await refused(http, f"{head}.{payload}.{signature[:-4]}AAAA")
    await refused(http, f"{head}.{payload}.")
    await refused(http, f"{head}.{payload}")
    await accepted(http, token)


@pytest.mark.parametrize("alg", ["none", "None", "NONE", "nOnE"])
async def test_alg_none_is_refused(api: Api, owner: Signed, alg: str) -> None:
    _, header, claims = parts(owner.auth)
    unsigned = compact(header | {"alg": alg}, claims)
    await refused(api.client, unsigned)
    await refused(api.client, unsigned.rstrip("."))


@pytest.mark.parametrize("alg", ["HS256", "HS384", "HS512"])
async def test_hmac_signed_with_the_public_key_is_refused(api: Api, owner: Signed, alg: str) -> None:
    """Algorithm confusion: the public key (which anyone can fetch) used as an HMAC secret."""
    _, header, claims = parts(owner.auth)
    jwk = (await api.client.get("/.well-known/jwks.json")).json()["keys"][0]
    public = jwt.PyJWK(jwk).key
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
    for secret in (
        public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
        public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo),
        public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint),
        json.dumps(jwk).encode(),
    ):
        forged_header = header | {"alg": alg}
        signing_input = f"{b64(json.dumps(forged_header).encode())}.{b64(json.dumps(claims).encode())}"
        signature = hmac.new(secret, signing_input.encode(), digest).digest()
        await refused(api.client, f"{signing_input}.{b64(signature)}")


async def test_a_key_the_attacker_brings_is_refused(api: Api, owner: Signed) -> None:
    """Signed by another key: with our kid, with the attacker's key embedded (``jwk``), or
    pointed at (``jku``)."""
    _, header, claims = parts(owner.auth)
    attacker = ec.generate_private_key(ec.SECP256R1())
    embedded = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(attacker.public_key()))
    no_kid = {name: value for name, value in header.items() if name != "kid"}
    for forged_header in (
        header,
        header | {"jwk": embedded},
        header | {"jku": "https://127.0.0.1/k"},
        no_kid,
    ):
        forged = jwt.encode(claims, attacker, algorithm="ES256", headers=forged_header)
        await refused(api.client, forged)


@pytest.mark.parametrize(
    "change",
    [
        {"iss": "another-service"},
        {"aud": "another-api"},
        {"aud": ["another-api"]},
        {"sub": "0"},
        {"sub": "-1"},
        {"sub": "\u0661"},  # ARABIC-INDIC DIGIT ONE: str.isdigit() says yes, int() reads 1
        {"sub": "01"},
        {"sub": 1},
        {"iat": "now"},
        {"exp": 9_999_999_999.5},
        {"cnf": {}},
        {"cnf": "x"},
    ],
    ids=lambda change: "-".join(f"{k}={v!r}" for k, v in change.items()),
)
async def test_a_token_with_wrong_claims_signed_by_the_service_key_is_refused(
    api: Api, owner: Signed, change: dict[str, Any]
) -> None:
    _, header, claims = parts(owner.auth)
    forged = jwt.encode(claims | change, signing_key(api), algorithm="ES256", headers=header)
    await refused(api.client, forged)


@pytest.mark.parametrize("claim", ["iss", "sub", "aud", "iat", "exp", "jti", "cnf"])
async def test_a_token_missing_a_claim_is_refused(api: Api, owner: Signed, claim: str) -> None:
    _, header, claims = parts(owner.auth)
    intact = jwt.encode(claims, signing_key(api), algorithm="ES256", headers=header)
    await accepted(api.client, intact)  # the forgery below differs only by the missing claim
    del claims[claim]
    await refused(api.client, jwt.encode(claims, signing_key(api), algorithm="ES256", headers=header))


async def test_the_token_travels_only_in_the_authorization_header(api: Api, owner: Signed) -> None:
    token, _, _ = parts(owner.auth)
    in_query = await api.client.get("/balance", params={"access_token": token})
    assert_error(in_query, 401, reasons=("Unauthorized",))
    for headers in (
        {"Authorization": f"Basic {token}"},
        {"Authorization": token},
        {"Cookie": f"access_token={token}"},
    ):
        assert_error(await api.client.get("/balance", headers=headers), 401, reasons=("Unauthorized",))


@pytest.mark.parametrize(
    "path",
    [
        "/balance",
        "/balance/",
        "//balance",
        "/BALANCE",
        "/.well-known/../balance",
        "/.well-known/%2e%2e/balance",
        "/schema/../balance",
        "/schema/..%2Fbalance",
        "/qr/v2/x/../../balance",
        "/qr/v2/%2e%2e/%2e%2e/balance",
        "/balance?.well-known/",
        "/balance#/schema",
        "/balance%00/schema",
    ],
)
async def test_the_public_prefixes_do_not_open_other_routes(api: Api, path: str) -> None:
    """The token gate skips ``/schema``, ``/.well-known/`` and ``/qr/v2/``: no spelling of a
    private route may pass as one of those."""
    # httpx reads "//balance" as a network-path reference (host "balance") and would ask for "/",
    # which is the console's redirect now: the path is sent as written instead.
    url = api.client.base_url.copy_with(raw_path=path.encode()) if path.startswith("//") else path
    response = await api.client.get(url)
    assert response.status_code in (401, 404), f"{path}: {response.status_code} {response.text}"
    assert "netBalance" not in response.text
    assert "balanceAmount" not in response.text
