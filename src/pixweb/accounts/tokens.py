"""Token endpoints: ``POST /api/auth/token`` (the spec's), ``POST /oauth/token`` (RFC 6749), the JWKS.

Both token endpoints are rate limited per client address before anything else is read, then
per client id and certificate (``pixweb.security.ratelimit``) once the certificate has been
checked against the client's, before the secret is hashed.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import unquote_plus

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter

from pixcore.accounts.token_service import issue_token
from pixcore.clock import Clock
from pixcore.errors import AuthenticationError, PermissionDenied, PixError, TryLater
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.api.deps import Injected
from pixweb.api.docs import answer, form_body, json_body
from pixweb.api.fields import MAX_CLIENT_ID, MAX_CLIENT_SECRET, MAX_GRANT_TYPE, doc
from pixweb.edge import text_problem
from pixweb.errors import error_responses, retry_after, status_of
from pixweb.security.certificates import CERT_HEADER, certificate_header, read_certificate_header
from pixweb.security.hashing import BoundedVerifier
from pixweb.security.ratelimit import TokenRateLimits
from pixweb.security.tokens import JwtIssuer

__all__ = [
    "AuthController",
    "Issuing",
]

MAX_CERT_HEADER = 16_384  # a URL-encoded PEM certificate is 2 to 6 KB

CertHeader = Annotated[
    str | None,
    HeaderParameter(
        name="X-SSL-Client-Cert",
        required=False,
        description="The client's PEM X.509 certificate, URL-encoded. Required.",
        max_length=MAX_CERT_HEADER,
    ),
]
GRANT_TYPES = ("client_credentials",)
CLIENT_ID_EXAMPLE = "cli_8Yq3bWm1ZkT0rX5vN2pLhD7s"
SECRET_EXAMPLE = "sec_Gm3x9QwZr7TfK2bVhN5cYpL8dJ4sA6uE"  # noqa: S105 - an example
TOKEN_EXAMPLE = "eyJhbGciOiJSUzI1NiIsImtpZCI6InBpeC0xIn0.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl"  # noqa: S105 - an example

ClientId = Annotated[
    str,
    msgspec.Meta(max_length=MAX_CLIENT_ID),
    doc("The client id printed by `pixweb admin account create`.", example=CLIENT_ID_EXAMPLE, min_length=1),
]
ClientSecret = Annotated[
    str,
    msgspec.Meta(max_length=MAX_CLIENT_SECRET),
    doc("The client secret printed once, with the client id.", example=SECRET_EXAMPLE),
]


class TokenRequest(msgspec.Struct, rename="camel"):
    """The client's credentials (and, in the `X-SSL-Client-Cert` header, its linked certificate)."""

    client_id: ClientId
    client_secret: ClientSecret


class TokenResponse(msgspec.Struct):
    """A bearer token: send it as `Authorization: Bearer <access_token>`."""

    access_token: Annotated[str, doc("The JWT (ES256), signed by a key of `/.well-known/jwks.json`.")]
    token_type: Annotated[str, doc("Always `Bearer`.", enum=["Bearer"])]
    expires_in: Annotated[int, doc("Seconds the token is valid: 1800.")]


class OAuthTokenForm(msgspec.Struct):
    """RFC 6749 §4.4: `grant_type=client_credentials`, with the client's credentials here or in an
    HTTP Basic `Authorization` header (one of the two, not both)."""

    grant_type: Annotated[
        str,
        msgspec.Meta(max_length=MAX_GRANT_TYPE),
        doc("Only `client_credentials`.", enum=GRANT_TYPES, example="client_credentials"),
    ]
    client_id: ClientId | None = None
    client_secret: ClientSecret | None = None


class Jwk(msgspec.Struct):
    """An EC P-256 public key (RFC 7517, RFC 7518 §6.2) that verifies tokens and signed payloads."""

    kty: str
    crv: str
    x: str
    y: str
    kid: str
    use: str
    alg: str


class Jwks(msgspec.Struct):
    keys: list[Jwk]


class OAuthError(msgspec.Struct, rename={"status_code": "statusCode"}):
    """RFC 6749 §5.2 error, plus the service's ``statusCode`` and ``message``."""

    error: Annotated[
        str,
        doc(
            "The RFC 6749 code: invalid_request, invalid_client, unauthorized_client,"
            " unsupported_grant_type, slow_down (429), temporarily_unavailable (503)."
        ),
    ]
    error_description: Annotated[str, doc("What went wrong, for a person.")]
    status_code: Annotated[int, doc("The HTTP status, repeated.")]
    message: Annotated[str, doc("The same as `error_description` (the service's error shape).")]


