"""The conformance suite's copy of the central bank's document (tests/conformance/
bcb-pix-api-openapi.patched.yaml) differs from the standard's file only where a ``# PATCH:``
comment says why, and the known defects are gone from it (docs/standard-api.md)."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml

TESTS = Path(__file__).parents[2]
ORIGINAL = TESTS / "data" / "bcb-pix-api-openapi.yaml"
PATCHED = TESTS / "conformance" / "bcb-pix-api-openapi.patched.yaml"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _document(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def test_every_change_of_the_copy_is_a_commented_patch() -> None:
    original, patched = _lines(ORIGINAL), _lines(PATCHED)
    header = 0
    while patched[header].startswith("#"):
        header += 1
    matcher = difflib.SequenceMatcher(a=original, b=patched[header:], autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    assert changes, "the copy patches nothing"
    for tag, a_start, a_end, b_start, b_end in changes:
        inserted = patched[header + b_start : header + b_end]
        removed = original[a_start:a_end]
        # Each change brings its comment with it; a removal alone would be an unexplained change.
        assert any(line.strip().startswith("# PATCH:") for line in inserted), (tag, removed, inserted)


def test_the_known_defects_are_in_the_standard_and_not_in_the_copy() -> None:
    for document, broken in ((_document(ORIGINAL), True), (_document(PATCHED), False)):
        schemas = document["components"]["schemas"]
        expiry = schemas["CobExpiracao"]["properties"]["expiracao"]
        assert isinstance(expiry["default"], str) is broken
        assert schemas["PessoaFisica"]["properties"]["cpf"]["pattern"].startswith("/") is broken
        assert ("cobs" in schemas["PixConsultados"]["required"]) is broken
        required = schemas["CobsConsultadas"]["properties"]["cobs"]["items"]["allOf"][1]["required"]
        assert ("idCob" in required) is broken
        assert schemas["TxId"]["pattern"].startswith("^") is not broken
        responses = document["paths"]["/cob"]["get"]["responses"]
        assert ("400" in responses) is not broken
        for path in ("/cobv", "/cobv/{txid}", "/webhook", "/lotecobv"):
            assert ("400" in document["paths"][path]["get"]["responses"]) is not broken
        assert ("required" in schemas["DadosRecebedor"]) is broken
        for body in ("LoteCobVBody", "LoteCobVBodyRevisado"):
            lot = document["components"]["requestBodies"][body]["content"]["application/json"]["schema"]
            assert ("type" in lot) is not broken
        assert ("cnpj" in schemas["WebhookCompleto"]["required"]) is broken
        assert ("type" not in schemas["CobVValor"]["properties"]["abatimento"]) is broken
        fixed_dates = schemas["CobVValor"]["properties"]["desconto"]["oneOf"][0]["properties"][
            "descontoDataFixa"
        ]
        assert ("type" not in fixed_dates["items"]) is broken
        location = schemas["PayloadLocationCob"]
        assert ("tipoCob" in location["required"]) is broken
        assert ("$ref" in location["properties"]["id"]) is broken  # the read-only PayloadLocationId
        branches = schemas["CobVValor"]["properties"]["desconto"]["oneOf"]
        assert all("modalidade" not in branch["properties"] for branch in branches) is broken


def test_the_copy_changes_no_operation_and_no_schema_name() -> None:
    original, patched = _document(ORIGINAL), _document(PATCHED)
    assert list(patched["paths"]) == list(original["paths"])
    assert list(patched["components"]["schemas"]) == list(original["components"]["schemas"])
    assert patched["info"] == original["info"]
