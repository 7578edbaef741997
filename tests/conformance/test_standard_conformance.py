"""Conformance with the central bank's standard Pix API: schemathesis generates
requests from the standard's own document (v2.9.0, patched only for its defects:
``bcb-pix-api-openapi.patched.yaml``, each patch marked ``# PATCH:``) and sends them, signed in, to
the service on a real database, for every operation it implements (``operations.IMPLEMENTED``).

- Positive data (valid by the standard's schemas, mixed with bodies the service accepts) succeeds:
  a 2xx, or a 4xx the standard documents for that operation; a 400 only for a rule no schema can
  say (the same list as the fuzz suite's, ``tests/fuzz/test_positive_data.py``).
- Negative data (broken by the standard's schemas) is a 4xx, never a 2xx or a 5xx.
- Every answer: a status the standard documents for the operation, its content type, and a body
  valid against the standard's schema for that status (``Problema`` for errors).

The service's deliberate deviations are forgiven one by one, each named in ``deviations.py`` and
docs/standard-api.md. Marked ``conformance`` (deselected by default; ``make conformance``,
``.ci/run``); ``PIX_FUZZ_EXAMPLES`` examples per operation and mode.
"""

from __future__ import annotations

import functools
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4
from schemathesis import Case, GenerationMode, Response
from schemathesis.core import NotSet
from schemathesis.schemas import BaseSchema

from tests.conformance.conftest import DOCUMENT, EXAMPLES
from tests.conformance.deviations import (
    CHARGES_REFUSED_ALONE,
    CHAVE_OPTIONAL,
    DUE_CHARGE_OPERATIONS,
    EMPTY_IS_ABSENT,
    NULL_IS_ABSENT,
    RECEIVER_ADDRESS,
    REFUSED_ON_PURPOSE,
    SCHEMA_DEVIATIONS,
    STATUS_DEVIATIONS,
)
from tests.conformance.operations import IMPLEMENTED, NOTHING_NEGATIVE
from tests.fuzz.checks import content_type
from tests.fuzz.service import Target
from tests.fuzz.test_positive_data import _unexplained

pytestmark = pytest.mark.conformance

URI = "urn:bcb-pix-api"
JSON_TYPES = {"application/json", "application/problem+json"}


@functools.cache
def _document() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    return document


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        found: Any = _document()
        for part in node["$ref"].removeprefix("#/").split("/"):
            found = found[part]
        node = found
    return node


def _documented(label: str) -> dict[str, dict[str, Any]]:
    """The standard's responses of an operation, by status: each its content by media type."""
    method, path = label.split(" ", 1)
    responses = _document()["paths"][path][method.lower()]["responses"]
    return {status: _resolve(response).get("content", {}) for status, response in responses.items()}


@functools.cache
def _registry() -> Registry[Any]:
    resource = Resource.from_contents(_document(), default_specification=DRAFT4)
    return Registry().with_resource(URI, resource)


@functools.cache
def _validator(pointer: str) -> jsonschema.Draft4Validator:
    return jsonschema.Draft4Validator({"$ref": f"{URI}{pointer}"}, registry=_registry())


TYPE = "https://pix.bcb.gov.br/api/v2/error/"
# The standard's description ("Tratamento de erros", "Gerais"): errors that any endpoint may answer,
# though an operation's `responses` do not list them all. 5xx are left out: never accepted here.
GENERAL = {
    400: "RequisicaoInvalida",
    403: "AcessoNegado",
    404: "NaoEncontrado",
    410: "PermanentementeRemovido",
}
PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problema"}}}


def _general(status: int, body: Any) -> bool:
    return status in GENERAL and isinstance(body, dict) and body.get("type") == TYPE + GENERAL[status]


def _status_deviation(label: str, status: int, body: Any) -> dict[str, Any] | None:
    """The content an answer of a deliberately different status must have, or None."""
    for deviation in STATUS_DEVIATIONS:
        if label not in deviation.operations or status != deviation.status or not isinstance(body, dict):
            continue
        if deviation.like is not None:
            return _documented(label)[deviation.like]
        if body.get("type") == deviation.problem_type:
            return PROBLEM
    return None


