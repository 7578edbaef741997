"""The wire's structs of Pix Automático: what ``/rec``, ``/solicrec``, ``/cobr``, ``/locrec``,
``/webhookrec`` and ``/webhookcobr`` take and answer, as the standard's document draws them."""

from __future__ import annotations

from pixweb.recurrences.schemas._cobr import CobRIn, CobROut, CobRPatchIn, CobRQueryOut, CobsROut
from pixweb.recurrences.schemas._locrec import (
    LocRecQueryOut,
    LocsRecOut,
    RecurringWebhookIn,
    RecurringWebhookOut,
)
from pixweb.recurrences.schemas._rec import (
    RecIn,
    RecLocOut,
    RecOut,
    RecPatchIn,
    RecPayloadOut,
    RecQueryOut,
    RecsOut,
    SolicRecIn,
    SolicRecOut,
    SolicRecPatchIn,
)

__all__ = [
    "CobRIn",
    "CobROut",
    "CobRPatchIn",
    "CobRQueryOut",
    "CobsROut",
    "LocRecQueryOut",
    "LocsRecOut",
    "RecIn",
    "RecLocOut",
    "RecOut",
    "RecPatchIn",
    "RecPayloadOut",
    "RecQueryOut",
    "RecsOut",
    "RecurringWebhookIn",
    "RecurringWebhookOut",
    "SolicRecIn",
    "SolicRecOut",
    "SolicRecPatchIn",
]
