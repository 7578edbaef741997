"""Token endpoints: ``POST /api/auth/token`` (the spec's), ``POST /oauth/token`` (RFC 6749), the JWKS.

Both token endpoints are rate limited per client address, then per client id
(``pixweb.security.ratelimit``), before any certificate or secret is looked at.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any
from urllib.parse import unquote_plus

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, JSONBody, URLEncodedBody

from pixcore.errors import AuthenticationError, PermissionDenied, PixError, TryLater
from pixcore.usecases import issue_token
from pixweb.api.deps import services_of
from pixweb.api.fields import MAX_CLIENT_ID, MAX_CLIENT_SECRET, MAX_GRANT_TYPE
from pixweb.edge import text_problem
from pixweb.errors import error_responses, retry_after, status_of
from pixweb.security.certificates import read_certificate_header

__all__ = ["AuthController"]

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
ClientId = Annotated[str, msgspec.Meta(max_length=MAX_CLIENT_ID)]
ClientSecret = Annotated[str, msgspec.Meta(max_length=MAX_CLIENT_SECRET)]


class TokenRequest(msgspec.Struct, rename="camel"):
    client_id: ClientId
    client_secret: ClientSecret


class TokenResponse(msgspec.Struct):
    access_token: str
    token_type: str
    expires_in: int


class OAuthTokenForm(msgspec.Struct):
    grant_type: Annotated[str, msgspec.Meta(max_length=MAX_GRANT_TYPE)]
    client_id: ClientId | None = None
    client_secret: ClientSecret | None = None


class OAuthError(msgspec.Struct, rename={"status_code": "statusCode"}):
    """RFC 6749 §5.2 error, plus the service's ``statusCode`` and ``message``."""

    error: str
    error_description: str
    status_code: int
    message: str


def _limit_address(request: Request[Any, Any, Any]) -> None:
    """The first thing a token request meets: the limit of its address (the ASGI scope's client)."""
    client = request.client
    services_of(request).token_limits.check_address(client.host if client else "")


async def _issue(
    request: Request[Any, Any, Any], client_id: str, client_secret: str, cert: str | None
) -> TokenResponse:
    services = services_of(request)
    services.token_limits.check_client(client_id)
    services.verifier.check_room()  # a flood beyond the hashing queue costs no database work
    certificate = read_certificate_header(cert)
    issued = await issue_token(
        services.uow,
        services.verifier,
        services.tokens,
        services.clock,
        client_id=client_id,
        client_secret=client_secret,
        certificate=certificate,
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
    """What the edge would refuse in a body (decisions §13), for credentials that came in a header."""
    checks = (("client id", client_id, MAX_CLIENT_ID), ("secret", secret, MAX_CLIENT_SECRET))
    for name, value, limit in checks:
        if (problem := text_problem(value)) is not None:
            return f"The Basic credentials' {name} {problem}."
        if len(value) > limit:
            return f"The Basic credentials' {name} is longer than {limit} characters."
    return None


async def _oauth_issue(
    request: Request[Any, Any, Any], data: OAuthTokenForm, cert: str | None
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
        token = await _issue(request, client_id, client_secret, cert)
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
        responses=error_responses(400, 401, 403, 413, 429),
        status_code=201,
        summary="Get an access token",
        description=(
            "Client credentials plus the linked client certificate. Tokens last 1800 s."
            " Rate limited per client id and per address: 429 with `Retry-After`; 503 with"
            " `Retry-After` when too many credential checks wait already."
        ),
        security=[{}],  # no bearer token: an empty requirement (OpenAPI 3)
    )
    async def create_token(
        self,
        request: Request[Any, Any, Any],
        data: JSONBody[TokenRequest],
        x_ssl_client_cert: CertHeader = None,
    ) -> TokenResponse:
        _limit_address(request)
        return await _issue(request, data.client_id, data.client_secret, x_ssl_client_cert)

    @post(
        "/oauth/token",
        operation_id="oauthToken",
        # A malformed form is the usual 400; the OAuth errors (RFC 6749 §5.2) are its superset.
        responses={200: ResponseSpec(TokenResponse, description="The access token")}
        | error_responses(400, 413)
        | error_responses(401, 403, 429, body=OAuthError),
        status_code=200,
        summary="Get an access token (RFC 6749 client_credentials)",
        description=(
            "Form body; client authentication in the body or by HTTP Basic. Same certificate rules,"
            " same rate limits (429 `slow_down`, 503 `temporarily_unavailable`, with `Retry-After`)."
        ),
        security=[{}],  # no bearer token: an empty requirement (OpenAPI 3)
    )
    async def oauth_token(
        self,
        request: Request[Any, Any, Any],
        data: URLEncodedBody[OAuthTokenForm],
        x_ssl_client_cert: CertHeader = None,
    ) -> Response[Any]:
        try:
            _limit_address(request)
            return await _oauth_issue(request, data, x_ssl_client_cert)
        except TryLater as exc:
            return _oauth_later(exc)

    @get(
        "/.well-known/jwks.json",
        operation_id="getJwks",
        summary="The public keys that sign access tokens",
        security=[{}],  # no bearer token: an empty requirement (OpenAPI 3)
    )
    async def jwks(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        return services_of(request).tokens.jwks()
