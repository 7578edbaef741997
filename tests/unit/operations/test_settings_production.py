"""Production mode's defaults (docs/decisions/production-mode.md), and that an explicit setting still wins."""

from __future__ import annotations

import pytest

from pixinfra.settings import Settings

AFFECTED = ("PIX_PRODUCTION", "PIX_SANDBOX", "PIX_CONSOLE", "PIX_REQUIRE_CLIENT_CERT")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in AFFECTED:
        monkeypatch.delenv(name, raising=False)


def test_outside_production_the_sandbox_and_console_are_on_and_certificates_optional() -> None:
    settings = Settings.from_env()
    assert (settings.production, settings.sandbox, settings.console, settings.require_client_cert) == (
        False,
        True,
        True,
        False,
    )


def test_production_turns_the_sandbox_and_console_off_and_requires_certificates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PIX_PRODUCTION", "on")
    settings = Settings.from_env()
    assert (settings.production, settings.sandbox, settings.console, settings.require_client_cert) == (
        True,
        False,
        False,
        True,
    )


def test_in_production_an_explicit_setting_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIX_PRODUCTION", "on")
    monkeypatch.setenv("PIX_SANDBOX", "on")
    monkeypatch.setenv("PIX_CONSOLE", "on")
    monkeypatch.setenv("PIX_REQUIRE_CLIENT_CERT", "off")
    settings = Settings.from_env()
    assert (settings.sandbox, settings.console, settings.require_client_cert) == (True, True, False)


def test_a_console_setting_that_is_no_flag_stops_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIX_CONSOLE", "maybe")
    with pytest.raises(ValueError, match="PIX_CONSOLE"):
        Settings.from_env()
