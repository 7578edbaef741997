"""The defects of the central bank's document itself, and the smallest fix of each: the only
changes the conformance suite makes to the document before schemathesis reads it.

A defect is a place where the document contradicts itself (its own examples, its own error list,
a ``required`` naming a field it defines nowhere) or says what no value can satisfy (a CPF pattern
written between slashes), so that it judges a concrete request or response wrongly. What the
service does is never a reason here: a difference of the service is a failure of the suite.
Each defect has a witness in ``tests/unit/codebase/test_standard_document_defects.py``: a request or
response the published document judges wrongly and the fixed one rightly, so a fix that is removed
(or no longer needed, in a new version of the document) fails there.

Each :class:`Patch` is a JSON pointer into the document and the value it gets (or its removal).
Defects that recur (a pattern written the same wrong way in 30 places) find their places by a rule
applied to the published document; the unit test checks how many places each rule finds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tests.conformance.document import published

__all__ = ["DEFECTS", "REMOVE", "Defect", "Patch", "apply", "fixed"]

REMOVE: Any = object()
"""The value of a :class:`Patch` that removes what its pointer names."""

Node = dict[str, Any]


@dataclass(frozen=True)
class Patch:
    pointer: str
    """An RFC 6901 JSON pointer into the document (``/components/schemas/TxId/pattern``)."""
    value: Any
    """What the pointer gets (replaced, or added under an existing parent), or :data:`REMOVE`."""


@dataclass(frozen=True)
class Defect:
    name: str
    operations: tuple[str, ...]
    """The implemented operations (``METHOD /path``) whose requests or responses it misjudges."""
    reason: str
    """Why this is a defect of the document, not a choice of it."""
    patches: tuple[Patch, ...]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _nodes(node: Any, pointer: str = "") -> Iterator[tuple[str, Node]]:
    """Every object of the document with its pointer, depth first."""
    if isinstance(node, dict):
        yield pointer, node
        for key, value in node.items():
            yield from _nodes(value, f"{pointer}/{_escape(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _nodes(value, f"{pointer}/{index}")


def _everywhere(change: Callable[[str, Node], Iterator[Patch]]) -> tuple[Patch, ...]:
    """The patches ``change`` makes of each object of the published document."""
    return tuple(patch for pointer, node in _nodes(published()) for patch in change(pointer, node))


def _slashed_patterns(pointer: str, node: Node) -> Iterator[Patch]:
    pattern = node.get("pattern")
    if isinstance(pattern, str) and len(pattern) > 2 and pattern.startswith("/") and pattern.endswith("/"):
        yield Patch(f"{pointer}/pattern", pattern[1:-1])


def _unanchored_patterns(pointer: str, node: Node) -> Iterator[Patch]:
    pattern = node.get("pattern")
    if isinstance(pattern, str) and not pattern.startswith(("^", "/")):
        yield Patch(f"{pointer}/pattern", f"^{pattern}$")


TXID = {"$ref": "#/components/schemas/TxId"}
SHORT_TXID = "[a-zA-Z0-9]{1,35}"


def _txid_widening(pointer: str, node: Node) -> Iterator[Patch]:
    branches = node.get("allOf")
    if branches == [TXID, {"pattern": SHORT_TXID}]:
        yield Patch(f"{pointer}/allOf/0", {"type": "string"})


def _schemeless_locations(pointer: str, node: Node) -> Iterator[Patch]:
    """A ``location`` (property or header) of ``format: uri`` whose own example has no scheme."""
    example = node.get("example")
    named = pointer.endswith(("/properties/location", "/headers/location/schema"))
    if named and node.get("format") == "uri" and isinstance(example, str) and "://" not in example:
        yield Patch(f"{pointer}/format", REMOVE)


PROBLEM_400 = {
    "description": "Requisição com formato inválido.",
    "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problema"}}},
}
QUERIES_WITH_ERRORS = (
    # The error list's `...ConsultaInvalida` (400) and the endpoints it names (those with parameters).
    "GET /cob",
    "GET /cob/{txid}",
    "GET /cobv",
    "GET /cobv/{txid}",
    "GET /lotecobv",
    "GET /loc",
    "GET /pix",
    "GET /webhook",
    "GET /rec",
    "GET /rec/{idRec}",
    "GET /cobr",
    "GET /cobr/{txid}",
    "GET /locrec",
    "GET /locrec/{id}",
)


def _response_pointer(label: str, status: str) -> str:
    method, path = label.split(" ", 1)
    return f"/paths/{_escape(path)}/{method.lower()}/responses/{status}"


SCHEMAS = "/components/schemas"
BODIES = "/components/requestBodies"
RECURRENCE_LOCATIONS = ("POST /locrec", "GET /locrec", "GET /locrec/{id}", "DELETE /locrec/{id}/idRec")
RECURRENCES = (
    "POST /rec",
    "GET /rec",
    "GET /rec/{idRec}",
    "PATCH /rec/{idRec}",
    "GET /rec/{recUrlAccessToken}",
)
REQUESTS = ("POST /solicrec", "GET /solicrec/{idSolicRec}", "PATCH /solicrec/{idSolicRec}")
CHARGE_WRITES = ("PUT /cob/{txid}", "POST /cob", "PATCH /cob/{txid}")
DUE_WRITES = ("PUT /cobv/{txid}", "PATCH /cobv/{txid}", "PUT /lotecobv/{id}", "PATCH /lotecobv/{id}")

DEFECTS: tuple[Defect, ...] = (
    Defect(
        "expiracao has a text default and example",
        CHARGE_WRITES,
        '`CobExpiracao.expiracao` is an integer, yet its default is the text "86400" and its example'
        ' "3600": the document\'s own example is invalid by its own schema (schemathesis sends it as'
        " a valid request).",
        (
            Patch(f"{SCHEMAS}/CobExpiracao/properties/expiracao/default", 86400),
            Patch(f"{SCHEMAS}/CobExpiracao/properties/expiracao/example", 3600),
        ),
    ),
    Defect(
        "patterns written between slashes",
        ("GET /cob", "GET /cobv", "GET /pix", "PUT /cob/{txid}", "PUT /cobv/{txid}", "GET /cobv/{txid}"),
        'The CPF (and IBGE city code) patterns are JavaScript regex literals ("/^\\d{11}$/"): JSON'
        " Schema takes the slashes as characters, so no CPF matches and every debtor who is a person is"
        " refused.",
        _everywhere(_slashed_patterns),
    ),
    Defect(
        "unanchored patterns",
        ("PUT /cob/{txid}", "PUT /cobv/{txid}", "GET /pix/{e2eid}", "PUT /pix/{e2eid}/devolucao/{id}"),
        'JSON Schema searches a pattern anywhere in the text: unanchored, "[a-zA-Z0-9]{26,35}" takes'
        ' "!!" followed by 26 letters as a txid and "\\d{1,10}\\.\\d{2}" takes "x1.00y" as an amount;'
        " the fields' descriptions (and the document's anchored patterns elsewhere) mean the whole value.",
        _everywhere(_unanchored_patterns),
    ),
    Defect(
        "a txid of 1 to 35 characters cannot widen TxId",
        ("GET /pix", "GET /pix/{e2eid}"),
        "A PIX's `txid` (and the `txid` filter of GET /pix) is `allOf` TxId (26 to 35 characters) and a"
        " 1-to-35 pattern: an `allOf` can only narrow, so the pattern, meant for a PIX paid through a"
        " static BR Code (a txid of up to 25 characters), is dead and such a PIX is refused.",
        _everywhere(_txid_widening),
    ),
    Defect(
        "idCob is required and defined nowhere",
        ("GET /cob", "GET /cobv"),
        "The items of `CobsConsultadas` and `CobsVConsultadas` require `status`, `txid` and `idCob`;"
        " no schema of the document defines an `idCob`, so no listed charge can be valid.",
        tuple(
            Patch(f"{SCHEMAS}/{name}/properties/cobs/items/allOf/1/required", ["status", "txid"])
            for name in ("CobsConsultadas", "CobsVConsultadas")
        ),
    ),
    Defect(
        "the PIX list requires cobs",
        ("GET /pix",),
        "`PixConsultados` requires `cobs`, which it does not define: its list is `pix`.",
        (Patch(f"{SCHEMAS}/PixConsultados/required", ["parametros", "pix"]),),
    ),
    Defect(
        "the receiver's address is required of the charge",
        ("PUT /cobv/{txid}", "PATCH /cobv/{txid}", "GET /cobv/{txid}", "GET /cobv"),
        "`DadosRecebedor` requires `logradouro`, `cidade`, `uf` and `cep` at its own level, beside"
        " `recebedor`, whose own `allOf` requires them: the whole due-date charge would need a street"
        " address, which no charge has.",
        (Patch(f"{SCHEMAS}/DadosRecebedor/required", REMOVE),),
    ),
    Defect(
        "a webhook requires a cnpj",
        ("PUT /webhook/{chave}", "GET /webhook/{chave}", "GET /webhook"),
        '`WebhookCompleto` requires a `cnpj` described as "Filtro pelo CNPJ do devedor" (a query\'s'
        " filter, copied): a webhook has none, and the document's own example `webhookResponse1` has"
        " none either.",
        (Patch(f"{SCHEMAS}/WebhookCompleto/required", ["webhookUrl", "criacao"]),),
    ),
    Defect(
        "the withdrawal oneOf matches every object twice",
        CHARGE_WRITES,
        "`retirada` is `oneOf` a `saque` branch and a `troco` branch, neither requiring its member:"
        ' every object matches both, so `oneOf` refuses every withdrawal, `{"saque": {...}}` too.',
        tuple(
            Patch(f"{SCHEMAS}/{name}/properties/retirada/oneOf/{index}/required", [member])
            for name in ("CobValor", "CobPayloadValor")
            for index, member in enumerate(("saque", "troco"))
        ),
    ),
    Defect(
        "the discount oneOf matches a percentage twice",
        DUE_WRITES,
        "`desconto` is `oneOf` a fixed-dates branch that requires nothing and a percentage branch that"
        " requires `valorPerc`: a percentage discount matches both, so `oneOf` refuses it. The"
        " description's error list (`CobVOperacaoInvalida`) says what tells them apart: modalities 1"
        " and 2 carry `descontoDataFixa` and no `valorPerc`, 3 to 6 `valorPerc` and no dates.",
        (
            Patch(
                f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/0/required",
                ["modalidade", "descontoDataFixa"],
            ),
            Patch(f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/0/not", {"required": ["valorPerc"]}),
            Patch(f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/0/properties/modalidade", {"enum": [1, 2]}),
            Patch(f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/1/required", ["modalidade", "valorPerc"]),
            Patch(f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/1/not", {"required": ["descontoDataFixa"]}),
            Patch(
                f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/1/properties/modalidade",
                {"enum": [3, 4, 5, 6]},
            ),
        ),
    ),
    Defect(
        "objects without a type",
        DUE_WRITES,
        "`abatimento`, the items of `descontoDataFixa` and the bodies of PUT and PATCH /lotecobv/{id}"
        ' describe an object\'s properties but leave `type` out (their siblings say "object"): `true`,'
        " `null` or `7` pass for them.",
        (
            Patch(f"{SCHEMAS}/CobVValor/properties/abatimento/type", "object"),
            Patch(
                f"{SCHEMAS}/CobVValor/properties/desconto/oneOf/0/properties/descontoDataFixa/items/type",
                "object",
            ),
            *(
                Patch(f"/components/requestBodies/{body}/content/application~1json/schema/type", "object")
                for body in ("LoteCobVBody", "LoteCobVBodyRevisado")
            ),
        ),
    ),
    Defect(
        "a charge's loc requires tipoCob",
        CHARGE_WRITES,
        "`PayloadLocationCob` (a charge's `loc` in a request) requires `id` and `tipoCob`, and defines"
        " only `id`: the document's own examples (`loc: {id: 789}`) are refused.",
        (Patch(f"{SCHEMAS}/PayloadLocationCob/required", ["id"]),),
    ),
    Defect(
        "a charge's loc.id is read-only",
        CHARGE_WRITES,
        "`PayloadLocationCob.id` is `PayloadLocationId`, which is `readOnly`: a request could not carry"
        ' the id that names the location it describes ("Identificador da location a ser informada na'
        ' criação da cobrança"), so a `loc` without any id passes.',
        (
            Patch(
                f"{SCHEMAS}/PayloadLocationCob/properties/id",
                {"type": "integer", "format": "int64", "title": "Id da location"},
            ),
        ),
    ),
    Defect(
        "locations are URIs without a scheme",
        ("PUT /cob/{txid}", "POST /cob", "PUT /cobv/{txid}", "POST /loc", "GET /loc", "GET /loc/{id}"),
        "A `location` is `format: uri`, yet it is a URL without its scheme (the BR Code's rule; every"
        ' example of the document: "pix.example.com/qr/v2/..."), which is no URI (RFC 3986 needs a'
        " scheme): every location is refused once formats are checked.",
        _everywhere(_schemeless_locations),
    ),
    Defect(
        "queries answer a 400 they do not document",
        QUERIES_WITH_ERRORS,
        "The description's error list gives these operations a 400 (`CobConsultaInvalida`,"
        " `CobVConsultaInvalida`, `LoteCobVConsultaInvalida`, `PayloadLocationConsultaInvalida`,"
        " `PixConsultaInvalida`, `WebhookConsultaInvalida`) for parameters that break the schema, but"
        " their `responses` leave it out.",
        tuple(Patch(_response_pointer(label, "400"), PROBLEM_400) for label in QUERIES_WITH_ERRORS),
    ),
    Defect(
        "a recurrence's location requires tipo",
        RECURRENCE_LOCATIONS,
        "`PayloadLocationRecGerada` (and `PayloadLocationRecCompleta`, its `allOf`) requires `id`,"
        " `location`, `tipo` and `criacao`, and defines no `tipo`: the document's own examples"
        " (`payloadLocationRecResponse1`, `...2`) have none and are refused.",
        (Patch(f"{SCHEMAS}/PayloadLocationRecGerada/required", ["id", "location", "criacao"]),),
    ),
    Defect(
        "a recurrence requires idRec and retentativa",
        RECURRENCES,
        "`RecBase` requires `idRec` and `retentativa`: `retentativa` is defined nowhere (the policy is"
        " `politicaRetentativa`) and `idRec` is the PSP's, defined beside `RecBase` only in the answers;"
        " the document's own requests (`recBody1`, `recBody2`) have neither and are refused. The answers"
        " that define `idRec` (`RecGerada`, `RecCompleta`) require it instead.",
        (
            Patch(f"{SCHEMAS}/RecBase/required", ["calendario", "vinculo"]),
            Patch(f"{SCHEMAS}/RecGerada/required", ["idRec", "recebedor"]),
            Patch(f"{SCHEMAS}/RecCompleta/required", ["idRec", "status", "recebedor"]),
        ),
    ),
    Defect(
        "a recurrence requires its payer's ISPB beside the payer",
        ("GET /rec", "GET /rec/{idRec}"),
        "`DadosPagadorRec` requires `ispbParticipante` at its own level, beside `pagador`, whose own"
        " `allOf` defines it: a recurrence would need an ISPB no schema of it defines (none of the"
        " document's examples has one), and a recurrence no payer has authorized yet has no payer.",
        (
            Patch(f"{SCHEMAS}/DadosPagadorRec/required", REMOVE),
            Patch(f"{SCHEMAS}/DadosPagadorRec/properties/pagador/allOf/0/required", ["ispbParticipante"]),
        ),
    ),
    Defect(
        "the closing oneOf matches every object twice",
        ("GET /rec", "GET /rec/{idRec}", "PATCH /rec/{idRec}"),
        "A recurrence's `encerramento` is `oneOf` a `rejeicao` branch and a `cancelamento` branch,"
        " neither requiring its member: every object matches both, so `oneOf` refuses every closed"
        " recurrence's answer.",
        tuple(
            Patch(f"{SCHEMAS}/RecEncerramento/properties/encerramento/oneOf/{index}/required", [member])
            for index, member in enumerate(("rejeicao", "cancelamento"))
        ),
    ),
    Defect(
        "a request for authorization requires a pagador",
        REQUESTS,
        "`SolicRecBase` requires `pagador`, which it does not define (its payer is `destinatario`):"
        " the document's own request `solicRecBody1` has none and is refused.",
        (Patch(f"{SCHEMAS}/SolicRecBase/required", ["calendario", "idRec", "destinatario"]),),
    ),
    Defect(
        "a request for authorization answers a rec",
        REQUESTS,
        "`SolicRecCompleta` requires `rec`, which it does not define (the recurrence is `recPayload`):"
        " the document's own answers (`solicRecResponse1`...) have none and are refused.",
        (Patch(f"{SCHEMAS}/SolicRecCompleta/required", REMOVE),),
    ),
    Defect(
        "the extra items are bounded by maximum",
        CHARGE_WRITES + DUE_WRITES,
        "`CobBase.infoAdicionais` is an array with `maximum: 50`: `maximum` bounds numbers and is"
        " ignored on an array, so a list of any length passes; the bound meant is `maxItems` (the"
        " BR Code and the payload show each item to the payer).",
        (
            Patch(f"{SCHEMAS}/CobBase/properties/infoAdicionais/maximum", REMOVE),
            Patch(f"{SCHEMAS}/CobBase/properties/infoAdicionais/maxItems", 50),
        ),
    ),
    Defect(
        "the bodies of recurrences and their requests are optional",
        ("POST /rec", "PATCH /rec/{idRec}", "POST /solicrec", "PATCH /solicrec/{idSolicRec}"),
        "Every request body of the document is `required: true` but `RecBody`, `RecBodyRevisada`,"
        " `SolicRecBody` and `SolicRecBodyRevisada`, whose schemas require members (`vinculo`,"
        " `status`...): a request without a body, which no operation can act on, passes as valid.",
        tuple(
            Patch(f"{BODIES}/{body}/required", value=True)
            for body in ("RecBody", "RecBodyRevisada", "SolicRecBody", "SolicRecBodyRevisada")
        ),
    ),
)


def _apply_patch(document: Node, patch: Patch) -> None:
    *parents, last = [_unescape(part) for part in patch.pointer.split("/")[1:]]
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key = int(last) if isinstance(node, list) else last
    if patch.value is REMOVE:
        del node[key]
    else:
        node[key] = copy.deepcopy(patch.value)


def apply(document: Node, defects: tuple[Defect, ...] = DEFECTS) -> Node:
    """``document`` with the fixes of ``defects`` (changed in place, and returned)."""
    for defect in defects:
        for patch in defect.patches:
            _apply_patch(document, patch)
    return document


def fixed(defects: tuple[Defect, ...] = DEFECTS) -> Node:
    """The published document with the fixes of ``defects``: what the suite loads."""
    return apply(published(), defects)
