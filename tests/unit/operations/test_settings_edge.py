"""The edge's settings: ``PIX_MAX_HEADER_BYTES`` (the request head's cap) and
``PIX_WORKER_HEALTHCHECK_TIMEOUT`` (how long the supervisor waits for a worker's answer)."""

from __future__ import annotations

import pytest

from pixinfra.settings import Settings


def test_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIX_MAX_HEADER_BYTES", raising=False)
    monkeypatch.delenv("PIX_WORKER_HEALTHCHECK_TIMEOUT", raising=False)
    settings = Settings.from_env()
    assert settings.max_header_bytes == 65_536
    assert settings.worker_healthcheck_timeout == 30


def test_both_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIX_MAX_HEADER_BYTES", "16384")
    monkeypatch.setenv("PIX_WORKER_HEALTHCHECK_TIMEOUT", "90")
    settings = Settings.from_env()
    assert settings.max_header_bytes == 16_384
    assert settings.worker_healthcheck_timeout == 90


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PIX_MAX_HEADER_BYTES", "1023"),
        ("PIX_MAX_HEADER_BYTES", "64k"),
        ("PIX_WORKER_HEALTHCHECK_TIMEOUT", "0"),
        ("PIX_WORKER_HEALTHCHECK_TIMEOUT", "2.5"),
    ],
)
def test_a_wrong_value_stops_start_up_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=variable):
        Settings.from_env()
