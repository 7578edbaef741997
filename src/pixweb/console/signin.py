"""Sign-in and sign-out: the client id and secret, checked by the token endpoint's use case and
counted against the token endpoints' rate limits (every attempt, as there; with no certificate,
per client id and address)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import QueryParameter

from pixcore.accounts.sessions_service import ConsoleSessions
from pixcore.accounts.token_service import check_credentials, issue_token
from pixcore.clock import Clock
from pixcore.errors import PixError, ValidationError
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.accounts.tokens import Issuing
from pixweb.api.deps import Injected
from pixweb.api.fields import MAX_CLIENT_ID, MAX_CLIENT_SECRET
from pixweb.console.web import (
    FormErrors,
    end_session,
    missing_fields,
    page,
    redirect,
    safe_next,
    session_of,
    start_session,
)
from pixweb.errors import status_of
from pixweb.security.certificates import CERT_HEADER, certificate_header, read_certificate_header
from pixweb.security.hashing import BoundedVerifier
from pixweb.security.ratelimit import TokenRateLimits
from pixweb.security.tokens import JwtIssuer

__all__ = ["sign_in", "sign_in_form", "sign_out"]

NextPage = Annotated[str | None, QueryParameter(name="next", max_length=2048)]
SIGN_IN_REQUIRED = ("client_id", "client_secret")


def _field(form: Any, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""


@get("/sign-in", name="console:sign-in", include_in_schema=False)
async def sign_in_form(request: Request[Any, Any, Any], next_page: NextPage = None) -> Response[Any]:
    session = session_of(request)
    if session.account_id is not None:
        return redirect(request, safe_next(next_page))
    return page(
        request,
        "sign_in.html",
        next=safe_next(next_page),
        client_id="",
        errors=FormErrors(),
        expired=session.expired,
    )


async def _account(
    request: Request[Any, Any, Any], issuing: Issuing, settings: Settings, client_id: str, client_secret: str
) -> int:
    """The token endpoint's checks, in its order: address limit, certificate header, hashing room,
    client limit, then the credentials (and the certificate, where the API would demand one)."""
    limits = issuing.limits
    client = request.client
    address = client.host if client else ""
    limits.check_address(address)
    for name, value, limit in (
        ("client id", client_id, MAX_CLIENT_ID),
        ("secret", client_secret, MAX_CLIENT_SECRET),
    ):
        if len(value) > limit:
            raise ValidationError(f"The {name} is longer than {limit} characters.")
    cert = certificate_header(request.headers.getall(CERT_HEADER, []))
    if cert is None and not settings.require_client_cert:
        issuing.verifier.check_room()
        limits.check_without_certificate(client_id, address)
        return await check_credentials(
            issuing.uow, issuing.verifier, client_id=client_id, client_secret=client_secret
        )
    certificate = read_certificate_header(cert)
    issuing.verifier.check_room()
    issued = await issue_token(
        issuing.uow,
        issuing.verifier,
        issuing.tokens,
        issuing.clock,
        client_id=client_id,
        client_secret=client_secret,
        certificate=certificate,
        before_secret=lambda own: limits.check_certificate(client_id, certificate.fingerprint, own=own),
    )
    return issued.account_id


@post("/sign-in", name="console:sign-in-post", include_in_schema=False, status_code=200)
async def sign_in(
    request: Request[Any, Any, Any],
    *,
    uow: Injected[UnitOfWorkFactory],
    verifier: Injected[BoundedVerifier],
    tokens: Injected[JwtIssuer],
    clock: Injected[Clock],
    token_limits: Injected[TokenRateLimits],
    settings: Injected[Settings],
    console_sessions: Injected[ConsoleSessions],
) -> Response[Any]:
    form = await request.form()
    client_id, secret, wanted = _field(form, "client_id"), _field(form, "client_secret"), _field(form, "next")
    # Both fields are needed: an empty one is said so beside it, and no attempt counts against a limit.
    errors: FormErrors = missing_fields({"client_id": client_id, "client_secret": secret}, SIGN_IN_REQUIRED)
    status = 400
    if not errors:
        try:
            issuing = Issuing(uow, verifier, tokens, clock, token_limits)
            account_id = await _account(request, issuing, settings, client_id, secret)
        except PixError as exc:
            errors = FormErrors(exc)
            status = status_of(exc)
        else:
            await start_session(request, console_sessions, account_id)
            return redirect(request, safe_next(wanted))
    return page(
        request,
        "sign_in.html",
        status_code=status,
        next=safe_next(wanted),
        client_id=client_id,
        errors=errors,
        expired=False,
    )


@post("/sign-out", name="console:sign-out", include_in_schema=False, status_code=200)
async def sign_out(
    request: Request[Any, Any, Any], *, console_sessions: Injected[ConsoleSessions]
) -> Response[Any]:
    await end_session(request, console_sessions)
    return redirect(request, "/console/sign-in")
