"""``pixnotify listen`` as a developer runs it: a process on 127.0.0.1 that checks each
notification's signature, answers 204 or 401, prints a line for a person or JSON for a pipe, and
stops cleanly on Ctrl-C. The notifications are signed by the notifier's own code."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from pixcore.webhook_delivery import encode_body
from pixnotify.sender import build_headers

PIXNOTIFY = Path(sys.executable).parent / "pixnotify"
SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
OTHER = "whsec_" + "b3RoZXIta2V5LW9mLWFub3RoZXItYWNjb3VudC0x"
EVENT = {
    "type": "RECEIVE",
    "data": {
        "id": 42,
        "txId": None,
        "status": "LIQUIDATED",
        "payment": {"amount": "12.00", "currency": "BRL"},
        "endToEndId": "E00000000202611241200abcdefghijk",
    },
}


@asynccontextmanager
async def listening(*args: str) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    process = await asyncio.create_subprocess_exec(
        str(PIXNOTIFY),
        "listen",
        "--port",
        "0",
        "--secret",
        SECRET,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    ready = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
    assert ready.startswith("listening on http://127.0.0.1:"), ready
    url = ready.split()[2]
    try:
        yield process, url
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def send(url: str, secret: str, msg_id: str = "msg_9_3") -> int:
    body = encode_body(EVENT)
    headers = build_headers(msg_id=msg_id, timestamp=int(time.time()), body=body, secrets=[secret], custom={})
    async with httpx.AsyncClient() as http:
        return (await http.post(url, content=body, headers=headers)).status_code


async def lines(process: asyncio.subprocess.Process, count: int) -> list[str]:
    assert process.stdout is not None
    return [
        (await asyncio.wait_for(process.stdout.readline(), 10)).decode().rstrip("\n") for _ in range(count)
    ]


async def stop(process: asyncio.subprocess.Process) -> str:
    """Ctrl-C; what it wrote on stderr after starting."""
    process.send_signal(signal.SIGINT)
    _, err = await asyncio.wait_for(process.communicate(), 10)
    assert process.returncode == 0
    return err.decode()


async def test_into_a_pipe_each_notification_is_a_json_line() -> None:
    async with listening() as (process, url):
        assert await send(url, SECRET) == 204
        assert await send(url, OTHER, "msg_9_4") == 401
        good, bad = (json.loads(line) for line in await lines(process, 2))
        assert "Traceback" not in await stop(process)
    assert (good["signature"], good["status"], good["webhookId"], good["event"]) == (
        "ok",
        204,
        "msg_9_3",
        EVENT,
    )
    assert (bad["signature"], bad["status"], bad["reason"]) == (
        "invalid",
        401,
        "no signature matches the secret",
    )


async def test_on_a_terminal_each_notification_is_a_line_for_a_person() -> None:
    async with listening("--format", "text") as (process, url):
        assert await send(url, SECRET) == 204
        assert await send(url, OTHER, "msg_9_4") == 401
        good, bad = await lines(process, 2)
        assert "Traceback" not in await stop(process)
    for line, msg, ending in (
        (good, "msg_9_3", "signature ok"),
        (bad, "msg_9_4", "SIGNATURE INVALID (no signature matches the secret)"),
    ):
        _, kind, amount, ids, msg_id, check = line.split("  ")
        assert (kind, amount, ids, msg_id, check) == (
            "RECEIVE",
            "12.00 BRL",
            "id=42 endToEndId=E00000000202611241200abcdefghijk",
            msg,
            ending,
        )


async def test_a_request_without_signature_headers_is_401_and_says_which_are_missing() -> None:
    async with listening("--json") as (process, url):
        async with httpx.AsyncClient() as http:
            response = await http.post(url, content=encode_body(EVENT))
        (line,) = await lines(process, 1)
        await stop(process)
    assert response.status_code == 401
    assert json.loads(line)["reason"] == "missing webhook-id, webhook-timestamp, webhook-signature"


async def test_count_ends_it_after_that_many_notifications() -> None:
    async with listening("--count", "1") as (process, url):
        assert await send(url, SECRET) == 204
        assert await asyncio.wait_for(process.wait(), 10) == 0


async def test_a_secret_that_is_not_one_is_refused_before_listening() -> None:
    process = await asyncio.create_subprocess_exec(
        str(PIXNOTIFY), "listen", "--port", "0", "--secret", "nope", stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2
    assert json.loads(err)["error"] == "InvalidSecret"


async def test_auto_prints_for_a_person_when_its_output_is_a_terminal() -> None:
    terminal, its_end = os.openpty()
    try:
        process = await asyncio.create_subprocess_exec(
            str(PIXNOTIFY),
            *("listen", "--port", "0", "--secret", SECRET, "--count", "1"),
            stdout=its_end,
            stderr=asyncio.subprocess.PIPE,
        )
        os.close(its_end)
        assert process.stderr is not None
        url = (await asyncio.wait_for(process.stderr.readline(), 30)).decode().split()[2]
        assert await send(url, SECRET) == 204
        assert await asyncio.wait_for(process.wait(), 10) == 0
        printed = os.read(terminal, 4096).decode()
    finally:
        os.close(terminal)
    assert printed.rstrip().endswith("msg_9_3  signature ok")
    assert "RECEIVE  12.00 BRL" in printed
