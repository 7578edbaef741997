"""The served document types each value one way, as generators read it.

* Money: every JSON number of the document is money (hundredths: ``multipleOf: 0.01``,
  ``format: decimal``), and every money string is the seed's ``"123.45"`` (its pattern).
* Ids and every other member: one property name, one JSON type, in every request, answer, path
  parameter and webhook body; the exceptions are listed below with their reason (names that stand
  for different things, and the forms the seed fixes).
* Required members: an answer's schema requires every member the service always sends (its struct
  says which), a request's every member the rules require (its description says "Required").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from pixinfra.settings import Settings
from pixweb.app import create_app

HTTP_METHODS = ("get", "put", "post", "patch", "delete")
MONEY_PATTERN = r"^(?:[0-9]{1,10}\.[0-9]{2})$"

# Money strings: the places the seed (or the standard, for the due-date charges) writes "123.45".
MONEY_STRINGS = {
    "CobPixOut": {"valor"},
    "DescontoDataIn": {"valorPerc"},
    "DescontoDataOut": {"valorPerc"},
    "DescontoIn": {"valorPerc"},
    "DescontoOut": {"valorPerc"},
    "NotifiedPix": {"valor"},
    "Payment": {"amount"},
    "RateIn": {"valorPerc"},
    "RateOut": {"valorPerc"},
    "RefundIn": {"valor"},
    "RefundOut": {"valor"},
    "StatusRecordOut": {"originalAmount", "feeAmount", "finalAmount"},
    "ValorIn": {"original"},
    "ValorOut": {"original"},
    "ValorPatchIn": {"original"},
    "ValorVIn": {"original"},
    "ValorVOut": {"original"},
    "ValorVPatchIn": {"original"},
}
# Money numbers: the seed's JSON numbers (balances, transfer, cash-in and MED amounts, a refund
# item of a notification).
MONEY_NUMBERS = {
    "BalanceAmount": {"available", "blocked", "overdraft"},
    "CashInTransactionIn": {"value"},
    "MedOut": {"amount", "blocked"},
    "PayerBalanceIn": {"balance"},
    "PayerBalanceOut": {"balance"},
    "RefundPayment": {"amount"},
    "ReturnIn": {"amount"},
    "SandboxPaymentIn": {"amount"},
    "StandardBalance": {"grossBalance", "blockedBalance", "netBalance"},
    "TransactionOut": {"originalAmount", "feeAmount", "finalAmount"},
    "TransferPaymentIn": {"amount"},
    "TransferPaymentOut": {"amount"},
}

HOMONYMS = {
    "data": "an envelope's body, a list of items, or a discount's date",
    "headers": "the registration's list of {key, value} (seed's request) or its map (seed's answer)",
    "horario": "a refund's times (an object) or a PIX's instant",
    "loc": "a charge's location (an object) or the list of locations",
    "original": "a charge's original amount (text) or that part of a received PIX (an object)",
    "status": "a status code (problem+json, an integer) or the status of a resource (text)",
    "valor": "a charge's amount (an object), the amount of a refund or a PIX, or an item's text",
    "value": "the cash-in amount (a number) or a custom header's text",
}
"""Property names that stand for different things in different structs (no id, no money)."""

SEED_FIXED = {
    ("id", "RefundOut"): "the refund's id, chosen by the client (1 to 35 characters, seed)",
    ("id", "StatusRecordOut"): "the transaction's id as text (seed: `GET /api/pix/transaction/{id}`)",
    ("id", "GET /api/pix/transaction/{id}"): "a transaction's numeric id or its externalId (seed)",
    ("amount", "Payment"): "a notification's amount is a string (seed); its refund items' a number",
    ("originalAmount", "StatusRecordOut"): "strings in the status record, numbers in a list (seed)",
    ("feeAmount", "StatusRecordOut"): "as originalAmount (seed)",
    ("finalAmount", "StatusRecordOut"): "as originalAmount (seed)",
}
"""Places where the seed fixes another JSON type than the name has everywhere else."""

ID_CONCEPTS = {
    "transaction": [
        ("TransferOut", "id"),
        ("TransferData", "id"),
        ("ReceiveData", "id"),
        ("RefundData", "id"),
    ],
    "transaction as text (seed)": [
        ("TransactionOut", "transactionId"),
        ("CashInOut", "transactionId"),
        ("StatusRecordOut", "id"),
        ("GET /api/pix/transaction/{id}", "id"),
    ],
    "webhook registration": [
        ("WebhookOut", "id"),
        ("RegisteredOut", "id"),
        ("DeliveryOut", "webhookId"),
        ("DeliveryDetailOut", "webhookId"),
        ("PingData", "webhookId"),
        ("DELETE /api/webhooks/{webhook_id}", "webhook_id"),
        ("POST /api/webhooks/{webhook_id}/test", "webhook_id"),
        ("GET /api/webhooks/deliveries", "webhookId"),
    ],
    "delivery": [
        ("DeliveryOut", "id"),
        ("DeliveryDetailOut", "id"),
        ("GET /api/webhooks/deliveries/{delivery_id}", "delivery_id"),
        ("POST /api/webhooks/deliveries/{delivery_id}/replay", "delivery_id"),
    ],
    "MED case": [
        ("MedOut", "id"),
        ("MedData", "id"),
        ("POST /sandbox/med/{case_id}/accept", "case_id"),
        ("POST /sandbox/med/{case_id}/reject", "case_id"),
    ],
    "location": [
        ("LocIn", "id"),
        ("LocOut", "id"),
        ("LocationOut", "id"),
        ("GET /loc/{location_id}", "location_id"),
        ("DELETE /loc/{location_id}/txid", "location_id"),
    ],
    "batch of due-date charges": [
        ("LoteOut", "id"),
        ("PUT /lotecobv/{batch_id}", "batch_id"),
        ("GET /cobv", "loteCobVId"),
    ],
    "account": [("WebhookList", "accountId"), ("DeliveryList", "accountId")],
    "end-to-end id": [
        ("TransferOut", "endToEndId"),
        ("TransactionOut", "endToEndId"),
        ("StatusRecordOut", "e2eId"),
        ("GET /pix/{e2eid}", "e2eid"),
        ("TransferData", "endToEndId"),
    ],
}
"""Each id and the places it appears under its own name or another (a path parameter's)."""


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    app = create_app(Settings(run_workers=False, sandbox=True))
    served: dict[str, Any] = json.loads(msgspec.json.encode(app.openapi_schema.to_schema(), enc_hook=str))
    return served


def _component(document: dict[str, Any], ref: str) -> dict[str, Any]:
    schema: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return schema


def json_types(document: dict[str, Any], schema: dict[str, Any]) -> set[tuple[str, str | None]]:
    """The JSON types (with their format) a schema lets through, null aside; a reference is its
    component's (an enumeration is its values' type)."""
    if "$ref" in schema:
        component = _component(document, schema["$ref"])
        return {("object", None)} if "properties" in component else json_types(document, component)
    found: set[tuple[str, str | None]] = set()
    for key in ("oneOf", "anyOf", "allOf"):
        for part in schema.get(key, []):
            found |= json_types(document, part)
    kinds = schema.get("type", [])
    for kind in [kinds] if isinstance(kinds, str) else kinds:
        if kind != "null":
            found.add((kind, schema.get("format")))
    return found


def _places(document: dict[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(name, place, where, schema) of every property of every component (``where``:
    ``property``), and of every path and query parameter of every operation (place:
    ``METHOD /path``; ``where``: ``path`` or ``query``)."""
    for component, schema in document["components"]["schemas"].items():
        for name, prop in (schema.get("properties") or {}).items():
            yield name, component, "property", prop
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            for parameter in item.get(method, {}).get("parameters", []):
                if parameter["in"] in ("path", "query"):
                    yield parameter["name"], f"{method.upper()} {path}", parameter["in"], parameter["schema"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _names_an_id(name: str) -> bool:
    return name in ("id", "txid", "e2eid") or name.endswith(("Id", "_id"))


def test_every_number_is_money_and_every_money_string_has_the_pattern(document: dict[str, Any]) -> None:
    components = document["components"]["schemas"]
    numbers = {
        (component, name)
        for component, schema in components.items()
        for name, prop in (schema.get("properties") or {}).items()
        if any(kind == "number" for kind, _ in json_types(document, prop))
    }
    assert numbers == {(c, n) for c, names in MONEY_NUMBERS.items() for n in names}
    for component, name in sorted(numbers):
        prop = components[component]["properties"][name]
        described = [prop, *prop.get("oneOf", [])]
        assert any(
            s.get("type") == "number" and s.get("multipleOf") == 0.01 and s.get("format") == "decimal"
            for s in described
        ), (component, name, prop)
    for component, names in MONEY_STRINGS.items():
        for name in names:
            prop = components[component]["properties"][name]
            assert json_types(document, prop) == {("string", None)}, (component, name, prop)
            assert prop["pattern"] == MONEY_PATTERN, (component, name, prop)


def test_a_money_string_of_the_webhooks_is_described_as_the_api_s(document: dict[str, Any]) -> None:
    payment = document["components"]["schemas"]["Payment"]["properties"]["amount"]
    assert re.fullmatch(payment["pattern"], "123.45")
    assert not re.fullmatch(payment["pattern"], "123.4")


def test_each_name_has_one_json_type(document: dict[str, Any]) -> None:
    seen: dict[str, dict[tuple[str, str | None], list[str]]] = {}
    fixed: dict[tuple[str, str], set[tuple[str, str | None]]] = {}
    for name, place, where, schema in _places(document):
        if where == "query" and not _names_an_id(name):
            continue  # a query parameter other than an id is text, as the standard has it
        types = {(kind, None) for kind, _ in json_types(document, schema)}  # formats: per id, below
        if (name, place) in SEED_FIXED:
            fixed[name, place] = types
            continue
        for kind in types:
            seen.setdefault(_camel(name), {}).setdefault(kind, []).append(place)
    mixed = {
        name: {f"{kind}/{fmt}": places for (kind, fmt), places in kinds.items()}
        for name, kinds in seen.items()
        if len(kinds) > 1 and name not in HOMONYMS
    }
    assert mixed == {}
    assert not [name for name in HOMONYMS if _names_an_id(name)]
    assert [name for name in HOMONYMS if len(seen.get(name, ())) < 2] == []  # each still mixed
    assert set(fixed) == set(SEED_FIXED)  # every exception is still there...
    for (name, place), types in fixed.items():  # ...and still differs
        assert types, (name, place)
        assert not types & set(seen[_camel(name)]), (name, place, types)


def test_each_id_has_one_type_and_format_wherever_it_appears(document: dict[str, Any]) -> None:
    found: dict[tuple[str, str], set[tuple[str, str | None]]] = {}
    for name, place, _, schema in _places(document):
        found[place, name] = json_types(document, schema)
    for concept, places in ID_CONCEPTS.items():
        types = {place: found.get(place) for place in places}
        assert None not in types.values(), (concept, types)
        assert len({frozenset(t or ()) for t in types.values()}) == 1, (concept, types)
        (only,) = {frozenset(t or ()) for t in types.values()}
        assert len(only) == 1, (concept, only)


def _structs() -> dict[str, type[msgspec.Struct]]:
    def below(cls: type[msgspec.Struct]) -> Iterator[type[msgspec.Struct]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    return {c.__name__: c for c in below(msgspec.Struct) if c.__module__.startswith("pixweb.")}


def _refs(schema: Any, into: set[str]) -> None:
    if isinstance(schema, dict):
        if "$ref" in schema:
            into.add(schema["$ref"].rsplit("/", 1)[1])
        for value in schema.values():
            _refs(value, into)
    elif isinstance(schema, list):
        for value in schema:
            _refs(value, into)


def _reachable(document: dict[str, Any], key: str) -> set[str]:
    """The components the operations' ``key`` (``responses`` or ``requestBody``) reach; the
    webhooks' bodies count as answers."""
    start: set[str] = set()
    for item in document["paths"].values():
        for method in HTTP_METHODS:
            _refs(item.get(method, {}).get(key, {}), start)
    if key == "responses":
        _refs(document["webhooks"], start)
    reached: set[str] = set()
    while start:
        name = start.pop()
        if name not in reached:
            reached.add(name)
            _refs(document["components"]["schemas"][name], start)
    return reached


def test_an_answer_requires_every_member_the_service_always_sends(document: dict[str, Any]) -> None:
    structs = _structs()
    components = document["components"]["schemas"]
    answers = {name for name in _reachable(document, "responses") if "properties" in components[name]}
    assert answers <= set(structs)
    assert "ValorOut" in answers
    for name in sorted(answers):
        struct = structs[name]
        omits = struct.__struct_config__.omit_defaults
        always = {
            f.encode_name
            for f in msgspec.structs.fields(struct)
            if f.required or (not omits and f.default is not msgspec.UNSET)
        }
        assert sorted(components[name].get("required", [])) == sorted(always), name


def test_a_request_requires_every_member_its_rules_require(document: dict[str, Any]) -> None:
    components = document["components"]["schemas"]
    requests = {name for name in _reachable(document, "requestBody") if "properties" in components[name]}
    assert {"ValorIn", "CobIn", "RateIn", "InfoIn"} <= requests
    missing = {
        (name, member)
        for name in requests
        for member, prop in components[name]["properties"].items()
        if prop.get("description", "").startswith("Required")
        and member not in components[name].get("required", [])
    }
    assert missing == set()
    assert components["ValorIn"]["required"] == ["original"]
    assert "required" not in components["CobIn"]["properties"]["valor"]  # moved into ValorIn
