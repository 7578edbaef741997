"""``PIX_DATABASE_URL`` with one host or a list of them (``pixinfra.postgres.url``): what is read
from it, and every mistake refused when the settings are read, naming the variable and never the
password."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pixinfra.postgres.database import database_name, describe_database, with_database
from pixinfra.postgres.url import parse_database_url
from pixinfra.settings import Settings

BIN = Path(sys.executable).parent
HA = "postgresql://pix:s3cret@db1.example:5432,db2.example:5433/pix?target_session_attrs=read-write"


def test_a_host_list_is_read_in_order_with_its_ports() -> None:
    url = parse_database_url(HA)
    assert url.hosts == ("db1.example:5432", "db2.example:5433")
    assert (url.database, url.user, url.target_session_attrs) == ("pix", "pix", "read-write")


@pytest.mark.parametrize(
    ("raw", "hosts"),
    [
        ("postgresql://h1,h2/pix", ("h1", "h2")),  # asyncpg's default port for each
        ("postgres://[::1]:5432,h2:6543/pix", ("[::1]:5432", "h2:6543")),
        ("postgresql://h1,h2/pix?port=5432,5433", ("h1:5432", "h2:5433")),
        ("postgresql://u@/pix?host=/run/postgresql", ("/run/postgresql",)),
        ("postgresql:///pix", ()),
    ],
)
def test_the_forms_asyncpg_accepts(raw: str, hosts: tuple[str, ...]) -> None:
    assert parse_database_url(raw).hosts == hosts


def test_the_database_and_the_description_of_a_host_list() -> None:
    assert database_name(HA) == "pix"
    moved = with_database(HA, "postgres")
    assert moved == HA.replace("/pix?", "/postgres?")  # every host and the query kept
    described = describe_database(Settings(database_url=HA))
    assert described == "PostgreSQL at db1.example:5432, db2.example:5433 (read-write), database pix as pix"
    assert "s3cret" not in described


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("postgresql://pix@h1:5432,,h2:5432/pix", "an empty host"),
        ("postgresql://pix@h1:5432,/pix", "an empty host"),
        ("postgresql://pix@:5432/pix", "an empty host"),
        ("postgresql://pix@h1:5432,h2:54x2/pix", "port '54x2' is not a number"),
        ("postgresql://pix@h1:0/pix", "port '0' is not a number from 1 to 65535"),
        ("postgresql://pix@h1:65536/pix", "port '65536'"),
        ("postgresql://pix@h1:/pix", "port ''"),
        ("postgresql://pix@[::1/pix", "not a URL"),
        ("postgresql://h1,h2/pix?port=1,2,3", "3 ports for 2 hosts"),
        ("postgresql://h1,h2/pix?target_session_attrs=master", "target_session_attrs must be one of"),
        ("postgresql://h1/pix?target_session_attrs", "not name=value pairs"),
        ("mysql://h1/pix", "must start with postgresql://"),
    ],
)
def test_a_mistake_stops_the_settings_naming_it(monkeypatch: pytest.MonkeyPatch, raw: str, says: str) -> None:
    monkeypatch.setenv("PIX_DATABASE_URL", raw.replace("pix@", "pix:s3cret@"))
    with pytest.raises(ValueError, match="PIX_DATABASE_URL") as refused:
        Settings.from_env()
    assert says in str(refused.value)
    assert "s3cret" not in str(refused.value)


@pytest.mark.parametrize("query", ["", "?target_session_attrs=any", "?target_session_attrs=prefer-standby"])
def test_a_host_list_must_ask_for_the_primary(monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    monkeypatch.setenv("PIX_DATABASE_URL", f"postgresql://pix@db1:5432,db2:5432/pix{query}")
    with pytest.raises(ValueError, match="lists 2 servers: add \\?target_session_attrs=read-write"):
        Settings.from_env()


@pytest.mark.parametrize("attrs", ["read-write", "primary"])
def test_a_good_host_list_is_kept_as_given(monkeypatch: pytest.MonkeyPatch, attrs: str) -> None:
    monkeypatch.setenv("PIX_DATABASE_URL", HA.replace("read-write", attrs))
    assert Settings.from_env().database_url == HA.replace("read-write", attrs)


def test_one_server_needs_no_target_session_attrs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIX_DATABASE_URL", "postgresql://pix@db1:5432/pix")
    assert Settings.from_env().database_url == "postgresql://pix@db1:5432/pix"


@pytest.mark.parametrize(
    "command", [["pixweb", "serve", "--no-demo"], ["pixnotify", "run"], ["pixweb", "migrate"]]
)
def test_each_process_refuses_a_bad_host_list_at_start(tmp_path: Path, command: list[str]) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PIX_DATA_DIR": str(tmp_path),
        "PIX_DATABASE_URL": "postgresql://pix:s3cret@db1.example:5432,db2.example:5o32/pix",
    }
    done = subprocess.run(
        [str(BIN / command[0]), *command[1:]],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    error = json.loads(done.stderr.strip().splitlines()[-1])
    assert error == {
        "error": "InvalidSetting",
        "message": "PIX_DATABASE_URL: port '5o32' is not a number from 1 to 65535",
    }
    assert list(tmp_path.iterdir()) == []  # refused before anything was made


def test_a_read_url_is_read_beside_the_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIX_DATABASE_URL", HA)
    assert Settings.from_env().database_read_url is None
    assert Settings.from_env().read_wait_ms == 200
    monkeypatch.setenv("PIX_DATABASE_READ_URL", "postgresql://pix@db2.example:5433,db3.example/pix")
    monkeypatch.setenv("PIX_READ_WAIT_MS", "50")
    settings = Settings.from_env()
    assert settings.database_read_url == "postgresql://pix@db2.example:5433,db3.example/pix"
    assert settings.read_wait_ms == 50


@pytest.mark.parametrize(
    ("read_url", "message"),
    [
        (
            "postgresql://pix:s3cret@db2.example:54x3/pix",
            "PIX_DATABASE_READ_URL: port '54x3' is not a number from 1 to 65535",
        ),
        ("mysql://pix@db2.example/pix", "PIX_DATABASE_READ_URL must start with postgresql://"),
        (
            "postgresql://pix@db2.example/pix?target_session_attrs=nearest",
            "PIX_DATABASE_READ_URL: target_session_attrs must be one of",
        ),
    ],
)
def test_a_bad_read_url_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, read_url: str, message: str
) -> None:
    monkeypatch.setenv("PIX_DATABASE_URL", HA)
    monkeypatch.setenv("PIX_DATABASE_READ_URL", read_url)
    with pytest.raises(ValueError, match="PIX_DATABASE_READ_URL") as refused:
        Settings.from_env()
    assert str(refused.value).startswith(message)
    assert "s3cret" not in str(refused.value)


def test_a_read_url_needs_a_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIX_DATABASE_URL", raising=False)
    monkeypatch.setenv("PIX_DATABASE_READ_URL", "postgresql://pix@db2.example/pix")
    with pytest.raises(ValueError, match="PIX_DATABASE_READ_URL is set without PIX_DATABASE_URL"):
        Settings.from_env()


def test_serve_refuses_a_bad_read_url_at_start(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PIX_DATA_DIR": str(tmp_path),
        "PIX_DATABASE_URL": "postgresql://pix@db1.example:5432/pix",
        "PIX_DATABASE_READ_URL": "postgresql://pix:s3cret@db2.example:5o32/pix",
    }
    done = subprocess.run(
        [str(BIN / "pixweb"), "serve", "--no-demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    error = json.loads(done.stderr.strip().splitlines()[-1])
    assert error == {
        "error": "InvalidSetting",
        "message": "PIX_DATABASE_READ_URL: port '5o32' is not a number from 1 to 65535",
    }
    assert list(tmp_path.iterdir()) == []
