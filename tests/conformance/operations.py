"""Which operations of the central bank's document the suite sends requests to, in one place.

Every operation of the document is served and run: those of the standard's face under
``PIX_STANDARD_PREFIX``, and the payloads a payer's PSP reads (:data:`PAYLOADS`) where a location
points, which the document gives servers of their own.
"""

from __future__ import annotations

import re

from tests.conformance.document import published

__all__ = ["PAYLOADS", "PAYLOADS_ONLY", "STANDARD_FACE_EXCLUDED", "document_operations"]

HTTP_METHODS = ("get", "put", "post", "patch", "delete")

PAYLOADS = ("/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}")
"""The payloads (JWS) a payer's PSP reads at a location: this service serves them under ``/qr/v2``,
the document under servers of their own (``https://{fdqnPSPRecebedor}/...``)."""


def document_operations() -> list[str]:
    """``METHOD /path`` of every operation of the document."""
    return [
        f"{method.upper()} {path}"
        for path, item in published()["paths"].items()
        for method in HTTP_METHODS
        if method in item
    ]


def _exact(paths: tuple[str, ...]) -> str:
    return "|".join(f"^{re.escape(path)}$" for path in paths)


STANDARD_FACE_EXCLUDED = _exact(PAYLOADS)
"""A path regex of what the run against the standard's face leaves out: the payloads."""
PAYLOADS_ONLY = _exact(PAYLOADS)
"""A path regex of the payloads, which a run of their own sends where the locations point."""
