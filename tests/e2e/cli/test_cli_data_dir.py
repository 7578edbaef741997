"""One data folder found the same way by every command, no command but ``serve`` and ``migrate`` creating
an embedded database, the database each command uses in its logs (never a password), and ``--version`` /
``-h`` on both programs."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest

from pixinfra.settings import find_data_dir
from tests.e2e.cli.test_cli import _base_env, pixweb

PIXNOTIFY = Path(sys.executable).parent / "pixnotify"


def test_the_nearest_data_folder_upward_wins(tmp_path: Path) -> None:
    inner = tmp_path / "a" / "b" / "c"
    inner.mkdir(parents=True)
    (tmp_path / ".pixdata").mkdir()
    (tmp_path / "a" / ".pixdata").mkdir()

    found, searched = find_data_dir(inner)

    assert found == tmp_path / "a" / ".pixdata"
    assert searched[:3] == (inner / ".pixdata", inner.parent / ".pixdata", tmp_path / "a" / ".pixdata")


def test_without_a_data_folder_it_is_the_current_one(tmp_path: Path) -> None:
    found, searched = find_data_dir(tmp_path)
    assert found == tmp_path / ".pixdata"
    assert searched[0] == found
    assert searched[-1] == Path("/.pixdata")


async def _pixnotify(env: dict[str, str], *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        str(PIXNOTIFY),
        *args,
        env=env,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ("admin", "clock", "show"),
        ("admin", "ledger", "check"),
        ("admin", "account", "create", "--name", "Holder", "--document", "52998224725"),
    ],
)
async def test_commands_other_than_serve_and_migrate_create_no_database(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    data = tmp_path / "data"
    error = (await pixweb(_base_env(data), *args)).error()

    assert error["error"] == "NoDatabase"
    assert f"PIX_DATA_DIR is {data}" in error["message"]
    assert "pixweb migrate" in error["message"]
    assert not data.exists()


async def test_without_pix_data_dir_the_error_names_the_folders_searched(tmp_path: Path) -> None:
    env = {name: value for name, value in _base_env(tmp_path).items() if name != "PIX_DATA_DIR"}
    inner = tmp_path / "x" / "y"
    inner.mkdir(parents=True)

    error = (await pixweb(env, "admin", "clock", "show", cwd=inner)).error()

    assert error["error"] == "NoDatabase"
    assert f"{inner}, {inner.parent}, {tmp_path}," in error["message"]
    assert not (inner / ".pixdata").exists()


async def test_the_notifier_creates_no_database(tmp_path: Path) -> None:
    for command in ("status", "run"):
        code, stdout, stderr = await _pixnotify(_base_env(tmp_path / "data"), command)
        assert code == 2, stderr
        assert stdout == ""
        assert json.loads(stderr.strip().splitlines()[-1])["error"] == "NoDatabase"
    assert not (tmp_path / "data").exists()


async def test_each_command_logs_its_database_and_never_the_password(
    migrated_database: str, tmp_path: Path
) -> None:
    # The test server trusts local connections: a password in the URL is accepted and ignored.
    parts = urlsplit(migrated_database)
    user = parts.username or "postgres"
    netloc = f"{user}:hunter2-secret@{parts.netloc.rsplit('@', 1)[-1]}"
    with_password = urlunsplit(parts._replace(netloc=netloc))
    env = _base_env(tmp_path) | {"PIX_DATABASE_URL": with_password}
    # A server on a Unix socket (the embedded one) is named by its socket folder (the query's host).
    at = f"{parts.hostname}:{parts.port}" if parts.hostname else parse_qs(parts.query)["host"][-1]
    expected = f"database: PostgreSQL at {at}, database {parts.path.lstrip('/')} as {user}"

    shown = await pixweb(env, "admin", "clock", "show")
    shown.ok()
    code, _, notifier = await _pixnotify(env, "status")

    assert code == 0, notifier
    for stderr in (shown.stderr, notifier):
        assert expected in stderr
        assert "hunter2" not in stderr


async def test_version_and_short_help_on_both_programs(tmp_path: Path) -> None:
    env = _base_env(tmp_path)
    version = await pixweb(env, "--version")
    assert version.code == 0
    assert version.stdout.startswith("pixweb, version ")
    code, notifier_version, _ = await _pixnotify(env, "--version")
    assert code == 0
    assert notifier_version.startswith("pixnotify, version ")
    assert notifier_version.split()[-1] == version.stdout.split()[-1]

    for args in ((), ("admin",), ("admin", "account", "create"), ("serve",)):
        short, long = await pixweb(env, *args, "-h"), await pixweb(env, *args, "--help")
        assert short.code == long.code == 0
        assert short.stdout == long.stdout
        assert "Usage: pixweb" in short.stdout
    code, short_help, _ = await _pixnotify(env, "run", "-h")
    assert code == 0
    assert "--concurrency" in short_help
    assert "PIX_DATA_DIR" in short_help
    assert not (tmp_path / "pg").exists()


@pytest.mark.parametrize(
    ("program", "words", "expected"),
    [("pixweb", "pixweb admin ac", "plain,account"), ("pixnotify", "pixnotify ru", "plain,run")],
)
async def test_shell_completion_as_documented(program: str, words: str, expected: str) -> None:
    script = Path(sys.executable).parent / program
    variable = f"_{program.upper()}_COMPLETE"
    env = {"PATH": str(script.parent), variable: "bash_source"}
    source = await asyncio.create_subprocess_exec(str(script), env=env, stdout=asyncio.subprocess.PIPE)
    sourced, _ = await asyncio.wait_for(source.communicate(), 60)
    assert f"complete -o nosort -F _{program}_completion {program}" in sourced.decode()

    env |= {variable: "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    done = await asyncio.create_subprocess_exec(str(script), env=env, stdout=asyncio.subprocess.PIPE)
    completed, _ = await asyncio.wait_for(done.communicate(), 60)
    assert completed.decode().split() == [expected]
