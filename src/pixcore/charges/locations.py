"""Payload locations (the standard's ``/loc``): where a payer's PSP reads a charge's payload.

A location is the account's: an id (``loc.id``), a token (the last part of the payload URL,
``{host}/qr/v2/{token}``, or ``{host}/qr/v2/cobv/{token}`` for a ``cobv``), a type (``cob`` or
``cobv``: the kind of charge it may serve) and its creation moment. It serves at most one charge
at a time; a charge is at most at one location. ``PUT``/``POST /cob`` and ``PUT /cobv`` make a
new one for the charge unless the body names one (``loc.id``: the account's, of the charge's type,
serving no charge); ``DELETE /loc/{id}/txid`` unlinks the charge, which then has no location (no
BR Code: it cannot be paid by one) until a ``PATCH`` links it to another.

No wire names here beyond the standard's two type values; a problem names the type by a
:class:`LocationField`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import datetime

from pixcore.charges.cob import ChargeKind
from pixcore.errors import LocationNotFound, ValidationError
from pixcore.problems import Field, Problem

__all__ = [
    "MAX_LOCATION_ID",
    "Location",
    "LocationField",
    "LocationType",
    "NewLocation",
    "location_type_of",
    "parse_location_id",
    "parse_location_type",
]

MAX_LOCATION_ID = 9_223_372_036_854_775_807
"""The standard's ``PayloadLocationId`` is an int64."""
_DIGITS = re.compile(r"[0-9]{1,19}")


class LocationField(Field):
    """The fields of a location request, as its rules name them in problems."""

    TYPE = enum.auto()
    """The kind of charge a location serves."""


class LocationType(enum.StrEnum):
    """The standard's ``tipoCob``: the kind of charge a location serves."""

    COB = "cob"
    COBV = "cobv"


def location_type_of(kind: ChargeKind) -> LocationType:
    """A ``cobv`` is at a ``cobv`` location; a ``cob`` and a cash-in at a ``cob`` one."""
    return LocationType.COBV if kind is ChargeKind.COBV else LocationType.COB


def parse_location_type(value: object) -> LocationType:
    """A location's type as ``POST /loc`` gives it: ``cob`` or ``cobv``."""
    if isinstance(value, str):
        try:
            return LocationType(value)
        except ValueError:
            pass
    field = LocationField.TYPE
    raise ValidationError(
        Problem.of((), "Invalid location: {}", field), problems=[Problem.of(field, "must be cob or cobv")]
    )


def parse_location_id(text: str) -> int:
    """A ``{id}`` of ``/loc/{id}``: ASCII digits of a positive int64. Any other text names no
    location (404, as an unknown id or another account's)."""
    if _DIGITS.fullmatch(text) is None or not 0 < int(text) <= MAX_LOCATION_ID:
        raise LocationNotFound()
    return int(text)


@dataclass(frozen=True, slots=True, kw_only=True)
class NewLocation:
    account_id: int
    token: str
    """The payload URL's last part: 32 lower-case hex digits (``new_location_id``)."""
    type: LocationType
    created_at: datetime

    def url(self, prefix: str) -> str:
        """The payload's URL without scheme, as a BR Code carries it (``prefix``: ``{host}/qr/v2/``)."""
        return prefix + ("cobv/" if self.type is LocationType.COBV else "") + self.token


@dataclass(frozen=True, slots=True, kw_only=True)
class Location(NewLocation):
    """A stored location; ``txid`` and ``charge_id``: the charge it serves, if any."""

    id: int
    txid: str | None = None
    charge_id: int | None = None
