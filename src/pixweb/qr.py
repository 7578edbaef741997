"""QR images of BR Codes (segno).

Drawing one costs tens of milliseconds of pure Python (most of it segno trying the eight masks, as
the QR standard asks), and a charge's code never changes: the last :data:`CACHED` images drawn are
kept, by code and scale (about 1 KB each). :func:`png_off_loop` draws off the event loop, so that a
QR image does not hold up the requests served beside it.
"""

from __future__ import annotations

import asyncio
import base64
import io
from functools import lru_cache

import segno

__all__ = ["CACHED", "png", "png_base64", "png_off_loop"]

CACHED = 512


@lru_cache(maxsize=CACHED)
def png(text: str, *, scale: int = 5) -> bytes:
    """The PNG bytes of ``text`` as a QR code (error correction M, a 4-module quiet zone)."""
    buffer = io.BytesIO()
    segno.make_qr(text, error="m", boost_error=False).save(buffer, kind="png", scale=scale, border=4)
    return buffer.getvalue()


def png_base64(text: str, *, scale: int = 5) -> str:
    """:func:`png`, Base64-encoded."""
    return base64.b64encode(png(text, scale=scale)).decode("ascii")


async def png_off_loop(text: str, *, scale: int = 5) -> bytes:
    """:func:`png`, drawn in a worker thread when it is not cached already."""
    return await asyncio.to_thread(png, text, scale=scale)
