"""Each defect of the central bank's document that the conformance suite fixes
(tests/conformance/defects.py) has a witness here: a concrete request or response that the document
as published judges wrongly, as schemathesis reads it, and the fixed document rightly. A witness is
judged three times: by the published document (wrong), by the fixed one without its defect's fix
(still wrong: each fix is needed) and by the fixed one (right)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
import schemathesis
from schemathesis.schemas import APIOperation, BaseSchema

from tests.conformance.defects import DEFECTS, QUERIES_WITH_ERRORS, Defect, apply
from tests.conformance.document import PUBLISHED, published
from tests.conformance.operations import document_operations

Document = dict[str, Any]
Judge = Callable[[BaseSchema, Document], bool]
"""Whether the document (loaded by schemathesis, and as data) judges the witness rightly."""


def _operation(schema: BaseSchema, label: str) -> APIOperation:
    method, path = label.split(" ", 1)
    operation: APIOperation = schema[path][method]
    return operation


def _body_valid(schema: BaseSchema, label: str, body: Any) -> bool:
    bodies = [item for item in _operation(schema, label).body if item.media_type == "application/json"]
    return bool(bodies[0].is_valid(body))


def _parameter_valid(schema: BaseSchema, label: str, location: str, name: str, value: Any) -> bool:
    operation = _operation(schema, label)
    parameters = operation.query if location == "query" else operation.path_parameters
    return bool(next(item for item in parameters if item.name == name).is_valid(value))


def _response_valid(schema: BaseSchema, label: str, status: int, media: str, body: Any) -> bool:
    """Documented for ``status`` with ``media``, and ``body`` valid by its schema, formats too."""
    documented = _operation(schema, label).responses.find_by_status_code(status)
    if documented is None:
        return False
    resolved = documented.get_schema(media)
    if resolved.schema is None or resolved.media_type != media:
        return False
    validator = documented.get_validator(resolved.media_type, resolved.schema, validate_formats=True)
    return validator is not None and bool(validator.is_valid(body))


def _example(document: Document, name: str) -> Any:
    return copy.deepcopy(document["components"]["examples"][name]["value"])


CHARGE = {"calendario": {"expiracao": 3600}, "valor": {"original": "10.00"}, "chave": "a@example.com"}
DUE = {
    "calendario": {"dataDeVencimento": "2080-12-31"},
    "devedor": {"cnpj": "12345678000195", "nome": "Empresa de Serviços SA"},
    "valor": {"original": "10.00"},
    "chave": "a@example.com",
}
PERIOD = {
    "inicio": "2020-04-01T00:00:00Z",
    "fim": "2020-04-01T23:59:59Z",
    "paginacao": {
        "paginaAtual": 0,
        "itensPorPagina": 100,
        "quantidadeDePaginas": 1,
        "quantidadeTotalDeItens": 0,
    },
}
PIX = {
    "endToEndId": "E12345678202009091221kkkkkkkkkkk",
    "txid": "abc123",  # a PIX paid through a static BR Code
    "valor": "110.00",
    "horario": "2020-09-09T20:15:00.358Z",
}
PROBLEM = "application/problem+json"


def _expiracao(schema: BaseSchema, document: Document) -> bool:
    example = document["components"]["schemas"]["CobExpiracao"]["properties"]["expiracao"]["example"]
    return _body_valid(schema, "PUT /cob/{txid}", {**CHARGE, "calendario": {"expiracao": example}})


def _valid_cpf(schema: BaseSchema, _document: Document) -> bool:
    return _parameter_valid(schema, "GET /cob", "query", "cpf", "12345678909")


def _txid_with_garbage(schema: BaseSchema, _document: Document) -> bool:
    return not _parameter_valid(schema, "PUT /cob/{txid}", "path", "txid", "!!" + "a" * 26)


def _short_txid(schema: BaseSchema, _document: Document) -> bool:
    return _response_valid(schema, "GET /pix/{e2eid}", 200, "application/json", PIX)


def _due_charge_answer(document: Document) -> Any:
    """The document's example of a due-date charge (``cobResponse4``), completed with the members
    its schema requires and the example leaves out (the examples are not held to the schemas)."""
    charge = _example(document, "cobResponse4")
    created = charge["calendario"]["criacao"]
    charge["loc"] |= {"txid": charge["txid"], "criacao": created}
    return charge | {"location": charge["loc"]["location"]}


def _listed_charge(schema: BaseSchema, document: Document) -> bool:
    listed = {"parametros": PERIOD, "cobs": [_due_charge_answer(document)]}
    return _response_valid(schema, "GET /cobv", 200, "application/json", listed)


def _pix_list(schema: BaseSchema, _document: Document) -> bool:
    return _response_valid(schema, "GET /pix", 200, "application/json", {"parametros": PERIOD, "pix": [PIX]})


def _due_charge(schema: BaseSchema, document: Document) -> bool:
    return _response_valid(schema, "GET /cobv/{txid}", 200, "application/json", _due_charge_answer(document))


def _webhook(schema: BaseSchema, document: Document) -> bool:
    example = _example(document, "webhookResponse1")
    return _response_valid(schema, "GET /webhook/{chave}", 200, "application/json", example)


def _withdrawal(schema: BaseSchema, _document: Document) -> bool:
    saque = {"valor": "5.00", "modalidadeAgente": "AGTEC", "prestadorDoServicoDeSaque": "12345678"}
    body = {**CHARGE, "valor": {"original": "0.00", "modalidadeAlteracao": 0, "retirada": {"saque": saque}}}
    return _body_valid(schema, "POST /cob", body)


def _percentage_discount(schema: BaseSchema, _document: Document) -> bool:
    valor = {**DUE["valor"], "desconto": {"modalidade": 3, "valorPerc": "1.00"}}
    return _body_valid(schema, "PUT /cobv/{txid}", {**DUE, "valor": valor})


def _rebate_of_any_type(schema: BaseSchema, _document: Document) -> bool:
    return not _body_valid(schema, "PUT /cobv/{txid}", {**DUE, "valor": {**DUE["valor"], "abatimento": True}})


def _location_by_id(schema: BaseSchema, _document: Document) -> bool:
    return _body_valid(schema, "PUT /cob/{txid}", {**CHARGE, "loc": {"id": 789}})


def _location_without_id(schema: BaseSchema, _document: Document) -> bool:
    return not _body_valid(schema, "PUT /cob/{txid}", {**CHARGE, "loc": {"tipoCob": "cob"}})


def _location_url(schema: BaseSchema, _document: Document) -> bool:
    made = {
        "id": 7,
        "location": "pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25",
        "tipoCob": "cob",
        "criacao": "2020-03-11T21:19:51.013Z",
    }
    return _response_valid(schema, "POST /loc", 201, "application/json", made)


def _query_errors(schema: BaseSchema, _document: Document) -> bool:
    """The error list's 400 of each query, for a parameter that breaks the schema."""
    problem = {"type": "https://pix.bcb.gov.br/api/v2/error/RequisicaoInvalida", "title": "x", "status": 400}
    return all(_response_valid(schema, label, 400, PROBLEM, problem) for label in QUERIES_WITH_ERRORS)


