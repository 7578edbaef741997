"""One word per state: every state of every state machine the console shows has one label in
each language, and every page shows states through ``status()`` (``pixweb.console.statuses``)."""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import typing
from pathlib import Path

import pixcore
from pixweb.console.language import LANGUAGES, language
from pixweb.console.statuses import KINDS, STATUSES, TYPES, status_for

TEMPLATES = Path(__file__).resolve().parents[3] / "src/pixweb/console/templates"


def state_machines() -> dict[str, type[enum.Enum]]:
    """Every ``...Lifecycle`` of ``pixcore`` (a ``transitions`` machine) with the enum of its states."""
    found: dict[str, type[enum.Enum]] = {}
    for module in pkgutil.walk_packages(pixcore.__path__, "pixcore."):
        for name, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            if name.endswith("Lifecycle") and cls.__module__ == module.name:
                found[name] = typing.get_type_hints(cls)["state"]
    return found


def test_every_state_machine_is_a_kind_of_the_console() -> None:
    machines = state_machines()
    assert set(machines) >= {"TransferLifecycle", "ChargeLifecycle", "RefundLifecycle", "MedLifecycle"}
    for name, states in machines.items():
        assert states in KINDS.values(), f"{name}'s states ({states.__name__}) have no words in statuses.py"


def test_every_state_of_every_kind_has_one_label_in_each_language() -> None:
    for kind, states in KINDS.items():
        assert set(STATUSES[kind]) == set(states), kind  # every state, nothing else
        for state in states:
            shown = status_for(kind, state)
            assert shown is status_for(kind, state.value)  # the API's value finds the same word
            words = {language(code).gettext(shown.label) for code in LANGUAGES}
            assert all(words), (kind, state)
            assert language("pt_BR").gettext(shown.label) != shown.label, (kind, state)  # translated
        labels = [status_for(kind, state).label for state in states]
        assert len(set(labels)) == len(labels), f"two states of {kind} share a word"


def test_the_same_state_has_the_same_word_on_every_kind_of_record() -> None:
    """A transfer settled is Confirmed as its record is; a refund settled too (DEVOLVIDO)."""
    assert status_for("transfer", "COMPLETED") == status_for("transaction", "CONFIRMED")
    assert status_for("refund", "DEVOLVIDO") == status_for("transaction", "CONFIRMED")
    assert status_for("refund", "EM_PROCESSAMENTO") == status_for("transaction", "PENDING")
    assert status_for("transfer", "ERROR") == status_for("refund", "NAO_REALIZADO")
    pt = language("pt_BR")
    assert pt.gettext(status_for("transaction", "CONFIRMED").label) == "Confirmada"
    assert pt.gettext(status_for("charge", "ATIVA").label) == "Aberta"


def test_every_transaction_type_has_a_label() -> None:
    for kind, label in TYPES.items():
        assert language("pt_BR").gettext(label) != label, kind


def test_every_page_shows_a_state_through_status() -> None:
    """No template writes a status badge or a raw state by hand: ``status(kind, state)`` only."""
    for template in sorted(TEMPLATES.glob("*.html")):
        text = template.read_text()
        assert 'class="status' not in text, f"{template.name} draws a status badge by hand"
        for raw in ("EM_PROCESSAMENTO", "DEVOLVIDO", "CONCLUIDA", "LIQUIDATED", "COMPLETED"):
            assert raw not in text, f"{template.name} names the state {raw}"
    uses = {t.name for t in TEMPLATES.glob("*.html") if "status(" in t.read_text()}
    assert {
        "macros.html",
        "charge_live.html",
        "refund_live.html",
        "transaction_live.html",
        "delivery.html",
    } <= uses
    assert {"timeline.html", "deliveries.html", "webhooks.html", "sandbox.html", "cash_in.html"} <= uses
