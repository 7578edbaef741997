"""The standard's error type of each of its operations, as its document's error list gives them
(the description's "Tratamento de erros"): ``XOperacaoInvalida`` for a write's 400,
``XConsultaInvalida`` for a read's, ``XNaoEncontrado`` for a 404. A status or operation not listed
has the general type of the status (``pixweb.problems.GENERIC``)."""

from __future__ import annotations

import re
from typing import Any

from litestar.types import Scope

__all__ = ["ERROR_TYPES", "PAYLOAD_TYPES", "error_types"]


def _types(invalid: str, missing: str | None = None) -> dict[int, str]:
    return {400: invalid} | ({404: missing} if missing else {})


ERROR_TYPES: dict[str, dict[int, str]] = {
    "PUT /cob/{txid}": _types("CobOperacaoInvalida"),
    "PATCH /cob/{txid}": _types("CobOperacaoInvalida", "CobNaoEncontrado"),
    "GET /cob/{txid}": _types("CobConsultaInvalida", "CobNaoEncontrado"),
    "POST /cob": _types("CobOperacaoInvalida"),
    "GET /cob": _types("CobConsultaInvalida"),
    "PUT /cobv/{txid}": _types("CobVOperacaoInvalida"),
    "PATCH /cobv/{txid}": _types("CobVOperacaoInvalida", "CobVNaoEncontrada"),
    "GET /cobv/{txid}": _types("CobVConsultaInvalida", "CobVNaoEncontrada"),
    "GET /cobv": _types("CobVConsultaInvalida"),
    "PUT /lotecobv/{id}": _types("LoteCobVOperacaoInvalida"),
    "PATCH /lotecobv/{id}": _types("LoteCobVOperacaoInvalida", "LoteCobVNaoEncontrado"),
    "GET /lotecobv/{id}": _types("LoteCobVConsultaInvalida", "LoteCobVNaoEncontrado"),
    "GET /lotecobv": _types("LoteCobVConsultaInvalida"),
    "POST /loc": _types("PayloadLocationOperacaoInvalida"),
    "GET /loc": _types("PayloadLocationConsultaInvalida"),
    "GET /loc/{id}": _types("PayloadLocationConsultaInvalida", "PayloadLocationNaoEncontrado"),
    "DELETE /loc/{id}/txid": _types("PayloadLocationOperacaoInvalida", "PayloadLocationNaoEncontrado"),
    "GET /pix": _types("PixConsultaInvalida"),
    "GET /pix/{e2eid}": _types("PixConsultaInvalida", "PixNaoEncontrado"),
    "PUT /pix/{e2eid}/devolucao/{id}": _types("PixDevolucaoInvalida", "PixNaoEncontrado"),
    "GET /pix/{e2eid}/devolucao/{id}": _types("PixConsultaInvalida", "PixDevolucaoNaoEncontrada"),
    "PUT /webhook/{chave}": _types("WebhookOperacaoInvalida"),
    "GET /webhook/{chave}": _types("WebhookConsultaInvalida", "WebhookNaoEncontrado"),
    "DELETE /webhook/{chave}": _types("WebhookOperacaoInvalida", "WebhookNaoEncontrado"),
    "GET /webhook": _types("WebhookConsultaInvalida"),
    "POST /rec": _types("RecOperacaoInvalida"),
    "GET /rec": _types("RecConsultaInvalida"),
    "GET /rec/{idRec}": _types("RecConsultaInvalida", "RecNaoEncontrada"),
    "PATCH /rec/{idRec}": _types("RecOperacaoInvalida", "RecNaoEncontrada"),
    "POST /solicrec": _types("SolicRecOperacaoInvalida"),
    "GET /solicrec/{idSolicRec}": _types("RequisicaoInvalida", "SolicRecNaoEncontrada"),
    "PATCH /solicrec/{idSolicRec}": _types("SolicRecOperacaoInvalida", "SolicRecNaoEncontrada"),
    "POST /cobr": _types("CobROperacaoInvalida"),
    "GET /cobr": _types("CobRConsultaInvalida"),
    "PUT /cobr/{txid}": _types("CobROperacaoInvalida"),
    "GET /cobr/{txid}": _types("CobRConsultaInvalida", "CobRNaoEncontrado"),
    "PATCH /cobr/{txid}": _types("CobROperacaoInvalida", "CobRNaoEncontrado"),
    "POST /cobr/{txid}/retentativa/{data}": _types("CobROperacaoInvalida", "CobRNaoEncontrado"),
    "POST /locrec": _types("RequisicaoInvalida"),
    "GET /locrec": _types("PayloadLocationRecConsultaInvalida"),
    "GET /locrec/{id}": _types("PayloadLocationRecConsultaInvalida", "PayloadLocationRecNaoEncontrado"),
    "DELETE /locrec/{id}/idRec": _types("RequisicaoInvalida", "PayloadLocationRecNaoEncontrado"),
    "PUT /webhookrec": _types("WebhookRecOperacaoInvalida"),
    "GET /webhookrec": _types("WebhookRecConsultaInvalida"),
    "PUT /webhookcobr": _types("WebhookCobROperacaoInvalida"),
    "GET /webhookcobr": _types("WebhookCobRConsultaInvalida"),
}
"""By the operation as the document names it (``METHOD /path``, its parameters' names)."""
PAYLOAD_TYPES: dict[str, dict[int, str]] = {
    "GET /{pixUrlAccessToken}": _types("CobPayloadOperacaoInvalida", "CobPayloadNaoEncontrado"),
    "GET /cobv/{pixUrlAccessToken}": _types("CobPayloadOperacaoInvalida", "CobPayloadNaoEncontrado"),
    "GET /rec/{recUrlAccessToken}": _types("RecPayloadOperacaoInvalida", "RecPayloadNaoEncontrado"),
}
"""The payloads' (served at :data:`PAYLOADS`, apart from the API: ``GET /rec/{recUrlAccessToken}``
has the shape of ``GET /rec/{idRec}``)."""

PAYLOADS = "/qr/v2"
"""Where the payloads are served (the document's ``{endpointOpcional}`` of their server): the
payer's PSP reads them at the location a BR Code carries, on either face."""
_PARAMETER = re.compile(r"\{[^}]*\}")


def _shapes(table: dict[str, dict[int, str]]) -> dict[str, dict[int, str]]:
    return {_PARAMETER.sub("{}", operation): types for operation, types in table.items()}


_BY_SHAPE = _shapes(ERROR_TYPES)
"""The same, by the operation's shape: its parameters unnamed (ours may name them otherwise)."""
_PAYLOADS_BY_SHAPE = _shapes(PAYLOAD_TYPES)


def _is_payload(scope: Scope | Any) -> bool:
    return str(scope.get("path_template") or "").startswith(PAYLOADS + "/")


def operation_of(scope: Scope | Any, prefix: str) -> str:
    """``METHOD /path`` of the route a request matched, under ``prefix`` (or the payloads'
    :data:`PAYLOADS`), its parameters unnamed (``PUT /pix/{}/devolucao/{}``)."""
    template = str(scope.get("path_template") or "")
    template = template.removeprefix(PAYLOADS if _is_payload(scope) else prefix)
    template = template.rstrip("/") or "/"
    return f"{scope.get('method', 'GET')} {_PARAMETER.sub('{}', template)}"


def error_types(scope: Scope | Any, prefix: str) -> dict[int, str] | None:
    """The standard's error types of the operation a request on its face matched, if it has any."""
    table = _PAYLOADS_BY_SHAPE if _is_payload(scope) else _BY_SHAPE
    return table.get(operation_of(scope, prefix))
