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
from typing import Any

import httpx

from pixcore.webhooks.delivery import encode_body
from pixnotify.sender import build_headers

PIXNOTIFY = Path(sys.executable).parent / "pixnotify"
SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
# How long a step may take before the test calls it hung: generous, for a loaded machine (a bound,
# not a timing: every step ends far sooner when nothing is wrong).
BOUND = 60
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
    ready = (await asyncio.wait_for(process.stderr.readline(), BOUND)).decode()
    assert ready.startswith("listening on http://127.0.0.1:"), ready
    url = ready.split()[2]
    try:
        yield process, url
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def send(url: str, secret: str, msg_id: str = "msg_9_3", event: dict[str, Any] = EVENT) -> int:
    body = encode_body(event)
    headers = build_headers(msg_id=msg_id, timestamp=int(time.time()), body=body, secrets=[secret], custom={})
    async with httpx.AsyncClient(timeout=BOUND) as http:
        return (await http.post(url, content=body, headers=headers)).status_code


async def lines(process: asyncio.subprocess.Process, count: int) -> list[str]:
    assert process.stdout is not None
    return [
        (await asyncio.wait_for(process.stdout.readline(), BOUND)).decode().rstrip("\n") for _ in range(count)
    ]


async def stop(process: asyncio.subprocess.Process) -> str:
    """Ctrl-C; what it wrote on stderr after starting."""
    process.send_signal(signal.SIGINT)
    _, err = await asyncio.wait_for(process.communicate(), BOUND)
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
    _, kind, amount, ids, msg_id, check = good.split("  ")
    assert (kind, amount, ids, msg_id, check) == (
        "RECEIVE",
        "12.00 BRL",
        "id=42 endToEndId=E00000000202611241200abcdefghijk",
        "msg_9_3",
        "signature ok",
    )
    # Not verified: marked at the start, and what the sender wrote is quoted.
    prefix, _, kind, amount, ids, msg_id, check = bad.split("  ")
    assert (prefix, kind, amount, ids, msg_id, check) == (
        "!! UNVERIFIED",
        '"RECEIVE"',
        '"12.00 BRL"',
        '"id=42 endToEndId=E00000000202611241200abcdefghijk"',
        '"msg_9_4"',
        "SIGNATURE INVALID (no signature matches the secret)",
    )


COBR = {  # a recurring charge paid: sent as the standard's /webhookcobr body, without the envelope
    "type": "COBR",
    "data": {
        "cobsr": [
            {
                "idRec": "RR1234567820261124abcdefghijk",
                "txid": "3136957d93134f2184b369e8f1c0729d",
                "status": "CONCLUIDA",
                "atualizacao": [{"status": "CONCLUIDA", "data": "2026-11-24T12:00:00.000Z"}],
                "tentativas": [
                    {
                        "dataLiquidacao": "2026-11-24",
                        "tipo": "AGND",
                        "status": "PAGA",
                        "endToEndId": "E12345678202611241200abcdef12345",
                        "atualizacao": [{"status": "PAGA", "data": "2026-11-24T12:00:00.000Z"}],
                    }
                ],
                "pix": [
                    {
                        "endToEndId": "E12345678202611241200abcdef12345",
                        "txid": "3136957d93134f2184b369e8f1c0729d",
                        "valor": "35.00",
                        "horario": "2026-11-24T12:00:00.000Z",
                    }
                ],
            }
        ]
    },
}


async def test_a_recurring_charges_notification_is_a_line_with_its_txid_status_and_amount() -> None:
    async with listening("--format", "text") as (process, url):
        assert await send(url, SECRET, "msg_9_5", COBR) == 204
        (line,) = await lines(process, 1)
        assert "Traceback" not in await stop(process)
    assert line.split("  ")[1:] == [
        "COBR",
        "35.00 BRL",
        (
            "txid=3136957d93134f2184b369e8f1c0729d idRec=RR1234567820261124abcdefghijk status=CONCLUIDA"
            " tentativa=PAGA dataLiquidacao=2026-11-24 endToEndId=E12345678202611241200abcdef12345"
        ),
        "msg_9_5",
        "signature ok",
    ]


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
        assert await asyncio.wait_for(process.wait(), BOUND) == 0


