"""Every field a domain error names by reference has its wire path, declared by its feature; an
error is rendered with the domain's names in pixcore and with those paths at the edge."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import pixcore
import pixweb.app  # noqa: F401 - every feature's module declares its fields' wire paths
from pixcore.errors import ValidationError
from pixcore.problems import Field, Problem
from pixcore.transfers.rules import TransferField, TransferRequest
from pixweb.field_paths import declared_paths, on_the_wire, wire_path, wire_paths


def _field_references() -> list[type[Field]]:
    for info in pkgutil.walk_packages(pixcore.__path__, "pixcore."):
        importlib.import_module(info.name)
    found: list[type[Field]] = []
    pending = list(Field.__subclasses__())
    while pending:
        kind = pending.pop()
        found.append(kind)
        pending.extend(kind.__subclasses__())
    return found


def test_every_field_reference_of_pixcore_has_a_declared_wire_path() -> None:
    kinds = _field_references()
    assert TransferField in kinds
    declared = declared_paths()
    fields = [field for kind in kinds if kind.__module__.startswith("pixcore.") for field in kind]
    missing = [str(field) for field in fields if field not in declared]
    assert not missing, "no declared wire path (declare it beside its struct):\n" + "\n".join(missing)


def test_a_transfers_problems_read_in_the_domains_words_and_on_the_wire() -> None:
    with pytest.raises(ValidationError) as caught:
        TransferRequest.parse(
            pix_key="?",
            amount=10,
            currency="BRL",
            priority="HIGH",
            expiration=None,
            creditor_document=None,
            description=None,
            ispb_deny=None,
            payment_flow=None,
        )
    assert caught.value.details == [
        "key: Invalid PIX key.",
        "creditor document: required when priority is HIGH",
    ]
    assert on_the_wire(caught.value) == (
        "Invalid transfer: pixKey: Invalid PIX key.; creditorDocument: required when priority is HIGH",
        ["pixKey: Invalid PIX key.", "creditorDocument: required when priority is HIGH"],
    )


def test_a_field_is_on_the_wire_in_one_place() -> None:
    assert wire_paths({TransferField.KEY: "pixKey"}) == {TransferField.KEY: "pixKey"}  # the same again
    with pytest.raises(ValueError, match="pixKey"):
        wire_paths({TransferField.KEY: "chave"})


def test_an_error_without_references_is_said_as_it_is() -> None:
    error = ValidationError("Invalid batch id: x", details=["id: x"])
    assert on_the_wire(error) == ("Invalid batch id: x", ["id: x"])
    assert Problem.of(TransferField.AMOUNT, "must be positive").render(wire_path) == (
        "payment.amount: must be positive"
    )
