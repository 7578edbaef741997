"""The errors of the PIX domain, one class per broken rule.

Every error raised by :mod:`pixcore` derives from :class:`PixError`. The class
docstring is the default message. The web layer maps the second level of the
tree to HTTP statuses in exactly one place (``pixweb.errors``)::

    PixError
    ├── ValidationError            the input breaks a rule of shape or range
    │   ├── InvalidAmount
    │   ├── InvalidDocument
    │   ├── InvalidPixKey
    │   ├── InvalidIdentifier
    │   ├── InvalidBrCode
    │   ├── InvalidQuery
    │   │   └── UnknownRevision
    │   ├── InvalidWebhook
    │   ├── WebhookHostRefused
    │   ├── WebhookLimitReached
    │   ├── RefundAboveRefundable
    │   ├── MalformedCertificate
    │   │   └── MoreThanOneCertificate
    │   ├── InvalidClockMove
    │   └── LocationTaken
    │   └── DuplicateBatch
    ├── AuthenticationError        the caller could not be identified
    │   ├── InvalidCredentials
    │   ├── InvalidCertificate
    │   │   └── CertificateRevoked
    │   └── InvalidToken
    ├── PermissionDenied           the caller is known but may not do this
    │   ├── CertificateNotLinked
    │   └── NotSandboxAdmin
    ├── NotFound                   the thing asked for does not exist (for this caller)
    │   ├── AccountNotFound
    │   ├── TransactionNotFound
    │   ├── WebhookNotFound
    │   ├── DeliveryNotFound
    │   ├── ChargeNotFound
    │   ├── RefundNotFound
    │   ├── MedCaseNotFound
    │   ├── CertificateNotFound
    │   ├── SessionNotFound
    │   ├── CredentialNotFound
    │   └── LocationNotFound
    │   └── BatchNotFound
    ├── Conflict                   the thing to create exists already
    │   ├── DuplicatePixKey
    │   ├── DuplicateAccount
    │   ├── CertificateInUse
    │   ├── DuplicateCharge
    │   ├── DuplicateExternalId
    │   ├── RefundIdReused
    │   └── DuplicateMedCase
    └── RuleViolation              well-formed, but the business rules refuse it
        ├── InvalidTransition
        ├── InsufficientFunds
        ├── KeyNotInDirectory
        ├── IspbDenied
        ├── CreditorDocumentMismatch
        ├── OwnAccountTransfer
        ├── IdempotencyKeyReused
        ├── WebhookInactive
        ├── AmountMismatch
        ├── RefundWindowClosed
        ├── InternalRefund
        ├── OwnInstitution
        └── DueChargeClosed

An error may carry its problems (``pixcore.problems.Problem``), each naming its field by
a typed reference: ``message`` and ``details`` render them with the domain's names, and
:meth:`PixError.render` with any other naming (the edge's: the wire's paths).

Besides the tree's rules, two errors say "not now" and carry ``retry_after``
(seconds, for the ``Retry-After`` header)::

    PixError
    └── TryLater                   not now: retry after ``retry_after`` seconds
        ├── TooManyRequests        the caller went over a rate limit (429)
        └── ServiceBusy            the service is at capacity for this work (503)
"""

from __future__ import annotations

from collections.abc import Sequence

from pixcore.problems import Naming, Problem, domain_name

__all__ = [
    "AccountNotFound",
    "AmountMismatch",
    "AuthenticationError",
    "BatchNotFound",
    "CertificateInUse",
    "CertificateNotFound",
    "CertificateNotLinked",
    "CertificateRevoked",
    "ChargeNotFound",
    "Conflict",
    "CredentialNotFound",
    "CreditorDocumentMismatch",
    "DeliveryNotFound",
    "DueChargeClosed",
    "DuplicateAccount",
    "DuplicateBatch",
    "DuplicateCharge",
    "DuplicateExternalId",
    "DuplicateMedCase",
    "DuplicatePixKey",
    "IdempotencyKeyReused",
    "InsufficientFunds",
    "InternalRefund",
    "InvalidAmount",
    "InvalidBrCode",
    "InvalidCertificate",
    "InvalidClockMove",
    "InvalidCredentials",
    "InvalidDocument",
    "InvalidIdentifier",
    "InvalidPixKey",
    "InvalidQuery",
    "InvalidToken",
    "InvalidTransition",
    "InvalidWebhook",
    "IspbDenied",
    "KeyNotInDirectory",
    "LocationNotFound",
    "LocationTaken",
    "MalformedCertificate",
    "MedCaseNotFound",
    "MoreThanOneCertificate",
    "NotFound",
    "NotSandboxAdmin",
    "OwnAccountTransfer",
    "OwnInstitution",
    "PermissionDenied",
    "PixError",
    "RefundAboveRefundable",
    "RefundIdReused",
    "RefundNotFound",
    "RefundWindowClosed",
    "RuleViolation",
    "ServiceBusy",
    "SessionNotFound",
    "TooManyRequests",
    "TransactionNotFound",
    "TryLater",
    "UnknownRevision",
    "ValidationError",
    "WebhookHostRefused",
    "WebhookInactive",
    "WebhookLimitReached",
    "WebhookNotFound",
]