async def test_a_secret_that_is_not_one_is_refused_before_listening() -> None:
    process = await asyncio.create_subprocess_exec(
        str(PIXNOTIFY), "listen", "--port", "0", "--secret", "nope", stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(process.communicate(), BOUND)
    assert process.returncode == 2
    assert json.loads(err)["error"] == "InvalidSecret"


async def test_ctrl_c_stops_it_even_when_started_with_sigint_ignored() -> None:
    """A background job of a shell starts with SIGINT ignored, which Python keeps: listen still
    stops on it, as on Ctrl-C."""
    ignoring = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the child, as from a shell
    try:
        async with listening() as (process, url):
            assert await send(url, SECRET) == 204
            await lines(process, 1)
            assert "Traceback" not in await stop(process)
    finally:
        signal.signal(signal.SIGINT, ignoring)


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
        url = (await asyncio.wait_for(process.stderr.readline(), BOUND)).decode().split()[2]
        assert await send(url, SECRET) == 204
        assert await asyncio.wait_for(process.wait(), BOUND) == 0
        printed = os.read(terminal, 4096).decode()
    finally:
        os.close(terminal)
    assert printed.rstrip().endswith("msg_9_3  signature ok")
    assert "RECEIVE  12.00 BRL" in printed


# A forged line: erase the current one, return to its start, ring, and reverse what follows.
FORGED = "\x1b[2K\r15:07:01  RECEIVE  7.50 BRL  id=5  msg_6_1  signature ok\x07\u202ekrow\u202c"
RAW_CONTROLS = ("\x1b", "\r", "\x07", "\u202e", "\u202c", "\x9b")


async def raw_request(url: str, request: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Bytes sent as they are: an HTTP client refuses control characters in a header."""
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request)
    await writer.drain()
    return reader, writer


def hostile_request() -> bytes:
    body = json.dumps(
        {"type": FORGED, "data": {"id": FORGED, "payment": {"amount": "7.50", "currency": "BRL"}}}
    )
    return (
        b"POST / HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
        b"webhook-id: msg\x1b[1A\x07\xc2\x9b\r\n"  # ESC, BEL, and a C1 CSI (its UTF-8 bytes)
        + f"content-length: {len(body)}\r\n\r\n{body}".encode()
    )


async def test_a_hostile_unsigned_request_prints_escaped_and_marked_on_a_terminal() -> None:
    async with listening("--format", "text") as (process, url):
        reader, writer = await raw_request(url, hostile_request())
        assert (await asyncio.wait_for(reader.read(), BOUND)).startswith(b"HTTP/1.0 401")
        writer.close()
        assert process.stdout is not None
        raw = await asyncio.wait_for(process.stdout.readline(), BOUND)
        await stop(process)
    line = raw.decode().removesuffix("\n")
    assert [char for char in line if char in RAW_CONTROLS or char == "\n"] == []
    assert line.startswith("!! UNVERIFIED  ")
    assert line.endswith("  SIGNATURE INVALID (missing webhook-timestamp, webhook-signature)")
    forged = '"\\x1b[2K\\r15:07:01 \\x20RECEIVE \\x207.50 BRL \\x20id=5 \\x20msg_6_1 \\x20signature ok\\x07'
    assert f'{forged}\\u202ekrow\\u202c"' in line
    assert '"msg\\x1b[1A\\x07\xc2\\x9b"' in line  # header bytes are Latin-1 text: Â, then C1 CSI escaped


async def test_a_hostile_unsigned_request_is_a_json_line_with_nothing_raw() -> None:
    async with listening("--json") as (process, url):
        reader, writer = await raw_request(url, hostile_request())
        assert (await asyncio.wait_for(reader.read(), BOUND)).startswith(b"HTTP/1.0 401")
        writer.close()
        (line,) = await lines(process, 1)
        await stop(process)
    assert [char for char in line if char in RAW_CONTROLS] == []
    printed = json.loads(line)
    assert (printed["signature"], printed["webhookId"]) == ("invalid", "msg\x1b[1A\x07\xc2\x9b")
    assert printed["event"]["type"] == printed["event"]["data"]["id"] == FORGED


IDLE = b"POST / HTTP/1.1\r\nHost: x\r\ncontent-length: 100\r\n\r\n"  # and the 100 bytes never come


async def test_an_idle_connection_does_not_hold_up_a_delivery_sent_after_it() -> None:
    # A read timeout far longer than the test's bounds: the delivery is served beside the idle
    # connection, not after the listener has given up on it.
    async with listening("--json", "--read-timeout", "3600") as (process, url):
        _, idle = await raw_request(url, IDLE)
        body = encode_body(EVENT)
        headers = build_headers(
            msg_id="msg_9_5", timestamp=int(time.time()), body=body, secrets=[SECRET], custom={}
        )
        async with httpx.AsyncClient(timeout=BOUND) as http:
            response = await http.post(url, content=body, headers=headers)
        assert response.status_code == 204
        assert process.stdout is not None
        printed = json.loads(await asyncio.wait_for(process.stdout.readline(), BOUND))
        assert (printed["signature"], printed["webhookId"]) == ("ok", "msg_9_5")
        assert "Traceback" not in await stop(process)  # and Ctrl-C does not wait for the idle one
        idle.close()


async def test_a_connection_silent_past_the_read_timeout_is_answered_408() -> None:
    async with listening("--json", "--read-timeout", "0.5") as (process, url):
        reader, writer = await raw_request(url, IDLE)
        answer = await asyncio.wait_for(reader.read(), BOUND)
        writer.close()
        assert "Traceback" not in await stop(process)
    assert answer.startswith(b"HTTP/1.0 408")
