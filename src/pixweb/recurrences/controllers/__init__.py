"""Pix Automático's route handlers: one controller a resource, each translating between the wire
(:mod:`pixweb.recurrences.schemas`, through :mod:`pixweb.recurrences.requests` and
:mod:`pixweb.recurrences.mapping`) and ``pixcore.recurrences``' use cases."""

from __future__ import annotations

from pixweb.recurrences.controllers._cobr import RecurringChargeController
from pixweb.recurrences.controllers._locrec import RecurrenceLocationController
from pixweb.recurrences.controllers._payload import RecurrencePayloadController
from pixweb.recurrences.controllers._rec import RecurrenceController
from pixweb.recurrences.controllers._sandbox import RecurrenceSandboxController
from pixweb.recurrences.controllers._solicrec import RecurrenceRequestController
from pixweb.recurrences.controllers._webhooks import (
    RecurrenceWebhookController,
    RecurringChargeWebhookController,
)

__all__ = [
    "RecurrenceController",
    "RecurrenceLocationController",
    "RecurrencePayloadController",
    "RecurrenceRequestController",
    "RecurrenceSandboxController",
    "RecurrenceWebhookController",
    "RecurringChargeController",
    "RecurringChargeWebhookController",
]