class PixError(Exception):
    """A rule of the PIX service was broken."""

    def __init__(
        self,
        message: str | Problem | None = None,
        *,
        details: list[str] | None = None,
        problems: Sequence[Problem] = (),
        summary: str | None = None,
    ) -> None:
        """``problems``: every broken rule, the ``details``; ``summary``: the message around them,
        ``{}`` standing for the problems joined by ``; `` (``"Invalid transfer: {}"``); a
        :class:`~pixcore.problems.Problem` as ``message``: the message is that one problem (a
        sentence that names a field, when it has no fields of its own)."""
        self.problems = tuple(problems)
        self.summary = summary
        self.lead = message if isinstance(message, Problem) else None
        text = message if isinstance(message, str) else None
        self.message = text or _first_line(type(self).__doc__) or type(self).__name__
        self.details: list[str] = list(details or [])
        if self.problems or self.lead is not None or summary is not None:
            self.message, self.details = self.render(domain_name)
        super().__init__(self.message)

    def render(self, name: Naming) -> tuple[str, list[str]]:
        """The message and the details with every field named by ``name``."""
        details = [problem.render(name) for problem in self.problems] or list(self.details)
        if self.lead is not None:
            return self.lead.render(name), details
        if self.summary is not None:
            return self.summary.replace("{}", "; ".join(details)), details
        return self.message, details


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if doc and doc.strip() else ""


# -- 400 ------------------------------------------------------------------


class ValidationError(PixError):
    """The request is invalid."""


class InvalidAmount(ValidationError):
    """Invalid amount: a positive value in reais with at most 2 decimals is expected."""


class InvalidDocument(ValidationError):
    """Invalid CPF or CNPJ."""


class InvalidPixKey(ValidationError):
    """Invalid PIX key."""


class InvalidIdentifier(ValidationError):
    """Invalid identifier."""


class InvalidBrCode(ValidationError):
    """Invalid BR Code: not a well-formed PIX EMV payload with a matching CRC."""


class InvalidQuery(ValidationError):
    """Invalid query parameters."""


class UnknownRevision(InvalidQuery):
    """The charge has no such revision (``revisao``)."""


class RefundAboveRefundable(ValidationError):
    """The refund exceeds what remains refundable of the original transaction."""


class MalformedCertificate(ValidationError):
    """The client certificate is missing or is not a URL-encoded PEM certificate."""


class MoreThanOneCertificate(MalformedCertificate):
    """X-SSL-Client-Cert must be sent once and hold one certificate."""


class InvalidClockMove(ValidationError):
    """The sandbox clock moves forward only, by a bounded number of seconds."""


class LocationTaken(ValidationError):
    """The location serves another charge."""


class InvalidWebhook(ValidationError):
    """Invalid webhook registration."""


class DuplicateBatch(ValidationError):
    """A batch of due-date charges with this id exists already: revise its charges with PATCH."""


class WebhookHostRefused(ValidationError):
    """The webhook URL's host must resolve, and only to public addresses."""


class WebhookLimitReached(ValidationError):
    """At most 3 active webhook URLs per event type are allowed."""


# -- 401 ------------------------------------------------------------------


class AuthenticationError(PixError):
    """Authentication failed."""


class InvalidCredentials(AuthenticationError):
    """Invalid client credentials."""


class InvalidCertificate(AuthenticationError):
    """Invalid client certificate."""


class CertificateRevoked(InvalidCertificate):
    """The client certificate was revoked."""