def _recurrence_location(schema: BaseSchema, document: Document) -> bool:
    made = _example(document, "payloadLocationRecResponse2")
    return _response_valid(schema, "POST /locrec", 201, "application/json", made)


def _recurrence(schema: BaseSchema, document: Document) -> bool:
    return _body_valid(schema, "POST /rec", _example(document, "recBody2"))


CREATED_RECURRENCE = {
    "idRec": "RN1234567820240115abcdefghijk",
    "vinculo": {"contrato": "63100862", "devedor": {"cpf": "45164632481", "nome": "Fulano de Tal"}},
    "calendario": {"dataInicial": "2024-04-01", "periodicidade": "MENSAL"},
    "recebedor": {"cnpj": "01602606113708", "nome": "Empresa de Serviços SA"},
    "status": "CRIADA",
    "politicaRetentativa": "NAO_PERMITE",
    "atualizacao": [{"status": "CRIADA", "data": "2023-12-19T12:28:05.230Z"}],
    "ativacao": {"tipoJornada": "AGUARDANDO_DEFINICAO"},
}


def _recurrence_created(schema: BaseSchema, _document: Document) -> bool:
    """A recurrence no payer has authorized yet, as GET /rec/{idRec} answers it."""
    return _response_valid(schema, "GET /rec/{idRec}", 200, "application/json", CREATED_RECURRENCE)


def _recurrence_cancelled(schema: BaseSchema, _document: Document) -> bool:
    cancelled = {
        **CREATED_RECURRENCE,
        "status": "CANCELADA",
        "encerramento": {
            "cancelamento": {
                "solicitante": "USUARIO_RECEBEDOR",
                "codigo": "SLCR",
                "descricao": "Cancelamento solicitado pelo usuário recebedor",
            }
        },
    }
    return _response_valid(schema, "GET /rec/{idRec}", 200, "application/json", cancelled)


def _authorization_request(schema: BaseSchema, document: Document) -> bool:
    return _body_valid(schema, "POST /solicrec", _example(document, "solicRecBody1"))


def _authorization_request_answer(schema: BaseSchema, document: Document) -> bool:
    answer = _example(document, "solicRecResponse1")
    del answer["recPayload"]  # optional, and its example is not held to its schema
    return _response_valid(schema, "GET /solicrec/{idSolicRec}", 200, "application/json", answer)


