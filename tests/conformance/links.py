"""The OpenAPI links of the stateful phase, which the central bank's document does not have.

Schemathesis chains operations through the ``links`` of a response (and infers some itself from
``Location`` headers and from names shared by responses and parameters). The harness adds these
to the copy it loads, never to the document: a charge created is read, revised and listed, a
refund asked is read, a location made is read and unlinked, a batch made is read and revised, a
webhook set is read and removed; a recurrence made is read and revised, a request for its
authorization read and cancelled, a recurrence's location read and unlinked, a recurring charge
read and cancelled, a webhook of Pix Automático set, read and removed. A payment is not an
operation of the standard (a PIX arrives through the SPI), so the suite pays nothing, and no payer
authorizes a recurrence.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

__all__ = ["LINKS", "Link", "with_links"]


@dataclass(frozen=True)
class Link:
    source: str
    """``METHOD /path`` whose answer gives the values."""
    status: str
    target: str
    """``METHOD /path`` that takes them."""
    parameters: tuple[tuple[str, str], ...]
    """Each parameter of the target and the runtime expression that gives it."""


def _same(source: str, status: str, targets: tuple[str, ...], **parameters: str) -> list[Link]:
    return [Link(source, status, target, tuple(parameters.items())) for target in targets]


CHARGE = ("GET /cob/{txid}", "PATCH /cob/{txid}")
DUE = ("GET /cobv/{txid}", "PATCH /cobv/{txid}")
RECURRENCE = ("GET /rec/{idRec}", "PATCH /rec/{idRec}")
REQUEST = ("GET /solicrec/{idSolicRec}", "PATCH /solicrec/{idSolicRec}")
RECURRING_CHARGE = ("GET /cobr/{txid}", "PATCH /cobr/{txid}")
LINKS: tuple[Link, ...] = (
    *_same("PUT /cob/{txid}", "201", CHARGE, txid="$response.body#/txid"),
    *_same("POST /cob", "201", CHARGE, txid="$response.body#/txid"),
    *_same("PATCH /cob/{txid}", "200", ("GET /cob/{txid}",), txid="$response.body#/txid"),
    *_same("PUT /cobv/{txid}", "201", DUE, txid="$response.body#/txid"),
    *_same("PATCH /cobv/{txid}", "200", ("GET /cobv/{txid}",), txid="$response.body#/txid"),
    *_same(
        "PUT /lotecobv/{id}", "202", ("GET /lotecobv/{id}", "PATCH /lotecobv/{id}"), id="$request.path.id"
    ),
    *_same(
        "PUT /pix/{e2eid}/devolucao/{id}",
        "201",
        ("GET /pix/{e2eid}/devolucao/{id}",),
        e2eid="$request.path.e2eid",
        id="$request.path.id",
    ),
    *_same("POST /loc", "201", ("GET /loc/{id}", "DELETE /loc/{id}/txid"), id="$response.body#/id"),
    *_same(
        "PUT /webhook/{chave}",
        "200",
        ("GET /webhook/{chave}", "DELETE /webhook/{chave}"),
        chave="$request.path.chave",
    ),
    *_same("POST /rec", "201", RECURRENCE, idRec="$response.body#/idRec"),
    *_same("PATCH /rec/{idRec}", "200", ("GET /rec/{idRec}",), idRec="$response.body#/idRec"),
    *_same("POST /solicrec", "201", REQUEST, idSolicRec="$response.body#/idSolicRec"),
    *_same("POST /locrec", "201", ("GET /locrec/{id}", "DELETE /locrec/{id}/idRec"), id="$response.body#/id"),
    *_same("PUT /cobr/{txid}", "201", RECURRING_CHARGE, txid="$response.body#/txid"),
    *_same("POST /cobr", "201", RECURRING_CHARGE, txid="$response.body#/txid"),
    *_same("PUT /webhookrec", "200", ("GET /webhookrec", "DELETE /webhookrec")),
    *_same("PUT /webhookcobr", "200", ("GET /webhookcobr", "DELETE /webhookcobr")),
)


def _escape(path: str) -> str:
    return path.replace("~", "~0").replace("/", "~1")


def _resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        found: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            found = found[part.replace("~1", "/").replace("~0", "~")]
        node = found
    return node


def with_links(document: dict[str, Any], links: tuple[Link, ...] = LINKS) -> dict[str, Any]:
    """``document`` with ``links`` in its responses (changed in place, and returned). A response
    shared through ``$ref`` is copied into its operation first, so a link stays on its own."""
    for link in links:
        method, path = link.source.split(" ", 1)
        responses = document["paths"][path][method.lower()]["responses"]
        response = responses[link.status]
        if "$ref" in response:
            response = responses[link.status] = copy.deepcopy(_resolve(document, response))
        target_method, target_path = link.target.split(" ", 1)
        name = f"{target_method.lower()}{target_path.replace('/', '_').replace('{', '').replace('}', '')}"
        response.setdefault("links", {})[name] = {
            "operationRef": f"#/paths/{_escape(target_path)}/{target_method.lower()}",
            "parameters": dict(link.parameters),
        }
    return document
