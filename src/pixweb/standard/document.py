"""The standard's face's own OpenAPI document, ``GET {PIX_STANDARD_PREFIX}/openapi.json``: the
central bank's document (v2.9.0, ``bcb-pix-api-openapi.json`` beside this module: its YAML as
published, in JSON; ``tests/unit/api/test_standard_document.py`` holds it to the YAML), with its
``servers`` pointing at this service: the API at ``{PIX_PUBLIC_URL}{prefix}``, the payloads
(``/{pixUrlAccessToken}``, ``/cobv/{pixUrlAccessToken}``) at ``{PIX_PUBLIC_URL}/qr/v2``."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from litestar import Response, get

from pixinfra.settings import Settings
from pixweb.api.deps import Injected

__all__ = ["DOCUMENT_PATH", "standard_document", "standard_document_handler"]

DOCUMENT_PATH = "/openapi.json"
PAYLOAD_PATHS = ("/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}")


@cache
def _published() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        (Path(__file__).parent / "bcb-pix-api-openapi.json").read_text(encoding="utf-8")
    )
    return document


def standard_document(public_url: str, prefix: str) -> dict[str, Any]:
    """The central bank's document, served by this service at ``public_url`` under ``prefix``."""
    document = copy.deepcopy(_published())
    document["servers"] = [{"url": public_url + prefix, "description": "This service"}]
    for path in PAYLOAD_PATHS:
        operation = document["paths"].get(path, {}).get("get")
        if operation is not None:
            operation["servers"] = [{"url": public_url + "/qr/v2", "description": "This service's payloads"}]
    return document


@get(DOCUMENT_PATH, operation_id="standardDocument", include_in_schema=False, sync_to_thread=False)
def standard_document_handler(settings: Injected[Settings]) -> Response[dict[str, Any]]:
    """The standard's document, as this service serves it (public, as ``/schema`` is)."""
    return Response(standard_document(settings.public_url, settings.standard_prefix))
