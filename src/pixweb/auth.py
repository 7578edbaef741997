"""The bearer-token gate in front of every route but the token endpoints.

A request passes with ``Authorization: Bearer <token>`` whose token verifies
(:meth:`JwtIssuer.verify`). If the request also carries ``X-SSL-Client-Cert``,
that certificate must be the one the token is bound to (the header sent twice, or holding
two certificates, is a 400); with
``PIX_REQUIRE_CLIENT_CERT`` on, the header is mandatory. Last, the certificate the
token is bound to must still be linked to the token's account and not revoked: one
look-up by primary key per request, so that a revocation holds at once everywhere (made by the
clock's read at the start of the request, in the same statement, when the sandbox clock is
shared: ``pixweb.sandbox.clock_middleware``; for a grouped ``POST /dict/pix``, by its group).
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.middleware.authentication import AbstractAuthenticationMiddleware, AuthenticationResult

from pixcore.errors import InvalidToken, MalformedCertificate, MoreThanOneCertificate
from pixweb.sandbox.clock_middleware import prefetched_in_force
from pixweb.security.certificates import (
    CERT_HEADER,
    certificate_header,
    fingerprint_to_x5t,
    read_certificate_header,
    x5t_to_fingerprint,
)
from pixweb.security.pending import pending_credential
from pixweb.security.tokens import Principal
from pixweb.services import Services

__all__ = ["BearerAuthMiddleware", "Principal"]


class BearerAuthMiddleware(AbstractAuthenticationMiddleware):
    async def authenticate_request(
        self, connection: ASGIConnection[Any, Any, Any, Any]
    ) -> AuthenticationResult:
        services: Services = connection.app.state.services
        scheme, _, token = connection.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise InvalidToken("A bearer token is required (Authorization: Bearer <token>).")
        principal = services.tokens.verify(token.strip())
        cert_header = certificate_header(connection.headers.getall(CERT_HEADER, []))
        if cert_header is not None or services.settings.require_client_cert:
            try:
                certificate = read_certificate_header(cert_header)
            except MoreThanOneCertificate:
                raise
            except MalformedCertificate:
                raise InvalidToken("The client certificate does not match the token.") from None
            if fingerprint_to_x5t(certificate.fingerprint) != principal.fingerprint:
                raise InvalidToken("The client certificate does not match the token.")
        fingerprint = x5t_to_fingerprint(principal.fingerprint)
        if pending_credential(connection.scope, principal.account_id, fingerprint) is not None:
            return AuthenticationResult(user=principal, auth=token)  # its group checks the certificate
        in_force = prefetched_in_force(connection.scope, principal.account_id, fingerprint)
        if in_force is None:
            in_force = await services.certificate_status.in_force(principal.account_id, fingerprint)
        if not in_force:
            raise InvalidToken(InvalidToken.REVOKED)
        return AuthenticationResult(user=principal, auth=token)
