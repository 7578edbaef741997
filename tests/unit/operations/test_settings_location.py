"""The payload URL prefix BR Codes carry, derived from PIX_PUBLIC_URL."""

from __future__ import annotations

import pytest

from pixinfra.settings import Settings


@pytest.mark.parametrize(
    ("public_url", "prefix"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000/qr/v2/"),
        ("https://pix.example.com", "pix.example.com/qr/v2/"),
        ("https://pix.example.com/base/", "pix.example.com/base/qr/v2/"),
    ],
)
def test_the_prefix_drops_the_scheme(public_url: str, prefix: str) -> None:
    assert Settings(public_url=public_url).location_prefix == prefix


def test_a_url_too_long_for_a_br_code_is_refused() -> None:
    host = "h" * 34  # 34 + len("/qr/v2/") + len("cobv/") + 32 = 78 > 77 (a cobv's location)
    with pytest.raises(ValueError, match="77"):
        _ = Settings(public_url=f"https://{host}").location_prefix
    assert len(Settings(public_url=f"https://{host[:-1]}").location_prefix) + len("cobv/") + 32 == 77
