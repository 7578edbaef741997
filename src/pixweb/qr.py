"""QR images of BR Codes (segno)."""

from __future__ import annotations

import base64
import io

import segno

__all__ = ["png_base64"]


def png_base64(text: str, *, scale: int = 5) -> str:
    """A PNG of ``text`` as a QR code (error correction M, a 4-module quiet zone), Base64-encoded."""
    buffer = io.BytesIO()
    segno.make_qr(text, error="m", boost_error=False).save(buffer, kind="png", scale=scale, border=4)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
