"""The errors of Pix Automático, one class per broken rule, each under the branch of
:mod:`pixcore.errors` that says how the edge answers it (``pixweb.errors`` maps the branches)::

    PixError
    ├── ValidationError                      400
    │   ├── InvalidRecurrence                a recurrence's terms break a rule
    │   ├── ReceiverNotACompany              a person's account asks for a recurrence
    │   ├── InvalidRecurrenceRequest         a request for authorization breaks a rule
    │   ├── InvalidRecurringCharge           a recurring charge breaks a rule
    │   ├── RecurrenceClosed                 the recurrence is expired, rejected or cancelled
    │   ├── RecurrenceLocationTaken          the location serves another recurrence
    │   ├── ActiveRequestExists              the recurrence has a request still open
    │   ├── CycleTaken                       the recurrence has a live charge in that cycle
    │   ├── CancelTooLate                    the first attempt's date has come
    │   └── RetryRefused                     a retry is not allowed now
    │       └── RetryNotAllowed              the recurrence's policy allows no retry
    ├── NotFound                             404
    │   ├── RecurrenceNotFound
    │   ├── RecurrenceRequestNotFound
    │   ├── RecurringChargeNotFound
    │   └── RecurrenceLocationNotFound
    ├── Conflict                             409
    │   └── DuplicateRecurrence              an idRec the service made twice
    └── RuleViolation                        422
        ├── RecurrenceTransition             a state change the lifecycle refuses
        ├── PayerFundsShort                  the payer's bank has not the amount (the sandbox)
        └── PayerMismatch                    the payer named is not the authorization's

The standard answers most rules of ``/rec``, ``/solicrec`` and ``/cobr`` with 400 (its
``RecOperacaoInvalida``, ``SolicRecOperacaoInvalida``, ``CobROperacaoInvalida``): hence the
many :class:`~pixcore.errors.ValidationError` here. A state change asked of the payer's
simulated side (the sandbox) that its lifecycle refuses is a 422.
"""

from __future__ import annotations

from pixcore.errors import Conflict, NotFound, RuleViolation, ValidationError

__all__ = [
    "ActiveRequestExists",
    "CancelTooLate",
    "CycleTaken",
    "DuplicateRecurrence",
    "InvalidRecurrence",
    "InvalidRecurrenceRequest",
    "InvalidRecurringCharge",
    "PayerFundsShort",
    "PayerMismatch",
    "ReceiverNotACompany",
    "RecurrenceClosed",
    "RecurrenceLocationNotFound",
    "RecurrenceLocationTaken",
    "RecurrenceNotFound",
    "RecurrenceRequestNotFound",
    "RecurrenceTransition",
    "RecurringChargeNotFound",
    "RetryNotAllowed",
    "RetryRefused",
]


class InvalidRecurrence(ValidationError):
    """The recurrence does not respect the schema or is semantically wrong."""


class ReceiverNotACompany(ValidationError):
    """Pix Automático receives for a legal person (the standard's ``recebedor`` has a ``cnpj``);
    the account's holder is a person."""


class InvalidRecurrenceRequest(ValidationError):
    """The request for the payer's authorization does not respect the schema or is semantically wrong."""


class InvalidRecurringCharge(ValidationError):
    """The recurring charge does not respect the schema or is semantically wrong."""


class RecurrenceClosed(ValidationError):
    """The recurrence is expired, rejected or cancelled."""


class RecurrenceLocationTaken(ValidationError):
    """The location serves another recurrence."""


class ActiveRequestExists(ValidationError):
    """The recurrence has a request for authorization still open (CRIADA, ENVIADA or RECEBIDA)."""


class CycleTaken(ValidationError):
    """The recurrence has a recurring charge in this cycle already (one not REJEITADA or CANCELADA)."""


class CancelTooLate(ValidationError):
    """A recurring charge cannot be cancelled on or after the date of its first attempt."""


class RetryRefused(ValidationError):
    """A retry of this recurring charge cannot be asked now."""


class RetryNotAllowed(RetryRefused):
    """The recurrence's retry policy does not allow retries."""


class RecurrenceNotFound(NotFound):
    """Recurrence not found."""


class RecurrenceRequestNotFound(NotFound):
    """Request for the authorization of a recurrence not found."""


class RecurringChargeNotFound(NotFound):
    """Recurring charge not found."""


class RecurrenceLocationNotFound(NotFound):
    """No recurrence location with this id for this account."""


class DuplicateRecurrence(Conflict):
    """A recurrence with this id exists already."""


class RecurrenceTransition(RuleViolation):
    """The operation is not allowed in the recurrence's (or its request's, or charge's) current state."""


class PayerFundsShort(RuleViolation):
    """The payer's balance at their bank does not cover this payment."""


class PayerMismatch(RuleViolation):
    """The payer is not the one the recurrence was authorized by."""
