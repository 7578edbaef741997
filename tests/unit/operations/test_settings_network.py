"""``PIX_NETWORK_*``: the network the service takes part in, refused at start when it is half said."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixinfra.settings import NetworkAccess, Settings

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