def check_conforms(label: str, response: Response) -> None:
    """The status is documented, the content type is the document's, the body its schema's."""
    status = response.status_code
    assert status < 500, f"{label}: {status} {response.content[:300]!r}"
    documented = _documented(label)
    media = content_type(response.headers)
    body: Any = json.loads(response.content) if media in JSON_TYPES and response.content else None
    deviating = None if str(status) in documented else _status_deviation(label, status, body)
    if str(status) not in documented and _general(status, body):
        content = PROBLEM  # answered as the standard's other errors are
    elif deviating is not None:
        content = deviating
    else:
        assert str(status) in documented or "default" in documented, (
            f"{label}: status {status} is not documented by the standard: {response.content[:300]!r}"
        )
        content = documented.get(str(status), documented.get("default", {}))
    if not content:
        return
    assert media in content, f"{label}: {status} answered {media!r}, the standard says {sorted(content)}"
    schema = content[media].get("schema")
    if schema is None:
        return
    pointer = schema.get("$ref")
    assert pointer is not None, f"{label}: an inline schema for {status} (not expected in this document)"
    broken = [
        f"{'.'.join(map(str, error.absolute_path)) or '(body)'}: {error.message[:200]}"
        for error in _validator(pointer).iter_errors(body)
        if not any(
            deviation.forgives(label, list(error.absolute_path), str(error.validator), error.instance)
            for deviation in SCHEMA_DEVIATIONS
        )
        and not _no_street_address(label, error)
    ]
    assert broken == [], f"{label}: {status} body breaks {pointer}: {broken}"


def _no_street_address(label: str, error: jsonschema.ValidationError) -> bool:
    """A cobv's ``recebedor`` without the street address the service does not keep (and only
    that: any other missing member, or one elsewhere, is still a failure)."""
    path = list(error.absolute_path)
    missing = error.message.split("'")[1] if error.message.count("'") >= 2 else ""
    return (
        label in DUE_CHARGE_OPERATIONS
        and error.validator == "required"
        and bool(path)
        and path[-1] == "recebedor"
        and missing in RECEIVER_ADDRESS
    )


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {name: _without_nulls(item) for name, item in value.items() if item is not None}
    return value


def _request_validator(label: str) -> jsonschema.Draft4Validator:
    method, path = label.split(" ", 1)
    body = _resolve(_document()["paths"][path][method.lower()]["requestBody"])
    return _validator(body["content"]["application/json"]["schema"]["$ref"])


def _body_valid(label: str, body: Any) -> bool:
    """The body, without its ``null`` fields, is valid by the standard's schema, but maybe for a
    ``chave`` left out (deviations.CHAVE_OPTIONAL)."""
    return all(
        label in CHAVE_OPTIONAL
        and error.validator == "required"
        and error.message == "'chave' is a required property"
        and not error.absolute_path
        for error in _request_validator(label).iter_errors(_without_nulls(body))
    )


def _no_nulls(value: Any) -> Any:
    """``value`` without the ``null`` members of its objects, in lists too."""
    if isinstance(value, dict):
        return {name: _no_nulls(item) for name, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_no_nulls(item) for item in value]
    return value


def _faults_only_in_refused_charges(label: str, body: Any, response: Response) -> bool:
    """``deviations.CHARGES_REFUSED_ALONE``: every fault of the batch's body is inside an item of
    ``cobsv`` whose charge the answer refused (its item carries a ``problema``)."""
    if label not in CHARGES_REFUSED_ALONE or not isinstance(body, dict) or response.status_code != 202:
        return False
    answered = {item["txid"]: item for item in json.loads(response.content).get("cobsv", [])}
    items = body.get("cobsv")
    for error in _request_validator(label).iter_errors(_no_nulls(body)):
        path = list(error.absolute_path)
        if len(path) < 2 or path[0] != "cobsv" or not isinstance(path[1], int) or not isinstance(items, list):
            return False
        item = items[path[1]]
        refused = answered.get(item.get("txid")) if isinstance(item, dict) else None
        if refused is None or "problema" not in refused:
            return False
    return True


def _as_query_text(value: Any) -> Any:
    """A query value as the schema would have it: ``true``/``false`` and integers are typed."""
    if isinstance(value, str):
        if value in {"true", "false"}:
            return value == "true"
        if value.isdigit():
            return int(value)
    return value


