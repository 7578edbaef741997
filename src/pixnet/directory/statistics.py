"""The anti-fraud counters a ``getEntry`` answers with (``Statistics``): events by key, owner and
account over the last 3 days (``d3``), 30 days (``d30``) and the 6 months before the current one
(``m6``).

The counters of settled transactions are given quantized, as the DICT API document says: rounded
up to the scale 0, 1, 5, 10, 50, 100, 500, 1000, 5000, ... (3 is 5, 190 is 500), so that a look-up
tells how busy a key is without telling its exact traffic.
"""

from __future__ import annotations

__all__ = ["quantized"]


def quantized(count: int) -> int:
    """``count`` rounded up to the next of 0, 1, 5, 10, 50, 100, 500, ... (a negative is refused)."""
    if count < 0:
        raise ValueError(f"a counter is never negative: {count}")
    step = 1
    while True:
        for mark in (step, 5 * step):
            if count <= mark:
                return 0 if count == 0 else mark
        step *= 10
