"""The sandbox clock: the service clock, which the operator can move forward.

It is kept by :mod:`pixinfra.postgres.clock` (the API and the notifier both read it); this module
names it for the API's side.
"""

from __future__ import annotations

from pixinfra.postgres.clock import MAX_ADVANCE, MAX_OFFSET, ClockKeeper, stored_offset

__all__ = ["MAX_ADVANCE", "MAX_OFFSET", "ClockKeeper", "stored_offset"]
