"""``pixweb admin account list``, and a person's output on a terminal (JSON,
as the operator's commands always answer, when piped or with ``--json``)."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

from pixweb.security.certificates import create_self_signed
from tests.e2e.cli.test_cli import PIXWEB, _base_env, _create_account, _email, pixweb
from tests.e2e.conftest import Api
from tests.support.processes import stop_process


async def test_account_list_shows_each_account_with_its_keys_and_no_secret(
    migrated_database: str, tmp_path: Path
) -> None:
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}
    key = _email()
    created = await _create_account(env, key)

    listed = (await pixweb(env, "admin", "account", "list")).ok()

    assert set(listed) == {"accounts"}
    ours = [item for item in listed["accounts"] if item["accountId"] == created["accountId"]]
    assert len(ours) == 1
    assert ours[0]["keys"] == [key]
    assert ours[0]["clientIds"] == [created["clientId"]]
    assert ours[0]["address"] == created["address"]
    assert (ours[0]["ispb"], ours[0]["branch"], ours[0]["number"]) == (
        created["ispb"],
        created["branch"],
        created["number"],
    )
    assert created["clientSecret"] not in json.dumps(listed)
    ids = [item["accountId"] for item in listed["accounts"]]
    assert ids == sorted(ids)


def _on_a_terminal(env: dict[str, str], *args: str) -> str:
    """Run ``pixweb`` with a terminal as its stdout; what it printed there."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(PIXWEB), *args], env=env, stdout=follower, stderr=subprocess.PIPE, timeout=120, check=False
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert done.returncode == 0, done.stderr.decode()
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_a_terminal_gets_text_and_json_on_request(migrated_database: str, tmp_path: Path) -> None:
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}

    human = _on_a_terminal(env, "admin", "clock", "show")
    asked = _on_a_terminal(env, "admin", "clock", "show", "--json")

    assert human.startswith("now: 20"), human
    assert not human.lstrip().startswith("{")
    assert set(json.loads(asked)) == {"now"}
    piped = subprocess.run(
        [str(PIXWEB), "admin", "clock", "show"], env=env, capture_output=True, timeout=120, check=True
    )
    assert set(json.loads(piped.stdout)) == {"now"}  # not a terminal: JSON, as before


@pytest.fixture
def cli_env(migrated_database: str, tmp_path: Path) -> dict[str, str]:
    """The run's database, and ``tmp_path`` as the data folder (the ``api`` fixture's too: one
    signing key)."""
    return _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database}


def _exports(text: str) -> dict[str, str]:
    """The variables of ``export NAME=VALUE`` shell lines, as a POSIX shell would set them."""
    names = [line.split("=", 1)[0].removeprefix("export ") for line in text.splitlines()]
    done = subprocess.run(  # the real shell, so the quoting is tested too
        ["sh", "-c", text + "\n" + "".join(f'printf "%s\\0" "${name}"\n' for name in names)],
        capture_output=True,
        check=True,
        timeout=30,
    )
    return dict(zip(names, done.stdout.decode().split("\0")[:-1], strict=True))


async def test_admin_token_is_ready_to_use(cli_env: dict[str, str], own_api: Api, tmp_path: Path) -> None:
    api = own_api  # the app signs with the key of the commands' data folder
    account = await _create_account(cli_env)
    account_id = str(account["accountId"])

    made = (await pixweb(cli_env, "admin", "token", "--account", account_id)).ok()
    exported = _exports((await pixweb(cli_env, "admin", "token", "--account", account_id, "--env")).stdout)

    folder = tmp_path / "clients" / f"account-{account_id}"
    assert made["cert"] == str(folder / "client-cert.pem")  # made and linked once, then reused
    assert set(exported) == {"PIX_TOKEN", "PIX_CERT_HEADER"}
    assert exported["PIX_CERT_HEADER"] == made["certHeader"]
    assert exported["PIX_TOKEN"] != made["accessToken"]
    for token in (made["accessToken"], exported["PIX_TOKEN"]):
        headers = {"Authorization": f"Bearer {token}", "X-SSL-Client-Cert": exported["PIX_CERT_HEADER"]}
        assert (await api.client.get("/balance", headers=headers)).status_code == 200

    given = (
        await pixweb(
            cli_env, "admin", "token", "--account", account_id,
            "--cert", str(folder / "client-cert.pem"), "--key", str(folder / "client-key.pem"),
        )
    ).ok()  # fmt: skip
    assert given["fingerprint"] == made["fingerprint"]


async def test_admin_token_refuses_a_pair_it_cannot_vouch_for(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    account = await _create_account(cli_env)
    account_id = str(account["accountId"])
    key_pem, cert_pem, _ = create_self_signed("not linked")
    other_key, _, _ = create_self_signed("another")
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    (tmp_path / "key.pem").write_bytes(key_pem)
    (tmp_path / "other-key.pem").write_bytes(other_key)
    base = ("admin", "token", "--account", account_id, "--cert", str(tmp_path / "cert.pem"), "--key")
    key = str(tmp_path / "key.pem")

    assert (await pixweb(cli_env, *base, str(tmp_path / "other-key.pem"))).error()["error"] == "KeyMismatch"
    assert (await pixweb(cli_env, *base, key)).error()["error"] == "CertificateNotLinked"
    linked = (
        await pixweb(cli_env, "admin", "cert", "link", "--account", account_id, "--cert", base[-2])
    ).ok()
    assert (await pixweb(cli_env, *base, key)).ok()["fingerprint"] == linked["fingerprint"]
    revoke = ("admin", "cert", "revoke", "--account", account_id, "--fingerprint", linked["fingerprint"])
    (await pixweb(cli_env, *revoke)).ok()
    assert (await pixweb(cli_env, *base, key)).error()["error"] == "CertificateRevoked"
    half = await pixweb(cli_env, "admin", "token", "--account", account_id, "--cert", base[-2])
    assert half.error()["error"] == "UsageError"


async def test_serve_listens_where_host_and_port_say(migrated_database: str, tmp_path: Path) -> None:
    import socket

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": migrated_database, "PIX_LOG_LEVEL": "WARNING"}
    args = ["serve", "--no-demo", "--host", "127.0.0.1", "--port", str(port)]
    process = await asyncio.create_subprocess_exec(
        str(PIXWEB), *args, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        status = None
        async with httpx.AsyncClient() as client, asyncio.timeout(60):
            while status != 200:
                try:
                    status = (await client.get(f"http://127.0.0.1:{port}/.well-known/jwks.json")).status_code
                except httpx.TransportError:
                    await asyncio.sleep(0.2)
        assert process.returncode is None  # the server we started answered
    finally:
        await stop_process(process, "pixweb serve")
