"""The README's "Two institutions on one network" runs as written against ``make network``'s
launcher (``tools/network.py``): the network and both institutions started from nothing, a PIX
from A to B's key, both webhooks, both balances, the settlement accounts and their books."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import sys
from pathlib import Path

import asyncpg

from pixinfra.postgres.database import with_database
from tests.support.printed import json_values
from tests.support.processes import free_port

ROOT = Path(__file__).resolve().parents[3]
START = "NET=.pixnetwork A=http://127.0.0.1:8001 B=http://127.0.0.1:8002"


def section_script(folder: Path, ports: tuple[int, int, int]) -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Two institutions on one network") : readme.index("## The web console")]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2, "the network's walkthrough lost its shell blocks"
    script = "\n".join(blocks)
    assert START in script
    _, a, b = ports
    return "set -euo pipefail\n" + script.replace(
        START, f"NET={folder} A=http://127.0.0.1:{a} B=http://127.0.0.1:{b}"
    )


async def _drop(server: str, prefix: str) -> None:
    admin = await asyncpg.connect(with_database(server, "postgres"))
    try:
        names = await admin.fetch("SELECT datname FROM pg_database WHERE datname LIKE $1", prefix + "%")
        for row in names:
            await admin.execute(f'DROP DATABASE IF EXISTS "{row["datname"]}" WITH (FORCE)')
    finally:
        await admin.close()


async def test_the_readme_network_walkthrough_runs_as_written(database_server: str, tmp_path: Path) -> None:
    folder, workdir = tmp_path / "net", tmp_path / "work"
    workdir.mkdir()
    (workdir / ".venv").symlink_to(ROOT / ".venv")
    ports = (free_port(), free_port(), free_port())
    prefix = f"readme_net_{os.getpid()}_{secrets.token_hex(3)}_"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))}
    env |= {"PIXNETWORK_DATABASE_URL": database_server, "PIXNETWORK_DATABASE_PREFIX": prefix}
    launcher = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "tools" / "network.py"),
        "--folder",
        str(folder),
        "--ports",
        ",".join(map(str, ports)),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert launcher.stdout is not None
    try:
        told: list[str] = []
        async with asyncio.timeout(180):
            while not told or not told[-1].startswith("ready"):
                line = (await launcher.stdout.readline()).decode()
                assert line, "the launcher stopped before it was ready:\n" + "".join(told)
                told.append(line)
        assert any("institution A (ISPB 11111111)" in line for line in told)

        walk = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            section_script(folder, ports),
            cwd=workdir,
            env={k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # the walkthrough's listeners with it, to be stopped together
        )
        try:
            out, err = await asyncio.wait_for(walk.communicate(), timeout=120)
        except TimeoutError:
            os.killpg(walk.pid, signal.SIGKILL)
            await walk.wait()
            logs = {log.name: log.read_text() for log in folder.glob("listen-*.log")}
            raise AssertionError(
                f"the walkthrough did not finish in 120 s; the listeners said {logs}"
            ) from None
        assert walk.returncode == 0, err.decode()
    finally:
        if launcher.returncode is None:
            launcher.send_signal(signal.SIGTERM)
        stopped = await asyncio.wait_for(launcher.wait(), timeout=60)
        await _drop(database_server, prefix)
    assert stopped == 0
    printed = json_values(out.decode())
    funded, sent, *rest = printed
    assert len(funded["endToEndId"]) == 32
    assert (sent["type"], sent["payment"]) == ("PENDING", {"amount": 25.0})
    hooks = [value for value in rest if "receivedAt" in value]
    assert sorted((h["event"]["type"], h["signature"]) for h in hooks) == [
        ("RECEIVE", "ok"),
        ("TRANSFER", "ok"),
    ]
    assert {h["event"]["data"]["endToEndId"] for h in hooks} == {sent["endToEndId"]}
    balances = [
        value["data"][0]["balanceAmount"]["available"]
        for value in rest
        if "eventDate" in str(value.get("data"))
    ]
    assert balances == [75.0, 25.0]
    settlement = {value["ispb"]: value["balance"] for value in rest if set(value) == {"ispb", "balance"}}
    assert settlement == {"11111111": "999975.00", "22222222": "1000025.00"}
    (books,) = [value for value in rest if "held" in value]
    assert (books["ok"], books["held"], books["funded"]) == (True, 200_000_000, 200_000_000)
