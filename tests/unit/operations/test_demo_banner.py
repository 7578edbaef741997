"""What ``make run`` shows first: the API, the console with the demo's credentials, and one curl for
a token, whose files hold the certificate and the credentials."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from urllib.parse import unquote

import pytest

from pixinfra.settings import Settings
from pixweb.demo import Demo, banner, instructions

DEMO = Demo(
    7,
    "pix_client",
    "s3cret",
    ["12345678909"],
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
)


def test_the_banner_boxes_the_urls_the_credentials_and_a_token_curl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(data_dir=tmp_path / ".pixdata")
    instructions(settings, DEMO, "http://127.0.0.1:8000")  # writes the token request's files

    lines = banner(settings, DEMO, "http://127.0.0.1:8000").splitlines()

    assert lines[0].startswith("╭─ PIX sandbox: demo account 7 ")
    assert lines[-1].startswith("╰")
    assert {len(line) for line in lines} == {len(lines[0])}  # a closed box
    text = "\n".join(lines)
    for shown in (
        "http://127.0.0.1:8000/console",
        "client id  pix_client",
        "secret     s3cret",
        (
            "curl -s -X POST http://127.0.0.1:8000/api/auth/token"
            " -H @.pixdata/demo/token.headers -d @.pixdata/demo/token.json"
        ),
    ):
        assert shown in text


def test_the_token_request_files_hold_the_certificate_and_credentials_privately(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(data_dir=tmp_path / ".pixdata")

    explained = instructions(settings, DEMO, "http://127.0.0.1:8000")

    folder = tmp_path / ".pixdata" / "demo"
    headers = (folder / "token.headers").read_text().splitlines()
    assert headers[0] == "Content-Type: application/json"
    name, value = headers[1].split(": ", 1)
    assert (name, unquote(value)) == ("X-SSL-Client-Cert", DEMO.cert_pem)
    assert json.loads((folder / "token.json").read_text()) == {
        "clientId": "pix_client",
        "clientSecret": "s3cret",
    }
    for path in (folder / "token.headers", folder / "token.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "-H @.pixdata/demo/token.headers -d @.pixdata/demo/token.json" in explained
