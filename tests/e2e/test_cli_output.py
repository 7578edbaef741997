"""Issue 19, item 6: ``pixweb admin account list``, and a person's output on a terminal (JSON,
exactly as decisions 12 says, when piped or with ``--json``)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

from tests.e2e.test_cli import PIXWEB, _base_env, _create_account, _email, pixweb


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
