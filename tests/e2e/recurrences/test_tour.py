"""docs/recurring.md's curl tour, run as it stands: its ``sh`` blocks of the HTTP section, in
order, as one bash script against a service of the test's own (``pixweb serve``, its settlement
loop on), with the README tour's ``$BASE``, ``$TOKEN`` and ``$ACCOUNT``. Each output line the page
shows (a comment right after a command) is compared with what the command printed, ``…``
standing for any text."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

import httpx
import pytest

from tests.faults.processes import ApiProcess, run_cli, service_env
from tests.support import certificate_header, random_cnpj

pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[3] / "docs" / "recurring.md"


def tour_blocks(page: str) -> list[str]:
    """The ``sh`` blocks after the page's ``## The HTTP API`` heading."""
    section = page.split("\n## The HTTP API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```sh\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)


def shown_outputs(blocks: list[str]) -> list[str]:
    """What the page shows a command prints: the comment lines right after a command (a comment
    after a blank line, or first in a block, is prose)."""
    shown: list[str] = []
    for block in blocks:
        after_command = False
        for line in block.splitlines():
            if line.startswith("# ") and after_command:
                shown.append(line[2:])
            else:
                after_command = bool(line.strip()) and not line.startswith("#")
    return shown


def matches(shown: str, printed: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in shown.split("…"))
    return re.fullmatch(pattern, printed) is not None


def test_the_page_shows_a_tour_with_its_outputs() -> None:
    blocks = tour_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    assert len(shown_outputs(blocks)) >= 5
    assert shown_outputs(["# prose\ncurl x\n# {}\n# []\n\n# prose\ncurl y\n"]) == ["{}", "[]"]
    assert matches('{"a":"…","b":1}', '{"a":"RR12","b":1}')
    assert not matches('{"a":"…","b":1}', '{"a":"RR12","b":2}')


async def test_the_curl_tour_runs_as_the_page_shows_it(own_database: str, tmp_path: Path) -> None:
    assert shutil.which("curl"), "the tour uses curl"
    env = service_env(own_database, tmp_path / "data")
    await run_cli(env, "pixweb", "migrate")
    account = await run_cli(
        env, "pixweb", "admin", "account", "create", "--name", "Streaming SA", "--document", random_cnpj()
    )
    certs = tmp_path / "cert"
    await run_cli(
        env, "pixweb", "admin", "cert", "create", "--account", str(account["accountId"]), "--out", str(certs)
    )
    api = ApiProcess("api-tour", env, tmp_path / "api.log")
    await api.start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            issued = await http.post(
                f"{api.url}/api/auth/token",
                json={"clientId": account["clientId"], "clientSecret": account["clientSecret"]},
                headers={"X-SSL-Client-Cert": certificate_header((certs / "client-cert.pem").read_bytes())},
            )
        assert issued.status_code == 201, issued.text
        blocks = tour_blocks(PAGE.read_text(encoding="utf-8"))
        tour = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            "set -euo pipefail\n" + "\n".join(blocks),
            env={
                "PATH": os.environ["PATH"],
                "BASE": api.url,
                "TOKEN": issued.json()["access_token"],
                "ACCOUNT": json.dumps(account),
            },
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(240):
            out, err = await tour.communicate()
    finally:
        await api.stop()
    stdout = out.decode()
    assert tour.returncode == 0, f"{err.decode()}\n{stdout}\n{api.log_tail()}"
    printed = [line for line in stdout.splitlines() if line.strip()]
    shown = shown_outputs(blocks)
    assert len(printed) == len(shown), f"printed:\n{stdout}\nshown:\n" + "\n".join(shown)
    for expected, actual in zip(shown, printed, strict=True):
        assert matches(expected, actual), f"the page shows {expected}, the command printed {actual}"
