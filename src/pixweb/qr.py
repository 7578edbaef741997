"""QR images of BR Codes (segno for the symbol, the PNG written here).

Drawing one costs tens of milliseconds of pure Python, most of it segno trying the eight masks, as
the QR standard asks (a fixed mask would be faster, and a worse symbol for a camera now and then).
So an image is drawn once and kept: a charge's code never changes, and the last :data:`CACHED`
images drawn (about 1 KB each) are kept by code and scale. The console draws a new charge's image
as soon as the charge is made (:func:`draw_soon`), off the event loop, so the page that shows it
finds it ready; :func:`png_off_loop` draws what is not kept yet in a worker thread, and two
requests for an image being drawn wait for the one drawing.

The PNG itself is written here from segno's module matrix (1-bit grayscale, one ``IDAT``): the same
pixels as segno's own PNG writer, which spends more time on them than on the symbol's modules.
"""

from __future__ import annotations

import asyncio
import base64
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence

import segno

__all__ = ["BORDER", "CACHED", "draw_soon", "encode_png", "png", "png_base64", "png_off_loop"]

CACHED = 512
BORDER = 4  # modules of quiet zone, as the standard asks

_Key = tuple[str, int]
_kept: OrderedDict[_Key, bytes] = OrderedDict()
_kept_lock = threading.Lock()  # png() runs on the event loop and in worker threads
_drawing: dict[_Key, asyncio.Future[bytes]] = {}  # touched on the event loop only


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(matrix: Sequence[bytes | bytearray], *, scale: int, border: int = BORDER) -> bytes:
    """A PNG of a square module ``matrix`` (segno's: 1 dark, 0 light), ``scale`` pixels a module,
    with a light ``border`` of modules around it: 1-bit grayscale, black on white."""
    modules = len(matrix) + 2 * border
    side = modules * scale
    padding = -side % 8  # each PNG row is whole bytes; the padding bits are not pixels
    quiet = "1" * (border * scale)
    light_row = b"\x00" + int("1" * side + "0" * padding, 2).to_bytes((side + padding) // 8, "big")
    pixels = {0: "1" * scale, 1: "0" * scale}  # a module's pixels as PNG bits (1: white)
    rows = [light_row * (border * scale)]
    for line in matrix:
        bits = quiet + bytes(line).decode("latin-1").translate(pixels) + quiet + "0" * padding
        rows.append((b"\x00" + int(bits, 2).to_bytes((side + padding) // 8, "big")) * scale)
    rows.append(light_row * (border * scale))
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)  # 1 bit, grayscale, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + _chunk(b"IEND", b"")
    )


def _kept_image(key: _Key) -> bytes | None:
    with _kept_lock:
        image = _kept.get(key)
        if image is not None:
            _kept.move_to_end(key)
        return image


def png(text: str, *, scale: int = 5) -> bytes:
    """The PNG bytes of ``text`` as a QR code (error correction M, a 4-module quiet zone), drawn
    once and kept."""
    key = (text, scale)
    image = _kept_image(key)
    if image is None:
        symbol = segno.make_qr(text, error="m", boost_error=False)
        image = encode_png(symbol.matrix, scale=scale)
        with _kept_lock:
            _kept[key] = image
            while len(_kept) > CACHED:
                _kept.popitem(last=False)
    return image


def png_base64(text: str, *, scale: int = 5) -> str:
    """:func:`png`, Base64-encoded."""
    return base64.b64encode(png(text, scale=scale)).decode("ascii")


def _drawing_of(text: str, scale: int) -> asyncio.Future[bytes]:
    """The drawing of ``text`` in a worker thread: the one under way on this loop, or a new one."""
    key = (text, scale)
    loop = asyncio.get_running_loop()
    pending = _drawing.get(key)
    if pending is None or pending.get_loop() is not loop:
        pending = loop.create_task(asyncio.to_thread(png, text, scale=scale))
        _drawing[key] = pending

        def done(finished: asyncio.Future[bytes]) -> None:
            if _drawing.get(key) is finished:
                del _drawing[key]
            if not finished.cancelled():
                finished.exception()  # retrieved: a failed drawing is raised to whoever waits

        pending.add_done_callback(done)
    return pending


async def png_off_loop(text: str, *, scale: int = 5) -> bytes:
    """:func:`png`: at once when kept, else drawn in a worker thread (one drawing per image: a
    second request waits for the first's)."""
    image = _kept_image((text, scale))
    if image is not None:
        return image
    return await asyncio.shield(_drawing_of(text, scale))


def draw_soon(text: str, *, scale: int = 5) -> None:
    """Start drawing ``text``'s image in a worker thread, unless it is kept or being drawn (the
    console, as it makes a charge whose page shows the image next)."""
    if _kept_image((text, scale)) is None:
        _drawing_of(text, scale)
