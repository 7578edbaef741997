"""The wire's structs of recurrence locations (``/locrec``) and of the webhooks of Pix Automático
(``/webhookrec``, ``/webhookcobr``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from pixcore.webhooks.rules import MAX_URL_LENGTH
from pixweb.api.fields import Timestamp
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import PeriodOut
from pixweb.recurrences.schemas._rec import RecLocOut

__all__ = ["LocRecQueryOut", "LocsRecOut", "RecLocOut", "RecurringWebhookIn", "RecurringWebhookOut"]


class LocRecQueryOut(PeriodOut, omit_defaults=True):
    """The standard's ``ParametrosConsultaPayloadLocationRec``."""

    id_rec_presente: bool | None = None


class LocsRecOut(WireStruct):
    """The standard's ``PayloadLocationRecConsultadas``."""

    parametros: LocRecQueryOut
    loc: list[RecLocOut]


class RecurringWebhookIn(WireStruct):
    """The standard's ``WebhookRecSolicitado`` and ``WebhookCobRSolicitado``."""

    webhook_url: Annotated[str, msgspec.Meta(max_length=MAX_URL_LENGTH, description="Where to notify.")]


class RecurringWebhookOut(WireStruct):
    """The standard's ``WebhookRecCompleto`` and ``WebhookCobRCompleto``."""

    webhook_url: str
    criacao: Timestamp
