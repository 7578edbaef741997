"""Webhook rules (decisions §9): the registrable event types, which notification goes to which
registration, whose addresses may receive notifications, and the retry schedule."""

from __future__ import annotations

import enum
import ipaddress
from datetime import timedelta
from typing import Any

__all__ = ["RETRY_SCHEDULE", "EventType", "event_type_of", "is_public_address"]


class EventType(enum.StrEnum):
    CASH_IN = "cash_in"
    CASH_OUT = "cash_out"
    REFUND_IN = "refund_in"
    REFUND_OUT = "refund_out"
    MED_CREATED = "med_created"
    MED_ACCEPTED = "med_accepted"
    MED_REJECTED = "med_rejected"


_MED = {
    "CREATED": EventType.MED_CREATED,
    "ACCEPTED": EventType.MED_ACCEPTED,
    "REJECTED": EventType.MED_REJECTED,
}


def event_type_of(event: dict[str, Any]) -> EventType | None:
    """The registration type a notification ``{type, data}`` goes to; None for none."""
    data = event.get("data") or {}
    match event.get("type"):
        case "RECEIVE":
            return EventType.CASH_IN
        case "TRANSFER":
            return EventType.CASH_OUT
        case "REFUND":
            return EventType.REFUND_IN if data.get("creditDebitType") == "DEBIT" else EventType.REFUND_OUT
        case "MED":
            return _MED.get(str(data.get("status")))
        case _:
            return None


def is_public_address(address: str) -> bool:
    """True for a globally routable unicast address; loopback, private, link-local, multicast,
    reserved and unspecified addresses (and IPv4 written inside IPv6) are not."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and (mapped := ip.ipv4_mapped or ip.sixtofour) is not None:
        ip = mapped
    return ip.is_global and not ip.is_multicast


RETRY_SCHEDULE: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
"""Delay before each attempt (Standard Webhooks): the first at once, the eighth 10 h after the
seventh. Jitter is added by the notifier; after the last attempt the delivery is failed."""
