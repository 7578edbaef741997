"""The README's tour runs as written, against a real server on a real port."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support import free_port, process_env, serving
from tests.support.printed import json_values

ROOT = Path(__file__).resolve().parents[3]
PIXWEB = Path(sys.executable).parent / "pixweb"


def tour_script(port: int) -> str:
    readme = (ROOT / "README.md").read_text()
    tour = readme[readme.index("## A five-minute tour") : readme.index("## Two institutions on one network")]
    blocks = re.findall(r"```sh\n(.*?)```", tour, flags=re.S)
    assert len(blocks) >= 4, "the tour lost its shell blocks"
    script = "\n".join(blocks)
    assert "BASE=http://127.0.0.1:8000" in script
    return "set -euo pipefail\n" + script.replace(
        "BASE=http://127.0.0.1:8000", f"BASE=http://127.0.0.1:{port}"
    )


@pytest.fixture
async def server(migrated_database: str, tmp_path: Path) -> AsyncIterator[tuple[int, dict[str, str]]]:
    port = free_port()
    # As `make run` has it (the README says so): webhooks to this machine allowed.
    env = process_env(migrated_database, tmp_path / "data", PIX_LOG_LEVEL="INFO", PIX_PORT=str(port))
    async with serving(env, port):
        yield port, env


async def test_the_readme_tour_runs_as_written(server: tuple[int, dict[str, str]], tmp_path: Path) -> None:
    port, env = server
    workdir = tmp_path / "tour"
    workdir.mkdir()
    (workdir / ".venv").symlink_to(ROOT / ".venv")
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        tour_script(port),
        cwd=workdir,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode()
    printed = json_values(out.decode())
    # The last two: the payment and the line `pixnotify listen` printed (into a pipe: JSON), in
    # either order (two processes write them).
    *before, last, received = printed
    if "receivedAt" in last:
        last, received = received, last
    (account, certificate, token, central, standard, receipt, key, transfer, after, *charge, refused) = before
    created, payment, paid = charge
    assert set(account) == {
        "accountId",
        "clientId",
        "clientSecret",
        "ispb",
        "branch",
        "number",
        "address",
        "keys",
    }
    assert account["keys"] == ["maria@example.com"]
    assert (workdir / ".tour" / "maria" / "client-cert.pem").is_file()
    assert certificate["accountId"] == account["accountId"]
    assert token["token_type"] == "Bearer"
    assert token["expires_in"] == 1800
    assert central["data"][0]["balanceAmount"] == {"available": 0, "blocked": 0, "overdraft": 0}
    assert set(standard) == {"grossBalance", "blockedBalance", "netBalance", "consultedAt"}
    assert len(receipt["endToEndId"]) == 32
    assert key["pixKey"] == "joao@otherbank.example"
    assert transfer["type"] == "PENDING"
    assert transfer["payment"] == {"amount": 25.5}
    assert after["netBalance"] == 74.5
    assert created["status"] == "ATIVA"
    assert created["valor"] == {"original": "12.00", "modalidadeAlteracao": 0}
    assert created["location"].startswith("000201010212")
    assert len(payment["endToEndId"]) == 32
    assert paid["status"] == "CONCLUIDA"
    assert [(p["endToEndId"], p["valor"], p["devolucoes"]) for p in paid["pix"]] == [
        (payment["endToEndId"], "12.00", [])
    ]
    assert refused == {
        "statusCode": 401,
        "message": "A bearer token is required (Authorization: Bearer <token>).",
        "error": "Unauthorized",
    }
    # The webhook, received on this machine: signed with the account's secret, for the payment made.
    # What `pixnotify listen --account` told on stderr, which the tour prints at its end.
    told = out.decode().splitlines()[-4:]
    hook = told[2].split()[2]
    assert hook.startswith("http://127.0.0.1:")
    registered, ids = told[0].rsplit(": webhooks ", 1)
    assert registered == f"registered {hook} for cash_in of account {account['accountId']}"
    assert ids.isdigit()
    assert told[1].startswith("signing secret: whsec_")
    assert told[2:] == [f"listening on {hook} (Ctrl-C stops)", f"removed webhooks {ids}"]
    assert (received["signature"], received["status"]) == ("ok", 204)
    assert received["event"]["type"] == "RECEIVE"
    assert received["event"]["data"]["payment"] == {"amount": "7.50", "currency": "BRL"}
    assert received["event"]["data"]["endToEndId"] == last["endToEndId"]
    # Every file the tour wrote is in .tour (the project folder gets nothing else), and git ignores it.
    assert sorted(p.name for p in workdir.iterdir()) == [".tour", ".venv"]
    written = sorted(str(p.relative_to(workdir)) for p in (workdir / ".tour").rglob("*") if p.is_file())
    assert written == [
        ".tour/cob.json",
        ".tour/listen.log",
        ".tour/maria/client-cert.pem",
        ".tour/maria/client-key.pem",
        ".tour/token.json",
    ]
    for path in written:
        git = await asyncio.create_subprocess_exec(
            "git", "check-ignore", "--quiet", "--no-index", path, cwd=ROOT
        )
        assert await git.wait() == 0, f"{path} is not ignored by .gitignore"