def _oauth_examples() -> dict[int, ResponseSpec]:
    """The RFC 6749 error responses of ``/oauth/token``, with an example each."""
    cases = {
        401: ("invalid_client", "Client authentication is required.", "Wrong or missing client credentials"),
        403: ("unauthorized_client", "This account is disabled.", "The client may not get tokens"),
        429: (
            "slow_down",
            "Too many token requests. Retry later.",
            "Rate limited: wait `Retry-After` seconds",
        ),
    }
    specs: dict[int, ResponseSpec] = {}
    for status, (code, text, meaning) in cases.items():
        body = {"error": code, "error_description": text, "statusCode": status, "message": text}
        specs |= answer(status, OAuthError, meaning, body)
    return specs


_TOKEN = {"access_token": TOKEN_EXAMPLE, "token_type": "Bearer", "expires_in": 1800}
_OAUTH_401 = {
    "error": "invalid_client",
    "error_description": "Client authentication is required.",
    "statusCode": 401,
    "message": "Client authentication is required.",
}


@dataclass(frozen=True, slots=True)
class Issuing:
    """What issuing a token takes, as the handler is given it."""

    uow: UnitOfWorkFactory
    verifier: BoundedVerifier
    tokens: JwtIssuer
    clock: Clock
    limits: TokenRateLimits


def _limit_address(request: Request[Any, Any, Any], limits: TokenRateLimits) -> None:
    """The first thing a token request meets: the limit of its address (the ASGI scope's client)."""
    client = request.client
    limits.check_address(client.host if client else "")


async def _issue(
    request: Request[Any, Any, Any], issuing: Issuing, client_id: str, client_secret: str, cert: str | None
) -> TokenResponse:
    certificate_header(request.headers.getall(CERT_HEADER, []))  # sent twice: 400 (``cert`` is the first)
    certificate = read_certificate_header(cert)
    issuing.verifier.check_room()  # a flood beyond the hashing queue costs no database work
    limits = issuing.limits
    issued = await issue_token(
        issuing.uow,
        issuing.verifier,
        issuing.tokens,
        issuing.clock,
        client_id=client_id,
        client_secret=client_secret,
        certificate=certificate,
        # the client's limit, once its certificate is known to be its own or not (never before)
        before_secret=lambda own: limits.check_certificate(client_id, certificate.fingerprint, own=own),
    )
    return TokenResponse(
        access_token=issued.access_token, token_type=issued.token_type, expires_in=issued.expires_in
    )


def _oauth_error(
    status: int, code: str, description: str, extra: dict[str, str] | None = None
) -> Response[OAuthError]:
    headers = {"Cache-Control": "no-store", "Pragma": "no-cache"} | (extra or {})
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="pix"'
    body = OAuthError(error=code, error_description=description, status_code=status, message=description)
    return Response(body, status_code=status, headers=headers)


def _oauth_later(exc: TryLater) -> Response[OAuthError]:
    """429 ``slow_down`` (RFC 8628 registers it for token endpoint responses) or 503
    ``temporarily_unavailable`` (RFC 6749 §4.1.2.1), with ``Retry-After``."""
    status = status_of(exc)
    code = "slow_down" if status == 429 else "temporarily_unavailable"
    return _oauth_error(status, code, exc.message, retry_after(exc))


def _basic_credentials(header: str | None) -> tuple[str, str] | None:
    scheme, _, value = (header or "").partition(" ")
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    # RFC 6749 §2.3.1: both halves are form-urlencoded before the Basic encoding
    return (unquote_plus(client_id), unquote_plus(secret)) if sep else None


def _basic_problem(client_id: str, secret: str) -> str | None:
    """What the edge would refuse in a body (docs/decisions/hostile-text.md), for credentials that
    came in a header."""
    checks = (("client id", client_id, MAX_CLIENT_ID), ("secret", secret, MAX_CLIENT_SECRET))
    for name, value, limit in checks:
        if (problem := text_problem(value)) is not None:
            return f"The Basic credentials' {name} {problem}."
        if len(value) > limit:
            return f"The Basic credentials' {name} is longer than {limit} characters."
    return None