def _valid_after_all(label: str, case: Case, response: Response) -> bool:
    """Negative data that is valid after all: its only faults are query parameters the standard
    does not define (which no OpenAPI rule forbids; the service ignores them, as HTTP APIs do) or,
    on ``deviations.EMPTY_IS_ABSENT``, empty query values, or on ``deviations.NULL_IS_ABSENT``,
    ``null`` fields of the body."""
    method, path = label.split(" ", 1)
    if (
        not isinstance(case.body, NotSet)
        and not (label in NULL_IS_ABSENT and _body_valid(label, case.body))
        and not _faults_only_in_refused_charges(label, case.body, response)
    ):
        return False
    item = _document()["paths"][path]
    specs = [
        _resolve(spec) for spec in [*item.get("parameters", []), *item[method.lower()].get("parameters", [])]
    ]
    # The query as it went on the wire (a generated list or object is flattened by the client).
    sent = parse_qs(urlsplit(str(response.request.url)).query, keep_blank_values=True)
    if any(len(values) > 1 for name, values in sent.items() if name in {spec["name"] for spec in specs}):
        return False
    query = {name: values[0] for name, values in sent.items()}
    sent_values: dict[str, dict[str, Any]] = {"query": query, "path": case.path_parameters or {}}
    for spec in specs:
        value = sent_values.get(spec["in"], {}).get(spec["name"])
        if value is None or (value == "" and label in EMPTY_IS_ABSENT and spec["in"] == "query"):
            if spec.get("required") and (value is None or spec["in"] == "path"):
                return False
            continue
        schema = spec["schema"]
        typed = _resolve(schema).get("type", "string") != "string"
        wrapped = {"$ref": URI + schema["$ref"]} if "$ref" in schema else schema
        checked = _as_query_text(value) if typed else value
        if isinstance(value, list) or not jsonschema.Draft4Validator(wrapped, registry=_registry()).is_valid(
            checked
        ):
            return False
    return True


def _settings() -> settings:
    return settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


def _accepted(schema: BaseSchema, target: Target, label: str) -> st.SearchStrategy[Case]:
    """Cases the service accepts: generated from the standard's schemas, with the bodies and the
    path values of ``operations.IMPLEMENTED``."""
    method, path = label.split(" ", 1)
    operation, spec = schema[path][method], IMPLEMENTED[label]
    names = set(spec.known) | set(spec.fresh)
    paths = st.fixed_dictionaries(
        {name: st.sampled_from(target.known[key]) for name, key in spec.known.items()}
        | dict(spec.fresh.items())
    )
    bodies = spec.body(target) if spec.body else st.none()

    def build(drawn: tuple[dict[str, Any], Any]) -> st.SearchStrategy[Case]:
        parameters, body = drawn
        fixed: dict[str, Any] = {"path_parameters": parameters} if names else {}
        if body is not None:
            fixed["body"] = body
        return operation.as_strategy(GenerationMode.POSITIVE, auth_storage=schema.auth, **fixed)

    return st.tuples(paths, bodies).flatmap(build)


@pytest.mark.parametrize("label", list(IMPLEMENTED))
def test_positive_data_of_the_standard_is_served(
    standard_schema: BaseSchema, standard_target: Target, label: str
) -> None:
    method, path = label.split(" ", 1)
    operation = standard_schema[path][method]
    generated = operation.as_strategy(GenerationMode.POSITIVE, auth_storage=standard_schema.auth)
    statuses: list[int] = []

    @given(case=st.one_of(generated, _accepted(standard_schema, standard_target, label)))
    @_settings()
    def send(case: Case) -> None:
        response = case.call()
        statuses.append(response.status_code)
        check_conforms(label, response)
        if response.status_code == 400:
            problem = json.loads(response.content)
            unexplained = [
                detail
                for detail in _unexplained(problem)
                if not any(deviation.forgives(label, detail) for deviation in REFUSED_ON_PURPOSE)
            ]
            assert unexplained == [], (
                f"{label}: valid data refused: {unexplained} for {case.query} {case.body!r}"
            )

    send()
    assert any(200 <= status < 300 for status in statuses), f"{label}: no success in {statuses}"


@pytest.mark.parametrize("label", [label for label, spec in IMPLEMENTED.items() if spec.negative])
def test_negative_data_of_the_standard_is_refused(standard_schema: BaseSchema, label: str) -> None:
    method, path = label.split(" ", 1)
    operation = standard_schema[path][method]
    if label in NOTHING_NEGATIVE:
        spec = _document()["paths"][path]
        inputs = [
            _resolve(p) for p in [*spec.get("parameters", []), *spec[method.lower()].get("parameters", [])]
        ]
        assert "requestBody" not in spec[method.lower()]
        assert all(p["in"] == "path" and set(p["schema"]) <= {"type", "title"} for p in inputs), inputs
        return

    @given(case=operation.as_strategy(GenerationMode.NEGATIVE, auth_storage=standard_schema.auth))
    @_settings()
    def send(case: Case) -> None:
        response = case.call()
        if response.status_code < 300 and _valid_after_all(label, case, response):
            check_conforms(label, response)
            return
        assert 400 <= response.status_code < 500, (
            f"{label}: invalid data answered {response.status_code}: "
            f"{case.path_parameters} {case.query} {case.body!r} -> {response.content[:300]!r}"
        )
        check_conforms(label, response)

    send()
