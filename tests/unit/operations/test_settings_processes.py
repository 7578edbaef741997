"""``PIX_PROCESSES``: how many API processes ``pixweb serve`` runs (``--workers`` overrides it)."""

from __future__ import annotations

import pytest

from pixinfra.settings import Settings


def test_one_process_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIX_PROCESSES", raising=False)
    assert Settings.from_env().processes == 1


def test_a_number_of_processes_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIX_PROCESSES", "2")
    assert Settings.from_env().processes == 2


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_anything_but_a_positive_whole_number_stops_start_up_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("PIX_PROCESSES", value)
    with pytest.raises(ValueError, match="PIX_PROCESSES"):
        Settings.from_env()
