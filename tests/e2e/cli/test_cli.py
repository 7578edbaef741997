"""The operator's CLI, end to end: ``pixweb admin ...`` as a real subprocess.

Each command runs the installed console script against the run's database
(``PIX_DATABASE_URL``), or, in the slow test, against the embedded PostgreSQL
it starts under ``PIX_DATA_DIR``. Success is JSON on stdout and nothing else;
failure is a non-zero exit, a JSON ``{error, message}`` on stderr and nothing
on stdout.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from pixweb.security.certificates import create_self_signed
from tests.e2e.conftest import Api
from tests.support import random_cpf
from tests.support.processes import stop_process

PIXWEB = Path(sys.executable).parent / "pixweb"
ACCOUNT_KEYS = {"accountId", "clientId", "clientSecret", "ispb", "branch", "number", "address", "keys"}
TIMEOUT = 120.0
NO_SUCH_ACCOUNT = 2_000_000_000
USAGE_CPF = random_cpf()  # given only to commands that must not run


@dataclass(frozen=True)
class Outcome:
    """What a finished command left behind."""

    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"pixweb {' '.join(self.args)} -> {self.code}\nstdout: {self.stdout}\nstderr: {self.stderr}"

    def ok(self) -> dict[str, Any]:
        """The JSON object on stdout of a command that succeeded."""
        assert self.code == 0, str(self)
        assert "Traceback" not in self.stderr, str(self)
        body = json.loads(self.stdout)  # the whole of stdout: no narration around the JSON
        assert isinstance(body, dict), str(self)
        return body

    def error(self) -> dict[str, Any]:
        """The JSON error on stderr of a command that failed, with nothing on stdout."""
        assert self.code != 0, str(self)
        assert self.stdout == "", str(self)
        assert "Traceback" not in self.stderr, str(self)
        *logged, last = self.stderr.strip().splitlines() or [""]
        for line in logged:  # before the error, only log records (the database used)
            record = json.loads(line)
            assert set(record) >= {"timestamp", "level", "logger", "message"}, str(self)
            assert record["level"] != "ERROR", str(self)
        try:
            body = json.loads(last)  # the last line of stderr
        except json.JSONDecodeError:
            pytest.fail(f"stderr does not end with one JSON object\n{self}")
        assert isinstance(body, dict), str(self)
        assert set(body) == {"error", "message"}, str(self)
        assert isinstance(body["error"], str)
        assert body["error"]
        assert isinstance(body["message"], str)
        assert body["message"]
        return body


async def pixweb(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> Outcome:
    """Run the console script to completion without blocking the session's event loop."""
    process = await asyncio.create_subprocess_exec(
        str(PIXWEB),
        *args,
        env=dict(env),
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return Outcome(args, process.returncode, stdout.decode(), stderr.decode())


def _base_env(data_dir: Path) -> dict[str, str]:
    """The inherited environment minus every PIX_ setting, with a data folder of its own and a
    pool of at most 5 connections (tests run side by side on one server)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PIX_")}
    env["PIX_DATA_DIR"] = str(data_dir)
    env["PIX_DB_POOL_SIZE"] = "5"
    return env


@pytest.fixture
def cli_env(migrated_database: str, tmp_path: Path) -> dict[str, str]:
    return _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}


def _email() -> str:
    return f"holder.{uuid.uuid4().hex}@example.com"


async def _create_account(env: Mapping[str, str], *keys: str, document: str | None = None) -> dict[str, Any]:
    args = ["admin", "account", "create", "--name", "Operator Test", "--document", document or random_cpf()]
    for key in keys:
        args += ["--key", key]
    return (await pixweb(env, *args)).ok()


async def _accounts_with_document(database_url: str, document: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        count = await conn.fetchval("SELECT count(*) FROM accounts WHERE document = $1", document)
    finally:
        await conn.close()
    assert isinstance(count, int)
    return count


def _fingerprint(cert_pem: bytes) -> str:
    der = x509.load_pem_x509_certificate(cert_pem).public_bytes(serialization.Encoding.DER)
    return hashlib.sha256(der).hexdigest()


async def _token_status(api: Api, account: Mapping[str, Any], cert_pem: bytes) -> tuple[int, str]:
    response = await api.client.post(
        "/api/auth/token",
        json={"clientId": account["clientId"], "clientSecret": account["clientSecret"]},
        headers={"X-SSL-Client-Cert": quote(cert_pem.decode(), safe="")},
    )
    token = response.json().get("access_token", "") if response.status_code == 201 else ""
    return response.status_code, token


# -- account create -------------------------------------------------------------


async def test_account_create_prints_the_account_as_json(
    cli_env: dict[str, str], migrated_database: str
) -> None:
    document = random_cpf()
    email = f"Holder.{uuid.uuid4().hex}@Example.COM"
    evp = str(uuid.uuid4()).upper()
    args = ["admin", "account", "create", "--name", "Maria Souza", "--document", document]
    args += ["--key", email, "--key", document, "--key", evp, "--city", "RECIFE"]
    args += ["--street", "Rua da Aurora, 300", "--state", "PE", "--postal-code", "50050000"]

    body = (await pixweb(cli_env, *args)).ok()

    assert set(body) == ACCOUNT_KEYS
    assert body["keys"] == [email.lower(), document, evp.lower()]
    assert isinstance(body["accountId"], int)
    assert body["accountId"] > 0
    assert body["ispb"] == "99999999"
    address = {"street": "Rua da Aurora, 300", "city": "RECIFE", "state": "PE", "postalCode": "50050000"}
    assert body["address"] == address
    assert isinstance(body["clientId"], str)
    assert body["clientId"]
    assert isinstance(body["clientSecret"], str)
    assert len(body["clientSecret"]) >= 32

    conn = await asyncpg.connect(migrated_database)
    try:
        row = await conn.fetchrow(
            "SELECT ispb, branch, number, name, document, city, street, state, postal_code FROM accounts"
            " WHERE id = $1",
            body["accountId"],
        )
        keys = await conn.fetch(
            "SELECT key_value FROM pix_keys WHERE account_id = $1 ORDER BY id", body["accountId"]
        )
        secret_hash = await conn.fetchval(
            "SELECT secret_hash FROM client_credentials WHERE client_id = $1", body["clientId"]
        )
    finally:
        await conn.close()
    assert row is not None
    assert dict(row) == {
        "ispb": body["ispb"],
        "branch": body["branch"],
        "number": body["number"],
        "name": "Maria Souza",
        "document": document,
        "city": "RECIFE",
        "street": "Rua da Aurora, 300",
        "state": "PE",
        "postal_code": "50050000",
    }
    assert [key["key_value"] for key in keys] == body["keys"]
    assert isinstance(secret_hash, str)
    assert body["clientSecret"] not in secret_hash  # stored only as a slow hash


async def test_account_create_without_keys_gets_one_random_key(cli_env: dict[str, str]) -> None:
    body = await _create_account(cli_env)
    assert set(body) == ACCOUNT_KEYS
    [key] = body["keys"]
    assert str(uuid.UUID(key)) == key  # an EVP, canonical lower case
    # Without an address: the default one in Sao Paulo (PIX_CITY's default city).
    assert body["address"] == {
        "street": "Avenida Paulista, 1000",
        "city": "SAO PAULO",
        "state": "SP",
        "postalCode": "01310100",
    }


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--state", "S1", "state must be two letters"),
        ("--postal-code", "01310-100", "postal code must be 8 digits"),
        ("--street", " ", "street must have 1 to 200 characters"),
    ],
)
async def test_account_create_refuses_an_address_out_of_its_form(
    cli_env: dict[str, str], migrated_database: str, option: str, value: str, message: str
) -> None:
    document = random_cpf()
    args = ["admin", "account", "create", "--name", "Bad Address", "--document", document, option, value]
    error = (await pixweb(cli_env, *args)).error()
    assert message in error["message"]
    assert await _accounts_with_document(migrated_database, document) == 0


# -- cert create ----------------------------------------------------------------


async def test_cert_create_writes_a_linked_key_pair_that_obtains_a_token(
    cli_env: dict[str, str], api: Api, tmp_path: Path
) -> None:
    account = await _create_account(cli_env, _email())
    out = tmp_path / "certs" / "operator"

    body = (
        await pixweb(
            cli_env, "admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(out)
        )
    ).ok()

    cert_file, key_file = out / "client-cert.pem", out / "client-key.pem"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    cert_pem = cert_file.read_bytes()
    fingerprint = _fingerprint(cert_pem)
    assert body["fingerprint"] == fingerprint
    assert len(fingerprint) == 64
    # the private key belongs to the certificate
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    certificate = x509.load_pem_x509_certificate(cert_pem)
    assert key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ) == certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )

    status, token = await _token_status(api, account, cert_pem)
    assert status == 201
    balance = await api.client.get("/balance", headers={"Authorization": f"Bearer {token}"})
    assert balance.status_code == 200, balance.text


async def test_cert_create_does_not_overwrite_an_existing_key_pair(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    account = await _create_account(cli_env)
    out = tmp_path / "certs"
    args = ("admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(out))
    (await pixweb(cli_env, *args)).ok()
    before = {name: (out / name).read_bytes() for name in ("client-cert.pem", "client-key.pem")}

    (await pixweb(cli_env, *args)).error()

    assert {name: (out / name).read_bytes() for name in before} == before


# -- cert link ------------------------------------------------------------------


async def test_cert_link_links_a_certificate_once_and_to_one_account_only(
    cli_env: dict[str, str], api: Api, tmp_path: Path
) -> None:
    account, other = await _create_account(cli_env), await _create_account(cli_env)
    _, cert_pem, _ = create_self_signed(f"operator-{uuid.uuid4().hex}")
    cert_file = tmp_path / "mine.pem"
    cert_file.write_bytes(cert_pem)
    link = ("admin", "cert", "link", "--cert", str(cert_file), "--account")

    assert (await _token_status(api, account, cert_pem))[0] == 403  # not linked yet
    body = (await pixweb(cli_env, *link, str(account["accountId"]))).ok()
    assert body["fingerprint"] == _fingerprint(cert_pem)
    assert (await _token_status(api, account, cert_pem))[0] == 201

    again = (await pixweb(cli_env, *link, str(account["accountId"]))).ok()
    assert again["fingerprint"] == body["fingerprint"]

    (await pixweb(cli_env, *link, str(other["accountId"]))).error()
    assert (await _token_status(api, account, cert_pem))[0] == 201  # still the first account's
    assert (await _token_status(api, other, cert_pem))[0] == 403


# -- errors ---------------------------------------------------------------------


async def test_a_key_of_another_account_is_refused_and_opens_nothing(
    cli_env: dict[str, str], migrated_database: str
) -> None:
    email = _email()
    await _create_account(cli_env, email)
    document = random_cpf()
    args = ["admin", "account", "create", "--name", "Second", "--document", document, "--key", email.upper()]

    error = (await pixweb(cli_env, *args)).error()

    assert error["error"] == "DuplicatePixKey"
    assert await _accounts_with_document(migrated_database, document) == 0


@pytest.mark.parametrize(
    ("case", "error_kind"),
    [
        ("invalid-document", "InvalidDocument"),
        ("invalid-key", "InvalidPixKey"),
        ("malformed-email", "InvalidPixKey"),
        ("cpf-key-of-someone-else", "InvalidPixKey"),
        ("same-key-twice", "DuplicatePixKey"),
        ("blank-name", "ValidationError"),
    ],
)
async def test_account_create_errors_are_json_and_open_nothing(
    cli_env: dict[str, str], migrated_database: str, case: str, error_kind: str
) -> None:
    document = "12345678900" if case == "invalid-document" else random_cpf()
    name = "   " if case == "blank-name" else "Holder"
    keys = {
        "invalid-document": [_email()],
        "invalid-key": ["not a key"],
        "malformed-email": ["holder@@example.com"],
        "cpf-key-of-someone-else": [random_cpf()],
        "same-key-twice": [(email := _email()), email.upper()],
        "blank-name": [_email()],
    }[case]
    args = ["admin", "account", "create", "--name", name, "--document", document]
    for key in keys:
        args += ["--key", key]

    error = (await pixweb(cli_env, *args)).error()

    assert error["error"] == error_kind
    assert await _accounts_with_document(migrated_database, document) == 0


async def test_cert_link_of_a_missing_file_is_a_json_error(cli_env: dict[str, str], tmp_path: Path) -> None:
    account = await _create_account(cli_env)
    missing = tmp_path / "nowhere.pem"
    args = ("admin", "cert", "link", "--account", str(account["accountId"]), "--cert", str(missing))
    error = (await pixweb(cli_env, *args)).error()
    assert error["error"] == "UnreadableCertificate"
    assert str(missing) in error["message"]


async def test_cert_link_of_a_directory_is_a_json_error(cli_env: dict[str, str], tmp_path: Path) -> None:
    account = await _create_account(cli_env)
    folder = tmp_path / "a-folder.pem"
    folder.mkdir()
    args = ("admin", "cert", "link", "--account", str(account["accountId"]), "--cert", str(folder))
    (await pixweb(cli_env, *args)).error()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"hello, this is not a certificate\n",
        b"-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n",
        None,  # a PEM private key: PEM, but no certificate
    ],
    ids=["empty", "text", "garbage-pem", "private-key-pem"],
)
async def test_cert_link_of_something_not_a_certificate_is_a_json_error(
    cli_env: dict[str, str], tmp_path: Path, content: bytes | None
) -> None:
    account = await _create_account(cli_env)
    cert_file = tmp_path / "not-a-cert.pem"
    cert_file.write_bytes(create_self_signed("key-only")[0] if content is None else content)
    args = ("admin", "cert", "link", "--account", str(account["accountId"]), "--cert", str(cert_file))
    error = (await pixweb(cli_env, *args)).error()
    assert error["error"] == "MalformedCertificate"


async def test_cert_link_to_an_unknown_account_is_a_json_error(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    cert_file = tmp_path / "mine.pem"
    cert_file.write_bytes(create_self_signed("orphan")[1])
    args = ("admin", "cert", "link", "--account", str(NO_SUCH_ACCOUNT), "--cert", str(cert_file))
    error = (await pixweb(cli_env, *args)).error()
    assert error["error"] == "AccountNotFound"


async def test_cert_create_for_an_unknown_account_is_a_json_error_and_writes_nothing(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "certs"
    args = ("admin", "cert", "create", "--account", str(NO_SUCH_ACCOUNT), "--out", str(out))
    error = (await pixweb(cli_env, *args)).error()
    assert error["error"] == "AccountNotFound"
    assert not (out / "client-key.pem").exists()
    assert not (out / "client-cert.pem").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("admin", "account", "create", "--name", "No Document"),
        ("admin", "account", "create", "--document", USAGE_CPF),
        ("admin", "cert", "link", "--account", "1"),
        ("admin", "cert", "link", "--cert", "client-cert.pem"),
        ("admin", "cert", "create", "--out", "certs"),
        ("admin", "cert", "create", "--account", "1"),
        ("admin", "cert", "link", "--account", "one", "--cert", "client-cert.pem"),
    ],
    ids=[
        "account-no-document",
        "account-no-name",
        "link-no-cert",
        "link-no-account",
        "create-no-account",
        "create-no-out",
        "link-account-not-a-number",
    ],
)
async def test_usage_errors_exit_non_zero_with_nothing_on_stdout(
    cli_env: dict[str, str], migrated_database: str, args: tuple[str, ...]
) -> None:
    outcome = await pixweb(cli_env, *args)
    assert outcome.code != 0, str(outcome)
    assert outcome.stdout == "", str(outcome)
    assert outcome.stderr.strip(), str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
    if "--document" in args:
        assert await _accounts_with_document(migrated_database, USAGE_CPF) == 0


# -- the embedded database ------------------------------------------------------


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if text in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


@pytest.mark.slow
async def test_embedded_database_is_shared_between_commands_and_stopped_after() -> None:
    # Outside pytest's temporary root, which another pytest run may close (chmod 700) behind the
    # server: the embedded server runs as another user when we are root (docs/operations.md).
    tmp_path = Path(tempfile.mkdtemp(prefix="pixtest-cli-"))
    try:
        await _shared_and_stopped(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


async def _shared_and_stopped(tmp_path: Path) -> None:
    # no PIX_DATABASE_URL and no PIX_DATA_DIR: the embedded server in the nearest .pixdata upward
    env = {name: value for name, value in _base_env(tmp_path).items() if name != "PIX_DATA_DIR"}
    inside = tmp_path / "project" / "src"
    inside.mkdir(parents=True)
    before = await pixweb(
        env, "admin", "account", "create", "--name", "A", "--document", random_cpf(), cwd=inside
    )
    assert before.error()["error"] == "NoDatabase"  # only serve and migrate create a database
    assert not (inside / ".pixdata").exists()

    assert (await pixweb(env, "migrate", cwd=tmp_path / "project")).ok() == {"migrated": True}
    args = ("admin", "account", "create", "--name", "Operator Test", "--document")
    first = (await pixweb(env, *args, random_cpf(), "--key", _email(), cwd=inside)).ok()
    second_run = await pixweb(env, *args, random_cpf(), "--key", _email(), cwd=tmp_path / "project")
    second = second_run.ok()

    assert set(first) == set(second) == ACCOUNT_KEYS
    assert second["accountId"] > first["accountId"]  # the same database, reused
    pgdata = (tmp_path / "project" / ".pixdata" / "pg").resolve()
    assert pgdata.is_dir()
    assert f"embedded PostgreSQL in {pgdata}" in second_run.stderr  # logged: the database it used
    assert not (inside / ".pixdata").exists()

    deadline = time.monotonic() + 15  # the last process to leave stops the server: give it time
    left = _processes_mentioning(str(pgdata))
    while left and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        left = _processes_mentioning(str(pgdata))
    assert left == [], f"still running after the commands exited: {left}"


async def test_cert_create_into_a_file_is_a_json_error(cli_env: dict[str, str], tmp_path: Path) -> None:
    account = await _create_account(cli_env)
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("keep me")
    args = ("admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(not_a_folder))
    (await pixweb(cli_env, *args)).error()
    assert not_a_folder.read_text() == "keep me"


async def test_an_invalid_setting_is_a_json_error(cli_env: dict[str, str]) -> None:
    env = cli_env | {"PIX_ISPB": "not-an-ispb"}
    args = ("admin", "account", "create", "--name", "Holder", "--document", random_cpf())
    (await pixweb(env, *args)).error()


@pytest.mark.parametrize("command", ["account", "cert"])
async def test_an_unreachable_database_is_a_json_error_and_leaves_nothing(
    tmp_path: Path, command: str
) -> None:
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": "postgresql://pix@127.0.0.1:1/pix"}
    out = tmp_path / "certs"
    if command == "account":
        args: tuple[str, ...] = ("admin", "account", "create", "--name", "Holder", "--document", random_cpf())
    else:
        args = ("admin", "cert", "create", "--account", "1", "--out", str(out))
    (await pixweb(env, *args)).error()
    # a certificate that could not be linked is not left behind
    assert not (out / "client-key.pem").exists()
    assert not (out / "client-cert.pem").exists()


@pytest.mark.slow
async def test_serve_stopped_by_sigterm_stops_its_embedded_database(tmp_path: Path) -> None:
    import socket

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = _base_env(tmp_path) | {"PIX_PORT": str(port), "PIX_WORKERS": "off"}
    server = await asyncio.create_subprocess_exec(
        PIXWEB,
        "serve",
        "--no-demo",
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    pgdata = (tmp_path / "pg").resolve()
    try:
        async with httpx.AsyncClient() as http:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if (await http.get(f"http://127.0.0.1:{port}/health/live")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.25)
        assert _processes_mentioning(str(pgdata)), "the embedded server should run while serving"
        await stop_process(server, "pixweb serve")  # SIGTERM: what a supervisor sends
    finally:
        if server.returncode is None:
            server.kill()
    deadline = time.monotonic() + 15
    left = _processes_mentioning(str(pgdata))
    while left and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        left = _processes_mentioning(str(pgdata))
    assert left == [], f"the embedded PostgreSQL outlived pixweb serve: {left}"