async def _oauth_issue(
    request: Request[Any, Any, Any], issuing: Issuing, data: OAuthTokenForm, cert: str | None
) -> Response[Any]:
    if data.grant_type != "client_credentials":
        return _oauth_error(400, "unsupported_grant_type", "Only the client_credentials grant is supported.")
    basic = _basic_credentials(request.headers.get("authorization"))
    if basic and (problem := _basic_problem(*basic)) is not None:
        return _oauth_error(400, "invalid_request", problem)
    in_body = (data.client_id, data.client_secret)
    if basic and any(in_body):
        return _oauth_error(400, "invalid_request", "Use one client authentication method, not two.")
    client_id, client_secret = basic or in_body
    if not client_id or client_secret is None:
        return _oauth_error(401, "invalid_client", "Client authentication is required.")
    try:
        token = await _issue(request, issuing, client_id, client_secret, cert)
    except TryLater:
        raise
    except PixError as exc:
        status = status_of(exc)
        code = {401: "invalid_client", 403: "unauthorized_client"}.get(status, "invalid_request")
        if isinstance(exc, AuthenticationError | PermissionDenied) or status == 400:
            return _oauth_error(status, code, exc.message)
        raise
    return Response(token, status_code=200, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


class AuthController(Controller):
    tags = ["Authentication"]  # noqa: RUF012 - Litestar reads class attributes
    opt = {"exclude_from_auth": True}  # noqa: RUF012

    @post(
        "/api/auth/token",
        operation_id="createToken",
        responses=answer(201, TokenResponse, "The access token", _TOKEN)
        | error_responses(400, 401, 403, 413, 429),
        status_code=201,
        summary="Get an access token",
        description=(
            "Client credentials plus the linked client certificate, URL-encoded PEM in the"
            " `X-SSL-Client-Cert` header (`pixweb admin token` prints a ready token instead)."
            " Tokens last 1800 s. 401: wrong credentials, or no certificate or one not linked to"
            " the client; 403: the account is disabled; 400: the header missing, malformed, sent"
            " twice or holding two certificates. Rate limited per address, and per client id and"
            " certificate (the client's own linked certificate has a budget of its own): 429 with"
            " `Retry-After`; 503 with `Retry-After` when too many credential checks wait already."
        ),
        security=[{}],  # no bearer token: an empty requirement (OpenAPI 3)
    )
    async def create_token(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[
            TokenRequest,
            json_body(
                "The client's credentials.", {"clientId": CLIENT_ID_EXAMPLE, "clientSecret": SECRET_EXAMPLE}
            ),
        ],
        x_ssl_client_cert: CertHeader = None,
        *,
        uow: Injected[UnitOfWorkFactory],
        verifier: Injected[BoundedVerifier],
        tokens: Injected[JwtIssuer],
        clock: Injected[Clock],
        token_limits: Injected[TokenRateLimits],
    ) -> TokenResponse:
        _limit_address(request, token_limits)
        issuing = Issuing(uow, verifier, tokens, clock, token_limits)
        return await _issue(request, issuing, data.client_id, data.client_secret, x_ssl_client_cert)

    @post(
        "/oauth/token",
        operation_id="oauthToken",
        # A malformed form is the usual 400; the OAuth errors (RFC 6749 §5.2) are its superset.
        responses=answer(200, TokenResponse, "The access token", _TOKEN)
        | error_responses(400, 413)
        | _oauth_examples(),
        status_code=200,
        summary="Get an access token (RFC 6749 client_credentials)",
        description=(
            "Form body; client authentication in the body or by HTTP Basic (not both: 400"
            " `invalid_request`). `grant_type` other than `client_credentials`: 400"
            " `unsupported_grant_type`. Same certificate rules as `POST /api/auth/token`, errors in"
            " the RFC 6749 §5.2 shape (401 `invalid_client`, 403 `unauthorized_client`), same"
            " rate limits (429 `slow_down`, 503 `temporarily_unavailable`, with `Retry-After`)."
        ),
        security=[{}],  # no bearer token: an empty requirement (OpenAPI 3)
    )
    async def oauth_token(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[
            OAuthTokenForm,
            form_body(
                "RFC 6749 client_credentials grant.",
                {
                    "grant_type": "client_credentials",
                    "client_id": CLIENT_ID_EXAMPLE,
                    "client_secret": SECRET_EXAMPLE,
                },
            ),
        ],
        x_ssl_client_cert: CertHeader = None,
        *,
        uow: Injected[UnitOfWorkFactory],
        verifier: Injected[BoundedVerifier],
        tokens: Injected[JwtIssuer],
        clock: Injected[Clock],
        token_limits: Injected[TokenRateLimits],
    ) -> Response[Any]:
        try:
            _limit_address(request, token_limits)
            issuing = Issuing(uow, verifier, tokens, clock, token_limits)
            return await _oauth_issue(request, issuing, data, x_ssl_client_cert)
        except TryLater as exc:
            return _oauth_later(exc)

    @get(
        "/.well-known/jwks.json",
        operation_id="getJwks",
        summary="The public keys that sign access tokens",
        description=(
            "The JSON Web Key Set (RFC 7517) of the keys that sign access tokens and charge"
            " payloads (`GET /qr/v2/{id}`); a key of a rotation stays listed while its tokens live."
        ),
        responses=answer(
            200,
            Jwks,
            "The key set",
            {
                "keys": [
                    {
                        "kty": "EC",
                        "crv": "P-256",
                        "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                        "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
                        "kid": "pix-1",
                        "use": "sig",
                        "alg": "ES256",
                    }
                ]
            },
        ),
        security=[{}],  # no bearer token: an empty requirement (OpenAPI 3)
    )
    async def jwks(self, *, tokens: Injected[JwtIssuer]) -> Jwks:
        return msgspec.convert(tokens.jwks(), Jwks)
