"""``PIXNET_*``: the network's settings, each refused with a sentence that names it."""

from __future__ import annotations

import pytest

from pixnet.settings import DEFAULT_CLAIM_COMPLETION, DEFAULT_CLAIM_RESOLUTION, NetworkSettings, SettingsError


def test_the_claims_periods_default_to_the_documents_days(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PIXNET_CLAIM_RESOLUTION", "PIXNET_CLAIM_COMPLETION", "PIXNET_PORT", "PIXNET_PAYEE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    settings = NetworkSettings.from_environment()
    assert (settings.claim_resolution, settings.claim_completion) == (7 * 86_400, 30 * 86_400)
    assert (DEFAULT_CLAIM_RESOLUTION, DEFAULT_CLAIM_COMPLETION) == (604_800, 2_592_000)
    monkeypatch.setenv("PIXNET_CLAIM_RESOLUTION", "60")
    monkeypatch.setenv("PIXNET_CLAIM_COMPLETION", "0")
    settings = NetworkSettings.from_environment()
    assert (settings.claim_resolution, settings.claim_completion) == (60, 0)


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("PIXNET_CLAIM_RESOLUTION", "7d"),
        ("PIXNET_CLAIM_RESOLUTION", "-1"),
        ("PIXNET_CLAIM_COMPLETION", str(11 * 365 * 86_400)),
        ("PIXNET_PAYEE_TIMEOUT", "0"),
        ("PIXNET_PORT", "70000"),
    ],
)
def test_a_setting_out_of_its_domain_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, name: str, raw: str
) -> None:
    monkeypatch.setenv(name, raw)
    with pytest.raises(SettingsError, match=name):
        NetworkSettings.from_environment()
