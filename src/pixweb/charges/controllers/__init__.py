"""The charges' route handlers: one controller a resource, each handler translating between the
wire (:mod:`pixweb.charges.schemas`, through :mod:`pixweb.charges.mapping`) and pixcore's use cases."""

from __future__ import annotations

from pixweb.charges.controllers._cob import ChargeController
from pixweb.charges.controllers._cobv import DueChargeController
from pixweb.charges.controllers._payloads import (
    AccessToken,
    DuePayloadController,
    PayloadController,
    payload_route,
    signed_payload_response,
)

__all__ = [
    "AccessToken",
    "ChargeController",
    "DueChargeController",
    "DuePayloadController",
    "PayloadController",
    "payload_route",
    "signed_payload_response",
]
