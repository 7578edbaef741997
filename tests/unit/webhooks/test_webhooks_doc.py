"""docs/webhooks.md tells the truth: its Python receiver runs, and verifies (with the
``standardwebhooks`` library) a notification signed by the service's own code; its retry table is
the schedule the notifier uses."""

from __future__ import annotations

import http.server
import re
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from pixcore.webhooks.delivery import MAX_ATTEMPTS, encode_body
from pixcore.webhooks.rules import RETRY_SCHEDULE
from pixnotify.sender import build_headers

DOC = Path(__file__).parents[3] / "docs" / "webhooks.md"
SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
OLD = "whsec_" + "b3RoZXIta2V5LW9mLWFub3RoZXItYWNjb3VudC0x"
EVENT = {"type": "RECEIVE", "data": {"id": 5, "payment": {"amount": "7.50", "currency": "BRL"}}}


def python_example() -> str:
    (code,) = re.findall(r"### Python\n.*?```python\n(.*?)```", DOC.read_text(), flags=re.S)
    return str(code)


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The example's module, loaded as an import would (not as __main__, so it does not serve)."""
    monkeypatch.setenv("PIX_WEBHOOK_SECRET", SECRET)
    namespace: dict[str, Any] = {"__name__": "receiver"}
    exec(compile(python_example(), str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    return namespace


@pytest.fixture
def served(example: dict[str, Any]) -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), example["Receiver"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def signed(
    secrets: list[str], *, at: float | None = None, msg_id: str = "msg_6_1"
) -> tuple[bytes, list[tuple[str, str]]]:
    body = encode_body(EVENT)
    stamp = int(time.time() if at is None else at)
    return body, build_headers(msg_id=msg_id, timestamp=stamp, body=body, secrets=secrets, custom={})


def test_the_python_receiver_accepts_what_the_service_signs(
    example: dict[str, Any], served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    body, headers = signed([SECRET])
    assert httpx.post(served, content=body, headers=headers).status_code == 204
    assert httpx.post(served, content=body, headers=headers).status_code == 204  # a retry: handled once
    assert capsys.readouterr().out == "RECEIVE {'amount': '7.50', 'currency': 'BRL'}\n"
    assert example["seen"] == {"msg_6_1"}


def test_the_python_receiver_accepts_both_signatures_of_a_rotation(example: dict[str, Any]) -> None:
    body, headers = signed([OLD, SECRET])
    assert example["verified"](body, dict(headers)) == EVENT


def test_the_python_receiver_refuses_a_wrong_secret_a_changed_body_and_an_old_message(
    example: dict[str, Any], served: str
) -> None:
    body, headers = signed([OLD])
    assert httpx.post(served, content=body, headers=headers).status_code == 401
    body, headers = signed([SECRET])
    assert httpx.post(served, content=body.replace(b"7.50", b"750.00"), headers=headers).status_code == 401
    body, headers = signed([SECRET], at=time.time() - 3600)
    assert example["verified"](body, dict(headers)) is None


def test_the_retry_table_is_the_schedule() -> None:
    text = DOC.read_text()
    rows = re.findall(r"^\| (\d) \| (at once|\d+ (?:s|min|h)) \|$", text, flags=re.M)
    units = {"s": 1, "min": 60, "h": 3600}
    delays = [
        timedelta(0)
        if delay == "at once"
        else timedelta(seconds=int(delay.split()[0]) * units[delay.split()[1]])
        for _, delay in rows
    ]
    assert [int(n) for n, _ in rows] == list(range(1, MAX_ATTEMPTS + 1))
    assert tuple(delays) == RETRY_SCHEDULE
    minutes = int(sum(RETRY_SCHEDULE, timedelta()).total_seconds()) // 60
    assert f"({minutes // 60} h {minutes % 60} min after the first attempt" in text