RECURRING_BODIES = ("POST /rec", "PATCH /rec/{idRec}", "POST /solicrec", "PATCH /solicrec/{idSolicRec}")


def _recurring_bodies(schema: BaseSchema, _document: Document) -> bool:
    """A request without a body is not valid data."""
    return all(_operation(schema, label).body[0].is_required for label in RECURRING_BODIES)


@dataclass(frozen=True)
class Witness:
    defect: str
    judged_rightly: Judge


def _fifty_one_items(schema: BaseSchema, _document: Document) -> bool:
    items = [{"nome": f"Item {index}", "valor": "x"} for index in range(51)]
    return not _body_valid(schema, "POST /cob", {**CHARGE, "infoAdicionais": items})


WITNESSES = (
    Witness("expiracao has a text default and example", _expiracao),
    Witness("patterns written between slashes", _valid_cpf),
    Witness("unanchored patterns", _txid_with_garbage),
    Witness("a txid of 1 to 35 characters cannot widen TxId", _short_txid),
    Witness("idCob is required and defined nowhere", _listed_charge),
    Witness("the PIX list requires cobs", _pix_list),
    Witness("the receiver's address is required of the charge", _due_charge),
    Witness("a webhook requires a cnpj", _webhook),
    Witness("the withdrawal oneOf matches every object twice", _withdrawal),
    Witness("the discount oneOf matches a percentage twice", _percentage_discount),
    Witness("objects without a type", _rebate_of_any_type),
    Witness("a charge's loc requires tipoCob", _location_by_id),
    Witness("a charge's loc.id is read-only", _location_without_id),
    Witness("locations are URIs without a scheme", _location_url),
    Witness("queries answer a 400 they do not document", _query_errors),
    Witness("a recurrence's location requires tipo", _recurrence_location),
    Witness("a recurrence requires idRec and retentativa", _recurrence),
    Witness("a recurrence requires its payer's ISPB beside the payer", _recurrence_created),
    Witness("the closing oneOf matches every object twice", _recurrence_cancelled),
    Witness("a request for authorization requires a pagador", _authorization_request),
    Witness("a request for authorization answers a rec", _authorization_request_answer),
    Witness("the bodies of recurrences and their requests are optional", _recurring_bodies),
    Witness("the extra items are bounded by maximum", _fifty_one_items),
)
BY_DEFECT = {witness.defect: witness for witness in WITNESSES}


@cache
def _loaded(left_out: str | None) -> tuple[BaseSchema, Document]:
    """The published document with every fix but ``left_out``'s (all of them for None, none for "*")."""
    defects = () if left_out == "*" else tuple(defect for defect in DEFECTS if defect.name != left_out)
    document = apply(published(), defects)
    return schemathesis.openapi.from_dict(copy.deepcopy(document)), document


def test_every_defect_has_one_witness_and_a_reason() -> None:
    assert sorted(BY_DEFECT) == sorted(defect.name for defect in DEFECTS)
    assert len(BY_DEFECT) == len(WITNESSES)
    assert all(len(defect.reason) > 40 and defect.patches for defect in DEFECTS)


@pytest.mark.parametrize("defect", DEFECTS, ids=lambda defect: defect.name)
def test_the_published_document_misjudges_the_witness_and_the_fixed_one_does_not(defect: Defect) -> None:
    judged_rightly = BY_DEFECT[defect.name].judged_rightly
    assert not judged_rightly(*_loaded("*")), "the published document judges it rightly: no defect"
    assert not judged_rightly(*_loaded(defect.name)), "judged rightly without this fix: it is not needed"
    assert judged_rightly(*_loaded(None)), "the fixed document still judges it wrongly"


@pytest.mark.parametrize("defect", DEFECTS, ids=lambda defect: defect.name)
def test_a_defect_names_operations_of_the_document(defect: Defect) -> None:
    labels = set(document_operations())
    assert defect.operations
    assert all(label in labels for label in defect.operations)


def test_the_recurring_rules_find_as_many_places_as_the_document_has() -> None:
    """A new version of the document changes these counts: read its defects again."""
    counts = {defect.name: len(defect.patches) for defect in DEFECTS}
    assert counts["patterns written between slashes"] == 14
    assert counts["unanchored patterns"] == 49
    assert counts["a txid of 1 to 35 characters cannot widen TxId"] == 4
    assert counts["locations are URIs without a scheme"] == 6


def test_the_document_is_the_published_one() -> None:
    assert published()["info"]["version"] == "2.9.0"
    assert PUBLISHED.name == "bcb-pix-api-openapi.yaml"
