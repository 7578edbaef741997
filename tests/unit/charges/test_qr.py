"""QR images (pixweb.qr): the PNG written from segno's matrix is segno's own PNG pixel for pixel and
decodes to the code; an image is drawn once, kept, and drawn once however many ask at the same time."""

from __future__ import annotations

import asyncio
import io
import threading
import uuid
from typing import Any

import pytest
import segno
import zxingcpp
from PIL import Image

from pixweb import qr

CODE = (
    "00020101021226930014br.gov.bcb.pix2571pix.example.com/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca25"
    "520400005303986540510.005802BR5913Fulano de Tal6008BRASILIA62070503***6304ABCD"
)


def fresh(text: str = CODE) -> str:
    """``text`` with a suffix of its own: an image no test has drawn (the store is the process's)."""
    return f"{text}{uuid.uuid4().hex}"


@pytest.fixture
def drawings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts segno is asked to encode."""
    drawn: list[str] = []
    make_qr = segno.make_qr

    def counting(text: str, **options: Any) -> segno.QRCode:
        drawn.append(text)
        return make_qr(text, **options)

    monkeypatch.setattr(segno, "make_qr", counting)
    return drawn


@pytest.mark.parametrize(("text", "scale"), [(CODE, 5), ("hi", 3), (CODE * 2, 1), ("x" * 7, 7)])
def test_the_png_is_segnos_pixel_for_pixel(text: str, scale: int) -> None:
    symbol = segno.make_qr(text, error="m", boost_error=False)
    theirs = io.BytesIO()
    symbol.save(theirs, kind="png", scale=scale, border=qr.BORDER)
    ours = Image.open(io.BytesIO(qr.encode_png(symbol.matrix, scale=scale)))
    reference = Image.open(theirs)
    assert (ours.mode, ours.size) == (reference.mode, reference.size) == ("1", reference.size)
    assert ours.tobytes() == reference.tobytes()


def test_the_image_decodes_to_the_code() -> None:
    code = fresh()
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(qr.png(code))))
    assert [barcode.text for barcode in found] == [code]


def test_an_image_is_drawn_once_and_kept(drawings: list[str]) -> None:
    code = fresh()
    first = qr.png(code)
    assert qr.png(code) is first
    assert qr.png(code, scale=2) is not first  # another scale is another image
    assert drawings == [code, code]


def test_the_oldest_image_goes_when_the_store_is_full(
    drawings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(qr, "CACHED", 2)
    a, b, c = fresh("a"), fresh("b"), fresh("c")
    qr.png(a)
    qr.png(b)
    qr.png(a)  # used again: b is now the oldest
    qr.png(c)
    qr.png(a)
    qr.png(b)
    assert drawings == [a, b, c, b]


async def test_requests_for_an_image_being_drawn_wait_for_that_drawing(
    drawings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    make_qr = segno.make_qr

    def slow(text: str, **options: Any) -> segno.QRCode:
        release.wait(5)
        return make_qr(text, **options)

    monkeypatch.setattr(segno, "make_qr", slow)
    code = fresh()
    qr.draw_soon(code)
    waiting = [asyncio.create_task(qr.png_off_loop(code)) for _ in range(3)]
    await asyncio.sleep(0.05)
    assert not any(task.done() for task in waiting)
    release.set()
    images = await asyncio.gather(*waiting)
    assert images[0] == images[1] == images[2] == qr.png(code)
    assert drawings == [code]
    qr.draw_soon(code)  # kept: nothing more is drawn
    assert await qr.png_off_loop(code) == images[0]
    assert drawings == [code]
