"""Every request runs on the database's clock (docs/decisions/sandbox-clock.md: the clock is not cached for
longer than a request).

Before authentication (token expiry is judged on the service clock), each request reads the
sandbox clock's offset: one primary-key read of a one-row table. Routes that never read the clock
(the OpenAPI document, the JWKS, health and metrics) skip it, so liveness does not depend on the
database.

A request with a bearer token whose signature checks (``JwtIssuer.principal``: no database, the
verified-token cache) has its certificate's revocation look-up made by the same statement
(``PostgresCertificateStatus.in_force_with_clock``); the answer waits in the request's scope
(:func:`prefetched_in_force`) for the bearer check, which asks the database itself when there is
none. Both reads happen at the start of the request, as before: a revocation committed by any
process refuses the next request everywhere.

``POST /dict/pix``, when transfers are grouped (docs/decisions/group-commit.md), reads nothing here: its
token is verified on the clock the process last read (the offset only grows, so a token expired then is
expired now), and its certificate status and the clock are read by its GROUP, one statement for
all the group's callers, before anything is written (``TransferGroupCommit``; the token's expiry is
judged again on the clock that statement read). The pending check waits in the request's scope
(``pixweb.security.pending``) for the bearer check (which then does not ask) and the handler (which
hands it to the group). A token whose window does not hold on the last clock takes the path above.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from litestar.enums import ScopeType
from litestar.middleware.base import ASGIMiddleware

from pixcore.accounts.ports import PendingCredential
from pixcore.errors import InvalidToken
from pixweb.security.certificates import x5t_to_fingerprint
from pixweb.security.pending import leave_pending_credential, was_handed
from pixweb.services import Services

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "CLOCKLESS_PATHS",
    "SharedClockMiddleware",
    "prefetched_in_force",
]

CLOCKLESS_PATHS = ("^/schema", "^/.well-known/", "^/health/", "^/metrics$")
_CLOCKLESS = re.compile("|".join(CLOCKLESS_PATHS))
_PREFETCHED = "pix.certificate_in_force"
_GROUPED = ("POST", "/dict/pix")  # the route whose group reads its callers' certificates


def _clockless(scope: Scope) -> bool:
    return _CLOCKLESS.match(scope["path"]) is not None


def _bearer(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if scheme.lower() == "bearer" else None
    return None


def prefetched_in_force(scope: Any, account_id: int, fingerprint: str) -> bool | None:
    """Whether this certificate was in force when the request began, if its clock read said so."""
    found = scope.get("state", {}).get(_PREFETCHED)
    if found is None or found[:2] != (account_id, fingerprint):
        return None
    return bool(found[2])


async def _deferred(
    services: Services,
    pending: PendingCredential,
    scope: Scope,
    receive: Receive,
    send: Send,
    *,
    next_app: ASGIApp,
) -> None:
    """Run the request with its certificate check left to its group. A request answered without
    reaching a group (its body refused, say) is checked here, alone, before its answer goes out, so
    that a revoked certificate or an expired token is answered 401 as the bearer check would."""
    leave_pending_credential(scope, pending)
    refusal: list[InvalidToken | None] = []  # the check's outcome, once made

    async def check() -> None:
        if was_handed(scope):
            return
        if not refusal:
            refusal.append(await services.transfers.refusal(pending))
        if refusal[0] is not None:
            raise refusal[0]

    async def checked_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            await check()
        await send(message)

    try:
        await next_app(scope, receive, checked_send)
    except InvalidToken:
        raise
    except Exception:  # an error on its way to the exception handlers: refused first if refused
        await check()
        raise


class SharedClockMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)
    should_bypass_for_scope = staticmethod(_clockless)  # by the request's path, not the route's

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        services: Services = scope["litestar_app"].state.services
        keeper, token = services.keeper, _bearer(scope)
        if token is None or not keeper.reads_database:
            await keeper.refresh()
            await next_app(scope, receive, send)
            return
        if (scope.get("method"), scope["path"]) == _GROUPED and services.transfers.checks_certificates:
            try:
                principal, expires_at = services.tokens.verify_until(token)
            except InvalidToken:  # not on the last clock read: read it now, as any request does
                pass
            else:
                fingerprint = x5t_to_fingerprint(principal.fingerprint)
                pending = PendingCredential(principal.account_id, fingerprint, expires_at)
                await _deferred(services, pending, scope, receive, send, next_app=next_app)
                return
        try:
            principal = services.tokens.principal(token)
        except InvalidToken:  # the bearer check refuses it; the clock is read all the same
            await keeper.refresh()
        else:
            fingerprint = x5t_to_fingerprint(principal.fingerprint)
            in_force, offset = await services.certificate_status.in_force_with_clock(
                principal.account_id, fingerprint
            )
            keeper.adopt(offset)
            scope.setdefault("state", {})[_PREFETCHED] = (principal.account_id, fingerprint, in_force)
        await next_app(scope, receive, send)
