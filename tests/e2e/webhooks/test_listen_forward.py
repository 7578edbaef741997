"""``pixnotify listen --account N --forward-to URL``, as ``stripe listen`` works: it registers itself
for every event type of the account while it runs, prints the account's signing secret, passes
each notification that verifies on to the URL as it came, answers the sender with what the URL
answered, and removes its registrations when it stops."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import asyncpg
import pytest

from tests.e2e.webhooks.test_listen import BOUND, EVENT, OTHER, PIXNOTIFY, SECRET, lines, send, stop

PIXWEB = PIXNOTIFY.parent / "pixweb"
ALL_TYPES = {"cash_in", "cash_out", "refund_in", "refund_out", "med_created", "med_accepted", "med_rejected"}


class Target(http.server.ThreadingHTTPServer):
    """The receiver under development that notifications are forwarded to: it keeps what it got and
    answers ``status``."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.got: list[tuple[str, dict[str, str], bytes]] = []
        target = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                target.got.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(target.status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hooks"


@contextmanager
def target(status: int) -> Iterator[Target]:
    server = Target(status)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@asynccontextmanager
async def listener(
    *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[asyncio.subprocess.Process, str, list[str]]]:
    """``pixnotify listen`` started with ``args``; its URL and the lines it wrote up to it."""
    process = await asyncio.create_subprocess_exec(
        str(PIXNOTIFY),
        "listen",
        "--format",
        "json",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    told: list[str] = []
    while not told or not told[-1].startswith("listening on "):
        line = (await asyncio.wait_for(process.stderr.readline(), BOUND)).decode()
        assert line, f"it ended before listening: {told}"
        if not line.startswith('{"timestamp"'):  # a log record
            told.append(line.rstrip("\n"))
    try:
        yield process, told[-1].split()[2].rstrip(","), told
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_a_verified_notification_is_forwarded_as_it_came_and_answered_with_the_targets_status() -> None:
    with target(202) as receiver:
        async with listener("--secret", SECRET, "--forward-to", receiver.url) as (process, url, told):
            assert told[-1] == f"listening on {url}, forwarding to {receiver.url} (Ctrl-C stops)"
            assert await send(url, SECRET) == 202
            assert await send(url, OTHER, "msg_9_4") == 401  # never forwarded
            good, bad = (json.loads(line) for line in await lines(process, 2))
            await stop(process)
    assert len(receiver.got) == 1
    path, headers, body = receiver.got[0]
    assert (path, json.loads(body)) == ("/hooks", EVENT)
    assert headers["webhook-id"] == "msg_9_3"
    assert {"webhook-timestamp", "webhook-signature", "content-type"} <= set(headers)
    assert (good["status"], good["forwarded"]) == (202, "202")
    assert (bad["status"], bad["forwarded"]) == (401, None)


async def test_a_target_that_does_not_answer_is_a_502_for_the_sender() -> None:
    with target(200) as receiver:
        gone = receiver.url
    async with listener("--secret", SECRET, "--forward-to", gone) as (process, url, _):
        assert await send(url, SECRET) == 502  # the notifier retries it later
        (line,) = await lines(process, 1)
        await stop(process)
    note = json.loads(line)
    assert note["status"] == 502
    assert note["forwarded"].startswith("failed: ")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("--forward-to", "ftp://127.0.0.1/"), "an http:// or https:// URL"),
        (("--account", "1", "--secret", SECRET), "SecretGiven"),
        ((), "NoSecret"),
        (("--account", "1", "--events", "cash_in,nope"), "event types among cash_in, cash_out"),
    ],
)
async def test_contradictory_or_missing_options_are_refused_before_listening(
    args: tuple[str, ...], error: str
) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("PIX_")}
    process = await asyncio.create_subprocess_exec(
        str(PIXNOTIFY),
        "listen",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), BOUND)
    assert process.returncode == 2
    assert error in err.decode()


async def _new_account(database_url: str, data_dir: Path) -> tuple[dict[str, str], int]:
    """The environment of the service's commands on ``database_url``, and an account made there."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PIX_")}
    env |= {"PIX_DATABASE_URL": database_url, "PIX_DATA_DIR": str(data_dir)}
    created = await asyncio.create_subprocess_exec(
        str(PIXWEB), "admin", "account", "create", "--name", "Listener", "--document", "52998224725",
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(created.communicate(), BOUND)
    assert created.returncode == 0, err.decode()
    return env, json.loads(out)["accountId"]


async def _registrations(url: str, account_id: int) -> dict[str, tuple[str, bool]]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT event_type, url, is_active FROM webhooks WHERE account_id = $1 AND pix_key IS NULL",
            account_id,
        )
    finally:
        await connection.close()
    return {row["event_type"]: (row["url"], row["is_active"]) for row in rows}


async def test_with_an_account_it_registers_every_type_prints_the_secret_and_removes_them_when_it_stops(
    migrated_database: str, tmp_path: Path
) -> None:
    env, account_id = await _new_account(migrated_database, tmp_path)

    async with listener("--account", str(account_id), env=env) as (process, url, told):
        registered, secret_line, _ = told
        assert registered.startswith(
            f"registered {url} for every event type of account {account_id}: webhooks "
        )
        secret = secret_line.removeprefix("signing secret: ")
        assert await _registrations(migrated_database, account_id) == dict.fromkeys(ALL_TYPES, (url, True))
        assert await send(url, secret) == 204  # the account's own secret verifies
        assert await send(url, SECRET, "msg_9_5") == 401
        await lines(process, 2)
        after = await stop(process)

    assert "removed webhooks " in after
    assert await _registrations(migrated_database, account_id) == dict.fromkeys(ALL_TYPES, (url, False))
    connection = await asyncpg.connect(migrated_database)
    try:
        stored = await connection.fetchval(
            "SELECT secret FROM webhook_secrets WHERE account_id = $1", account_id
        )
    finally:
        await connection.close()
    assert stored == secret


async def test_events_narrow_the_registrations_to_those_types(migrated_database: str, tmp_path: Path) -> None:
    env, account_id = await _new_account(migrated_database, tmp_path)

    async with listener("--account", str(account_id), "--events", "refund_in,cash_in", env=env) as (
        process,
        url,
        told,
    ):
        assert told[0].startswith(
            f"registered {url} for refund_in, cash_in of account {account_id}: webhooks "
        )
        assert await _registrations(migrated_database, account_id) == dict.fromkeys(
            ("refund_in", "cash_in"), (url, True)
        )
        await stop(process)
