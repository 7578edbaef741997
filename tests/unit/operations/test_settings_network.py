"""``PIX_NETWORK_*``: the network the service takes part in, refused at start when it is half said."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from pixcore.clock import ManualClock
from pixcore.network.claims import ClaimPolicy
from pixcore.testing import InMemoryStore
from pixinfra.settings import NetworkAccess, Settings
from pixweb.network.participation import Participation

FILES = (
    "PIX_NETWORK_CERTIFICATE",
    "PIX_NETWORK_PRIVATE_KEY",
    "PIX_NETWORK_CA_CERTIFICATE",
    "PIX_NETWORK_SIGNER_CERTIFICATE",
)


@pytest.fixture
def pem_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    files = {}
    for variable in FILES:
        path = tmp_path / f"{variable.lower()}.pem"
        path.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
        monkeypatch.setenv(variable, str(path))
        files[variable] = path
    return files


def test_without_a_url_the_sandbox_is_the_outside_world(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIX_NETWORK_URL", raising=False)
    assert Settings.from_env().network is None


def test_a_url_and_its_four_files_make_the_network(
    monkeypatch: pytest.MonkeyPatch, pem_files: dict[str, Path]
) -> None:
    monkeypatch.setenv("PIX_NETWORK_URL", "https://127.0.0.1:16422/")
    assert Settings.from_env().network == NetworkAccess(
        "https://127.0.0.1:16422",
        pem_files["PIX_NETWORK_CERTIFICATE"],
        pem_files["PIX_NETWORK_PRIVATE_KEY"],
        pem_files["PIX_NETWORK_CA_CERTIFICATE"],
        pem_files["PIX_NETWORK_SIGNER_CERTIFICATE"],
    )


@pytest.mark.parametrize("missing", FILES)
def test_a_missing_file_stops_start_up_naming_it(
    monkeypatch: pytest.MonkeyPatch, pem_files: dict[str, Path], missing: str
) -> None:
    monkeypatch.setenv("PIX_NETWORK_URL", "https://127.0.0.1:16422")
    monkeypatch.delenv(missing)
    with pytest.raises(ValueError, match=f"{missing} is required with PIX_NETWORK_URL"):
        Settings.from_env()
    monkeypatch.setenv(missing, str(pem_files[missing].with_name("nowhere.pem")))
    with pytest.raises(ValueError, match=f"{missing}=.*no such file"):
        Settings.from_env()


def test_the_network_is_reached_over_https_only(
    monkeypatch: pytest.MonkeyPatch, pem_files: dict[str, Path]
) -> None:
    monkeypatch.setenv("PIX_NETWORK_URL", "http://127.0.0.1:16422")
    with pytest.raises(ValueError, match="over https only"):
        Settings.from_env()


@pytest.mark.parametrize(("raw", "policy"), [("", ClaimPolicy.CONFIRM), ("Operator", ClaimPolicy.OPERATOR)])
def test_the_claims_policy_defaults_to_confirm(
    monkeypatch: pytest.MonkeyPatch, pem_files: dict[str, Path], raw: str, policy: ClaimPolicy
) -> None:
    monkeypatch.setenv("PIX_NETWORK_URL", "https://127.0.0.1:16422")
    monkeypatch.setenv("PIX_NETWORK_CLAIMS", raw)
    network = Settings.from_env().network
    assert network is not None
    assert network.claims is policy


def test_an_unknown_claims_policy_stops_start_up_naming_the_choices(
    monkeypatch: pytest.MonkeyPatch, pem_files: dict[str, Path]
) -> None:
    monkeypatch.setenv("PIX_NETWORK_URL", "https://127.0.0.1:16422")
    monkeypatch.setenv("PIX_NETWORK_CLAIMS", "always")
    with pytest.raises(ValueError, match="PIX_NETWORK_CLAIMS=always: one of confirm, refuse, operator"):
        Settings.from_env()


def test_the_web_extra_alone_serves_the_sandbox_without_the_networks_libraries() -> None:
    """The API, its CLI and its services import nothing of the ``network`` extra until a network is set."""
    code = (
        "import sys, pixweb.app, pixweb.cli, pixweb.services\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'lxml', 'signxml', 'pixwire'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_network_without_the_network_extra_stops_start_up_naming_it(
    monkeypatch: pytest.MonkeyPatch, pem_files: dict[str, Path]
) -> None:
    monkeypatch.setenv("PIX_NETWORK_URL", "https://127.0.0.1:16422")
    settings = Settings.from_env()
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "signxml" else real(name, *a)
    )
    with pytest.raises(ValueError, match=r"needs the 'network' extra .*signxml not installed"):
        Participation.build(settings, InMemoryStore().unit_of_work, ManualClock())
