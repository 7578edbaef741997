"""Tokens: every outcome of the token checks, through the HTTP API."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.security.certificates import create_self_signed
from tests.e2e.conftest import Api, running_api
from tests.support import Client, bearer, certificate_header, new_client

TOKEN = "/api/auth/token"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def _token(api: Api, client: Client) -> str:
    response = await api.client.post(
        TOKEN, json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    assert response.status_code == 201, response.text
    token: str = response.json()["access_token"]
    return token


def _assert_error(response: Any, status: int, reason: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["statusCode"] == status
    assert body["error"] == reason
    assert isinstance(body["message"], str)
    assert body["message"]
    assert "Traceback" not in response.text
    return body


async def test_token_happy_path_is_an_es256_jwt_bound_to_the_certificate(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    response = await api.client.post(
        TOKEN, json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    assert response.status_code == 201
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 1800
    token = body["access_token"]

    jwks = (await api.client.get("/.well-known/jwks.json")).json()
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "ES256"
    [jwk] = [k for k in jwks["keys"] if k["kid"] == header["kid"]]
    public_key = jwt.PyJWK(jwk).key
    claims = jwt.decode(token, public_key, algorithms=["ES256"], audience=api.settings.token_audience)
    assert set(claims) >= {"iss", "sub", "aud", "iat", "exp", "jti", "cnf"}
    assert claims["sub"] == str(client.account_id)
    assert claims["iss"] == api.settings.token_issuer
    assert claims["exp"] - claims["iat"] == 1800
    assert abs(claims["iat"] - time.time()) < 60
    expected = _b64(bytes.fromhex(client.fingerprint))
    assert claims["cnf"] == {"x5t#S256": expected}
    assert (
        hashlib.sha256(
            __import__("cryptography.x509", fromlist=["x"])
            .load_pem_x509_certificate(client.cert_pem)
            .public_bytes(serialization.Encoding.DER)
        ).hexdigest()
        == client.fingerprint
    )

    balance = await api.client.get("/balance", headers={"Authorization": f"Bearer {token}"})
    assert balance.status_code == 200


async def test_two_tokens_have_distinct_ids(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    first, second = await _token(api, client), await _token(api, client)
    assert (
        jwt.decode(first, options={"verify_signature": False})["jti"]
        != jwt.decode(second, options={"verify_signature": False})["jti"]
    )


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "-----BEGIN CERTIFICATE----- MIIB -----END CERTIFICATE-----",  # raw, not URL-encoded
        quote("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n", safe=""),
        quote("hello world", safe=""),
        "%FF%FE%00",
    ],
    ids=["missing", "empty", "not-url-encoded", "garbage-pem", "not-pem", "bad-encoding"],
)
async def test_missing_or_malformed_certificate_header_is_400(
    pg_uow: UnitOfWorkFactory, api: Api, header: str | None
) -> None:
    client = await new_client(pg_uow)
    headers = {} if header is None else {"X-SSL-Client-Cert": header}
    response = await api.client.post(TOKEN, json=client.credentials, headers=headers)
    _assert_error(response, 400, "Bad Request")


async def test_form_encoded_certificate_header_is_accepted(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    from urllib.parse import quote_plus

    client = await new_client(pg_uow)
    header = quote_plus(client.cert_pem.decode())
    response = await api.client.post(TOKEN, json=client.credentials, headers={"X-SSL-Client-Cert": header})
    assert response.status_code == 201, response.text


async def test_unknown_client_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    body = {"clientId": "pix_nobody", "clientSecret": client.opened.client_secret}
    response = await api.client.post(TOKEN, json=body, headers={"X-SSL-Client-Cert": client.cert_header})
    _assert_error(response, 401, "Unauthorized")


async def test_wrong_secret_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    body = {"clientId": client.opened.client_id, "clientSecret": client.opened.client_secret + "x"}
    response = await api.client.post(TOKEN, json=body, headers={"X-SSL-Client-Cert": client.cert_header})
    _assert_error(response, 401, "Unauthorized")


async def test_expired_certificate_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow, cert_now=datetime.now(UTC) - timedelta(days=30), days=10)
    response = await api.client.post(
        TOKEN, json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    body = _assert_error(response, 401, "Unauthorized")
    assert "expired" in body["message"]


async def test_not_yet_valid_certificate_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow, cert_now=datetime.now(UTC) + timedelta(days=2))
    response = await api.client.post(
        TOKEN, json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    _assert_error(response, 401, "Unauthorized")


async def test_valid_but_unlinked_certificate_is_403(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow, link=False)
    response = await api.client.post(
        TOKEN, json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    _assert_error(response, 403, "Forbidden")


async def test_certificate_of_another_account_is_403(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    mine, theirs = await new_client(pg_uow), await new_client(pg_uow)
    response = await api.client.post(
        TOKEN, json=mine.credentials, headers={"X-SSL-Client-Cert": theirs.cert_header}
    )
    _assert_error(response, 403, "Forbidden")


async def test_body_without_credentials_is_400_with_details(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    response = await api.client.post(
        TOKEN, json={"clientId": "x"}, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    body = _assert_error(response, 400, "Bad Request")
    assert any("clientSecret" in item for item in body["details"])


# -- bearer tokens -------------------------------------------------------------


async def test_missing_and_garbage_bearer_tokens_are_401(api: Api) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer abc.def.ghi"},
        {"Authorization": "Basic eDp5"},
    ):
        response = await api.client.get("/balance", headers=headers)
        _assert_error(response, 401, "Unauthorized")
        assert response.headers["www-authenticate"].startswith("Bearer")


async def test_token_expires_by_the_service_clock(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    token = await _token(api, client)
    auth = {"Authorization": f"Bearer {token}"}
    assert (await api.client.get("/balance", headers=auth)).status_code == 200
    expires = jwt.decode(token, options={"verify_signature": False})["exp"]
    # Measured from the clock's now, not from when the token was asked for: claims are whole seconds.
    api.clock.advance(expires - api.clock.now().timestamp() - 0.5)
    assert (await api.client.get("/balance", headers=auth)).status_code == 200
    api.clock.advance(0.5)
    _assert_error(await api.client.get("/balance", headers=auth), 401, "Unauthorized")


async def _assert_refused(api: Api, token: str) -> None:
    response = await api.client.get("/balance", headers={"Authorization": f"Bearer {token}"})
    _assert_error(response, 401, "Unauthorized")


def _claims_of(token: str) -> dict[str, Any]:
    claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return claims


async def test_alg_none_token_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    claims = _claims_of(await _token(api, client))
    kid = jwt.get_unverified_header(await _token(api, client))["kid"]
    header = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": kid}).encode())
    payload = _b64(json.dumps(claims).encode())
    for forged in (f"{header}.{payload}.", f"{header}.{payload}"):
        await _assert_refused(api, forged)


async def test_hs256_token_signed_with_the_public_key_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    token = await _token(api, client)
    claims, kid = _claims_of(token), jwt.get_unverified_header(token)["kid"]
    jwks = (await api.client.get("/.well-known/jwks.json")).json()
    public_key = jwt.PyJWK(jwks["keys"][0]).key
    for secret in (
        public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
        json.dumps(jwks["keys"][0]).encode(),
    ):
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
        payload = _b64(json.dumps(claims).encode())
        signature = _b64(hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest())
        forged = f"{header}.{payload}.{signature}"
        await _assert_refused(api, forged)


async def test_token_signed_by_another_key_is_401(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    token = await _token(api, client)
    claims, kid = _claims_of(token), jwt.get_unverified_header(token)["kid"]
    forged = jwt.encode(
        claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256", headers={"kid": kid}
    )
    await _assert_refused(api, forged)


def _signing_key(api: Api) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_pem_private_key(api.settings.signing_key_path.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


@pytest.mark.parametrize("claim", ["iss", "sub", "aud", "iat", "exp", "jti", "cnf"])
async def test_token_missing_a_claim_is_401_even_when_signed_by_us(
    pg_uow: UnitOfWorkFactory, api: Api, claim: str
) -> None:
    client = await new_client(pg_uow)
    token = await _token(api, client)
    claims, kid = _claims_of(token), jwt.get_unverified_header(token)["kid"]
    resigned = jwt.encode(claims, _signing_key(api), algorithm="ES256", headers={"kid": kid})
    assert (
        await api.client.get("/balance", headers={"Authorization": f"Bearer {resigned}"})
    ).status_code == 200
    del claims[claim]
    forged = jwt.encode(claims, _signing_key(api), algorithm="ES256", headers={"kid": kid})
    await _assert_refused(api, forged)


@pytest.mark.parametrize(
    ("claim", "value"), [("aud", "someone-else"), ("iss", "someone-else"), ("sub", "abc")]
)
async def test_token_with_a_wrong_claim_is_401(
    pg_uow: UnitOfWorkFactory, api: Api, claim: str, value: str
) -> None:
    client = await new_client(pg_uow)
    token = await _token(api, client)
    claims, kid = _claims_of(token), jwt.get_unverified_header(token)["kid"]
    claims[claim] = value
    forged = jwt.encode(claims, _signing_key(api), algorithm="ES256", headers={"kid": kid})
    await _assert_refused(api, forged)


async def test_certificate_on_a_bearer_request_must_match_the_token(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    token = await _token(api, client)
    _, other_pem, _ = create_self_signed("someone-else")
    auth = {"Authorization": f"Bearer {token}"}
    same = await api.client.get("/balance", headers=auth | {"X-SSL-Client-Cert": client.cert_header})
    assert same.status_code == 200
    other = await api.client.get(
        "/balance", headers=auth | {"X-SSL-Client-Cert": certificate_header(other_pem)}
    )
    _assert_error(other, 401, "Unauthorized")
    garbage = await api.client.get("/balance", headers=auth | {"X-SSL-Client-Cert": "nonsense"})
    _assert_error(garbage, 401, "Unauthorized")


# -- /oauth/token (RFC 6749) ----------------------------------------------------


async def test_oauth_token_with_form_credentials(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    form = {
        "grant_type": "client_credentials",
        "client_id": client.opened.client_id,
        "client_secret": client.opened.client_secret,
    }
    response = await api.client.post(
        "/oauth/token", data=form, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 1800
    assert _claims_of(body["access_token"])["sub"] == str(client.account_id)


async def test_oauth_token_with_http_basic(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    basic = base64.b64encode(f"{client.opened.client_id}:{client.opened.client_secret}".encode()).decode()
    response = await api.client.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        headers={"X-SSL-Client-Cert": client.cert_header, "Authorization": f"Basic {basic}"},
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("grant", 400, "unsupported_grant_type"),
        ("secret", 401, "invalid_client"),
        ("nocert", 400, "invalid_request"),
        ("unlinked", 403, "unauthorized_client"),
        ("noclient", 401, "invalid_client"),
    ],
)
async def test_oauth_token_errors_are_rfc6749_bodies(
    pg_uow: UnitOfWorkFactory, api: Api, case: str, status: int, code: str
) -> None:
    client = await new_client(pg_uow, link=case != "unlinked")
    form = {
        "grant_type": "password" if case == "grant" else "client_credentials",
        "client_id": client.opened.client_id,
        "client_secret": client.opened.client_secret + ("x" if case == "secret" else ""),
    }
    if case == "noclient":
        del form["client_id"], form["client_secret"]
    headers = {} if case == "nocert" else {"X-SSL-Client-Cert": client.cert_header}
    response = await api.client.post("/oauth/token", data=form, headers=headers)
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == code
    assert body["error_description"]
    assert body["statusCode"] == status


async def test_with_the_setting_on_every_bearer_request_must_carry_the_certificate(
    pg_uow: UnitOfWorkFactory, api: Api, tmp_path: Path
) -> None:
    client = await new_client(pg_uow)
    strict = replace(api.settings, require_client_cert=True, data_dir=tmp_path / "strict")
    async with running_api(strict, SystemClock()) as strict_api:
        auth = await bearer(strict_api.client, client)
        refused = await strict_api.client.get("/balance", headers=auth)
        _assert_error(refused, 401, "Unauthorized")
        accepted = await strict_api.client.get(
            "/balance", headers=auth | {"X-SSL-Client-Cert": client.cert_header}
        )
        assert accepted.status_code == 200
    # Without the setting, the header stays optional.
    assert (await api.client.get("/balance", headers=await bearer(api.client, client))).status_code == 200
