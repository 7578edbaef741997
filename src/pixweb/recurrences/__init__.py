"""Pix Automático over HTTP (docs/recurring.md): the standard's ``/rec``, ``/solicrec``, ``/cobr``,
``/locrec``, ``/webhookrec`` and ``/webhookcobr``, served on its face only (our own API has no
recurrences: :data:`RECURRENCE_HANDLERS`), the payload at ``/qr/v2/rec/{token}``, and the payer's
side in the sandbox (``/sandbox``, ours)."""

from __future__ import annotations

from pixweb.recurrences.controllers import (
    RecurrenceController,
    RecurrenceLocationController,
    RecurrencePayloadController,
    RecurrenceRequestController,
    RecurrenceSandboxController,
    RecurrenceWebhookController,
    RecurringChargeController,
    RecurringChargeWebhookController,
)

__all__ = [
    "RECURRENCE_HANDLERS",
    "RecurrencePayloadController",
    "RecurrenceSandboxController",
]

RECURRENCE_HANDLERS = (
    RecurrenceController,
    RecurrenceRequestController,
    RecurringChargeController,
    RecurrenceLocationController,
    RecurrenceWebhookController,
    RecurringChargeWebhookController,
)
"""The standard's operations of Pix Automático, for its face's router."""
