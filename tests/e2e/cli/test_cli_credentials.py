"""The credentials' life cycle through the operator's CLI, end to end (docs/decisions/credentials.md):
``account rotate-secret``, ``cert revoke``, and ``cert link`` refusing a certificate outside
its validity period. Each command is a real subprocess; the API runs in this process, so every
effect seen through it was made by another process, through the database."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import asyncpg
import pytest

from pixweb.security.certificates import create_self_signed
from tests.e2e.cli.test_cli import (
    NO_SUCH_ACCOUNT,
    _base_env,
    _create_account,
    _fingerprint,
    _token_status,
    pixweb,
)
from tests.e2e.conftest import Api

OAUTH = "/oauth/token"


@pytest.fixture
def cli_env(migrated_database: str, tmp_path: Path) -> dict[str, str]:
    return _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}


async def _linked_account(env: Mapping[str, str], folder: Path) -> tuple[dict[str, Any], bytes]:
    """An account made by the CLI, with a certificate made and linked by the CLI."""
    account = await _create_account(env)
    out = folder / f"cert-{account['accountId']}"
    (
        await pixweb(
            env, "admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(out)
        )
    ).ok()
    return account, (out / "client-cert.pem").read_bytes()


async def _oauth_status(api: Api, client_id: str, secret: str, cert_pem: bytes) -> int:
    response = await api.client.post(
        OAUTH,
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
        headers={"X-SSL-Client-Cert": quote(cert_pem.decode(), safe="")},
    )
    return response.status_code


def _assert_401(response: Any) -> None:
    assert response.status_code == 401, response.text
    body = response.json()
    assert body["statusCode"] == 401
    assert body["error"] == "Unauthorized"
    assert "Traceback" not in response.text


# -- account rotate-secret ---------------------------------------------------------------


async def test_rotate_secret_prints_a_new_secret_once_and_the_old_one_stops_working(
    cli_env: dict[str, str], api: Api, tmp_path: Path, migrated_database: str
) -> None:
    account, cert_pem = await _linked_account(cli_env, tmp_path)
    assert (await _token_status(api, account, cert_pem))[0] == 201

    rotated = (
        await pixweb(cli_env, "admin", "account", "rotate-secret", "--account", str(account["accountId"]))
    ).ok()

    assert set(rotated) == {"accountId", "clientId", "clientSecret"}
    assert rotated["accountId"] == account["accountId"]
    assert rotated["clientId"] == account["clientId"]
    assert rotated["clientSecret"] != account["clientSecret"]
    assert len(rotated["clientSecret"]) >= 32
    # the old secret: 401 at both token endpoints, at once
    assert (await _token_status(api, account, cert_pem))[0] == 401
    assert await _oauth_status(api, account["clientId"], account["clientSecret"], cert_pem) == 401
    # the new one works at both
    status, token = await _token_status(api, account | {"clientSecret": rotated["clientSecret"]}, cert_pem)
    assert status == 201
    assert (await api.client.get("/balance", headers={"Authorization": f"Bearer {token}"})).status_code == 200
    assert await _oauth_status(api, account["clientId"], rotated["clientSecret"], cert_pem) == 200

    conn = await asyncpg.connect(migrated_database)
    try:
        stored = await conn.fetchval(
            "SELECT secret_hash FROM client_credentials WHERE client_id = $1", account["clientId"]
        )
    finally:
        await conn.close()
    assert isinstance(stored, str)
    assert rotated["clientSecret"] not in stored  # stored only as a slow hash
    assert stored.startswith("$argon2id$")


async def test_rotate_secret_of_an_unknown_account_is_a_json_error(cli_env: dict[str, str]) -> None:
    outcome = await pixweb(cli_env, "admin", "account", "rotate-secret", "--account", str(NO_SUCH_ACCOUNT))
    error = outcome.error()
    assert outcome.code == 2
    assert error["error"] == "AccountNotFound"
    assert str(NO_SUCH_ACCOUNT) in error["message"]


# -- cert revoke --------------------------------------------------------------------------


async def test_revoke_refuses_a_token_issued_before_at_once_and_any_new_token(
    cli_env: dict[str, str], api: Api, tmp_path: Path
) -> None:
    account, cert_pem = await _linked_account(cli_env, tmp_path)
    status, token = await _token_status(api, account, cert_pem)
    assert status == 201
    auth = {"Authorization": f"Bearer {token}"}
    with_cert = auth | {"X-SSL-Client-Cert": quote(cert_pem.decode(), safe="")}
    assert (await api.client.get("/balance", headers=auth)).status_code == 200  # verified and cached
    fingerprint = _fingerprint(cert_pem)

    revoked = (
        await pixweb(
            cli_env,
            "admin",
            "cert",
            "revoke",
            "--account",
            str(account["accountId"]),
            "--fingerprint",
            fingerprint,
        )
    ).ok()

    assert set(revoked) == {"fingerprint", "accountId", "revokedAt"}
    assert (revoked["fingerprint"], revoked["accountId"]) == (fingerprint, account["accountId"])
    revoked_at = datetime.fromisoformat(revoked["revokedAt"].replace("Z", "+00:00"))
    assert abs(revoked_at - datetime.now(UTC)) < timedelta(minutes=5)
    # the token issued before: refused on every bearer request, with or without its certificate
    _assert_401(await api.client.get("/balance", headers=auth))
    _assert_401(await api.client.get("/balance", headers=with_cert))
    _assert_401(await api.client.get("/api/webhooks", headers=auth))
    # no new token with it: 401 (a revoked certificate is not valid, as an expired one)
    assert (await _token_status(api, account, cert_pem))[0] == 401
    assert await _oauth_status(api, account["clientId"], account["clientSecret"], cert_pem) == 401


async def test_revoke_spares_the_accounts_other_certificates(
    cli_env: dict[str, str], api: Api, tmp_path: Path
) -> None:
    account, first = await _linked_account(cli_env, tmp_path)
    out = tmp_path / "second"
    (
        await pixweb(
            cli_env, "admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(out)
        )
    ).ok()
    second = (out / "client-cert.pem").read_bytes()
    _, token = await _token_status(api, account, second)

    args = (
        "admin",
        "cert",
        "revoke",
        "--account",
        str(account["accountId"]),
        "--fingerprint",
        _fingerprint(first),
    )
    (await pixweb(cli_env, *args)).ok()

    assert (await api.client.get("/balance", headers={"Authorization": f"Bearer {token}"})).status_code == 200
    assert (await _token_status(api, account, second))[0] == 201


async def test_a_revoked_certificate_cannot_be_linked_again(
    cli_env: dict[str, str], api: Api, tmp_path: Path
) -> None:
    account, cert_pem = await _linked_account(cli_env, tmp_path)
    account_id, fingerprint = str(account["accountId"]), _fingerprint(cert_pem)
    (
        await pixweb(
            cli_env, "admin", "cert", "revoke", "--account", account_id, "--fingerprint", fingerprint
        )
    ).ok()
    again = (
        await pixweb(
            cli_env, "admin", "cert", "revoke", "--account", account_id, "--fingerprint", fingerprint
        )
    ).ok()
    assert again["fingerprint"] == fingerprint  # revoking twice is fine

    cert_file = tmp_path / "again.pem"
    cert_file.write_bytes(cert_pem)
    error = (
        await pixweb(cli_env, "admin", "cert", "link", "--account", account_id, "--cert", str(cert_file))
    ).error()

    assert error["error"] == "CertificateRevoked"
    assert (await _token_status(api, account, cert_pem))[0] == 401


@pytest.mark.parametrize("case", ["unknown-fingerprint", "another-accounts", "malformed", "unknown-account"])
async def test_revoke_errors_are_json_and_revoke_nothing(
    cli_env: dict[str, str], api: Api, tmp_path: Path, case: str
) -> None:
    account, cert_pem = await _linked_account(cli_env, tmp_path)
    other = await _create_account(cli_env)
    account_id, fingerprint = account["accountId"], _fingerprint(cert_pem)
    target, kind = {
        "unknown-fingerprint": ((account_id, "ab" * 32), "CertificateNotFound"),
        "another-accounts": ((other["accountId"], fingerprint), "CertificateNotFound"),
        "malformed": ((account_id, "not-a-fingerprint"), "InvalidIdentifier"),
        "unknown-account": ((NO_SUCH_ACCOUNT, fingerprint), "AccountNotFound"),
    }[case]

    outcome = await pixweb(
        cli_env, "admin", "cert", "revoke", "--account", str(target[0]), "--fingerprint", target[1]
    )

    error = outcome.error()
    assert outcome.code == 2
    assert error["error"] == kind
    assert (await _token_status(api, account, cert_pem))[0] == 201  # still in force


# -- cert link: the validity period ------------------------------------------------------


@pytest.mark.parametrize(
    ("starts", "words"),
    [(timedelta(days=-400), "expired"), (timedelta(days=2), "not yet valid")],  # each valid 365 days
    ids=["expired", "not-yet-valid"],
)
async def test_cert_link_refuses_a_certificate_outside_its_validity_period(
    cli_env: dict[str, str], api: Api, tmp_path: Path, starts: timedelta, words: str
) -> None:
    account = await _create_account(cli_env)
    _, cert_pem, _ = create_self_signed(
        f"operator-{uuid.uuid4().hex}", now=datetime.now(UTC) + starts, days=365
    )
    cert_file = tmp_path / "cert.pem"
    cert_file.write_bytes(cert_pem)

    outcome = await pixweb(
        cli_env, "admin", "cert", "link", "--account", str(account["accountId"]), "--cert", str(cert_file)
    )

    error = outcome.error()
    assert outcome.code == 2
    assert error["error"] == "InvalidCertificate"
    assert words in error["message"]
    assert (await _token_status(api, account, cert_pem))[0] == 401  # not linked, and not valid


@pytest.fixture
async def service_clock_moved(migrated_database: str) -> AsyncIterator[timedelta]:
    """The shared service clock (the sandbox's) moved 400 days on, and back afterwards."""
    moved = timedelta(days=400)
    conn = await asyncpg.connect(migrated_database)
    try:
        before = await conn.fetchval("SELECT offset_micros FROM sandbox_clock WHERE id = 1")
        await conn.execute(
            "UPDATE sandbox_clock SET offset_micros = offset_micros + $1 WHERE id = 1",
            moved // timedelta(microseconds=1),
        )
        try:
            yield moved
        finally:
            await conn.execute("UPDATE sandbox_clock SET offset_micros = $1 WHERE id = 1", before)
    finally:
        await conn.close()


async def test_the_service_clock_decides_validity_at_link(
    cli_env: dict[str, str], tmp_path: Path, service_clock_moved: timedelta
) -> None:
    account = await _create_account(cli_env)
    _, cert_pem, _ = create_self_signed(f"operator-{uuid.uuid4().hex}", days=365)  # valid by the wall clock
    cert_file = tmp_path / "cert.pem"
    cert_file.write_bytes(cert_pem)
    link = ("admin", "cert", "link", "--account", str(account["accountId"]), "--cert", str(cert_file))

    error = (await pixweb(cli_env, *link)).error()
    assert error["error"] == "InvalidCertificate"
    assert "expired" in error["message"]

    # cert create makes its certificate valid from the service clock's now, so it links
    out = tmp_path / "made"
    created = (
        await pixweb(
            cli_env, "admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(out)
        )
    ).ok()
    assert created["fingerprint"] == _fingerprint((out / "client-cert.pem").read_bytes())


@pytest.mark.parametrize(
    "args",
    [
        ("admin", "account", "rotate-secret"),
        ("admin", "account", "rotate-secret", "--account", "one"),
        ("admin", "cert", "revoke", "--account", "1"),
        ("admin", "cert", "revoke", "--fingerprint", "ab" * 32),
    ],
    ids=["rotate-no-account", "rotate-account-not-a-number", "revoke-no-fingerprint", "revoke-no-account"],
)
async def test_usage_errors_exit_non_zero_with_nothing_on_stdout(
    cli_env: dict[str, str], args: tuple[str, ...]
) -> None:
    outcome = await pixweb(cli_env, *args)
    assert outcome.code == 2, str(outcome)
    assert outcome.stdout == "", str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