class InvalidToken(AuthenticationError):
    """The access token is missing, invalid or expired."""

    EXPIRED = "The access token is expired."
    """The message for a token outside its time window on the service clock."""
    REVOKED = "The client certificate of this token was revoked."
    """The message for a token whose certificate is revoked or no longer its account's."""


# -- 403 ------------------------------------------------------------------


class PermissionDenied(PixError):
    """The operation is not allowed."""


class CertificateNotLinked(PermissionDenied):
    """The client certificate is not linked to this account."""


class NotSandboxAdmin(PermissionDenied):
    """Only a sandbox administrator may move the clock (the operator makes one with --sandbox-admin)."""


# -- 404 ------------------------------------------------------------------


class NotFound(PixError):
    """Not found."""


class AccountNotFound(NotFound):
    """Account not found."""


class TransactionNotFound(NotFound):
    """Transaction not found."""


class WebhookNotFound(NotFound):
    """Webhook not found."""


class DeliveryNotFound(NotFound):
    """Webhook delivery not found."""


class ChargeNotFound(NotFound):
    """Charge not found."""


class BatchNotFound(NotFound):
    """Batch of due-date charges not found."""


class RefundNotFound(NotFound):
    """Refund not found."""


class MedCaseNotFound(NotFound):
    """MED case not found."""


class LocationNotFound(NotFound):
    """No location with this id for this account."""


class CredentialNotFound(NotFound):
    """Client credential not found."""


class SessionNotFound(NotFound):
    """Console session not found."""


class CertificateNotFound(NotFound):
    """No certificate with this fingerprint is linked to this account."""


# -- 409 ------------------------------------------------------------------


class Conflict(PixError):
    """The resource exists already."""


class DuplicatePixKey(Conflict):
    """The PIX key is registered already."""


class DuplicateAccount(Conflict):
    """An account with this identity exists already."""


class CertificateInUse(Conflict):
    """The certificate is linked to another account."""


class DuplicateCharge(Conflict):
    """A charge with this txid exists already."""


class DuplicateExternalId(Conflict):
    """A cash-in with this externalId exists already."""


class RefundIdReused(Conflict):
    """A refund with this id exists already, with another request."""


class DuplicateMedCase(Conflict):
    """The transaction has an open MED case already."""


# -- 422 ------------------------------------------------------------------


class RuleViolation(PixError):
    """The request cannot be processed."""


class InvalidTransition(RuleViolation):
    """The operation is not allowed in the current state."""


class InsufficientFunds(RuleViolation):
    """Insufficient balance: the available amount does not cover this operation."""


class KeyNotInDirectory(RuleViolation):
    """The PIX key was not found in the key directory (DICT)."""


class IspbDenied(RuleViolation):
    """The key belongs to an institution the request denies."""


class CreditorDocumentMismatch(RuleViolation):
    """The creditor document does not match the document of the key's owner."""


class OwnAccountTransfer(RuleViolation):
    """A transfer to the sender's own account is not allowed."""


class IdempotencyKeyReused(RuleViolation):
    """This idempotency key was used with a different request."""


class WebhookInactive(RuleViolation):
    """The webhook is deactivated: register its URL again to receive deliveries."""


class AmountMismatch(RuleViolation):
    """The amount paid is not the amount the charge asks for."""


class RefundWindowClosed(RuleViolation):
    """The refund deadline has passed: a receipt can be refunded for 89 days."""


class InternalRefund(RuleViolation):
    """The receiver of this transfer is an account of this service: it refunds through the API
    (PUT /pix/{e2eid}/devolucao/{id}), not as an outside receiver."""


class OwnInstitution(RuleViolation):
    """That ISPB is this service's own institution: the outside world is another institution
    (an account of this service pays with POST /dict/pix)."""


class DueChargeClosed(RuleViolation):
    """The due charge can no longer be paid: its last day to pay has passed."""


# -- 429 and 503 ------------------------------------------------------------


class TryLater(PixError):
    """Not now: retry later."""

    def __init__(
        self, message: str | None = None, *, details: list[str] | None = None, retry_after: int = 1
    ) -> None:
        super().__init__(message, details=details)
        self.retry_after = max(1, retry_after)


class TooManyRequests(TryLater):
    """Too many requests: retry later."""


class ServiceBusy(TryLater):
    """The service is busy: retry shortly."""
