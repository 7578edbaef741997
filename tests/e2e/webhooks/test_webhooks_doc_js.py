"""docs/webhooks.md's JavaScript receiver runs: Node.js with the pinned ``standardwebhooks`` and
``express`` (docs/examples/javascript, installed with ``npm ci``) accepts a notification signed by
the service's own code and refuses a wrong secret and a changed body (as the Python example's test
does in tests/unit/webhooks/test_webhooks_doc.py)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.processes import stop_popen
from tests.unit.webhooks.test_webhooks_doc import DOC, OLD, SECRET, signed

EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "javascript"


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not on the PATH: the JavaScript receiver check needs Node 20 and npm")
    return found


def javascript_example() -> str:
    (code,) = re.findall(r"### JavaScript.*?```js\n(.*?)```", DOC.read_text(), flags=re.S)
    return str(code)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("js-receiver")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(EXAMPLE / name, work / name)
    subprocess.run(
        [tool("npm"), "ci", "--no-audit", "--no-fund"], cwd=work, check=True, capture_output=True, timeout=300
    )
    (work / "receiver.mjs").write_text(javascript_example())
    port = free_port()
    env = {**os.environ, "PIX_WEBHOOK_SECRET": SECRET, "PORT": str(port)}
    process = subprocess.Popen([tool("node"), "receiver.mjs"], cwd=work, env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, "the example exited"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the example did not listen"
                time.sleep(0.1)
        yield url
    finally:
        stop_popen(process, "the JavaScript receiver", within=10)


def test_the_javascript_receiver_accepts_what_the_service_signs(receiver: str) -> None:
    body, headers = signed([SECRET])
    assert httpx.post(receiver, content=body, headers=headers).status_code == 204
    body, headers = signed([OLD, SECRET], msg_id="msg_6_2")  # a rotation: either signature counts
    assert httpx.post(receiver, content=body, headers=headers).status_code == 204


def test_the_javascript_receiver_refuses_a_wrong_secret_and_a_changed_body(receiver: str) -> None:
    body, headers = signed([OLD])
    assert httpx.post(receiver, content=body, headers=headers).status_code == 401
    body, headers = signed([SECRET])
    assert httpx.post(receiver, content=body.replace(b"7.50", b"9.50"), headers=headers).status_code == 401
