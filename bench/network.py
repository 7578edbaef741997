"""PIX between two institutions on the simulated network against PIX inside one institution,
measured in the same run.

``make network``'s launcher (``tools/network.py``) starts the network (``pixnet serve``) and two
institutions, A and B, on the PostgreSQL at ``--database-url``. Then, for ``--rounds`` rounds,
each case in turn:

* one institution: ``--count`` PIX of 0.01 from A's demo account to another account of A (a key
  of A: settled inside A by its settlement loop);
* two institutions: the same from A's demo account to B's demo key (A looks the key up in the
  DICT, sends a pacs.008 to the SPI, B accepts it, the SPI settles between the settlement
  accounts, A completes the transfer, B credits its account).

``--concurrency`` clients send the requests (``POST /dict/pix``, priority HIGH). Printed per run:
requests a second and their p50/p99 latency, and settled PIX a second from the first request to
the last PIX finished (COMPLETED at A; and, between institutions, credited at B); and the median
of each case over the rounds with their ratio.

    .venv/bin/python bench/network.py [--count 300] [--concurrency 16] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg
import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import free_port

from pixinfra.postgres.database import with_database

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DOCUMENT_A2 = "52998224725"


async def _run(env: dict[str, str], *args: str) -> str:
    process = await asyncio.create_subprocess_exec(
        *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} failed: {err.decode()[-2000:]}")
    return out.decode()


def _settings(path: Path) -> dict[str, str]:
    """A launcher's settings file (``KEY='value'`` lines) as an environment."""
    import shlex

    return dict(line.split("=", 1) for line in shlex.split(path.read_text(), posix=True))


async def _token(http: httpx.AsyncClient, folder: Path) -> dict[str, str]:
    headers = dict(
        line.split(": ", 1) for line in (folder / "token.headers").read_text().splitlines() if line
    )
    answer = await http.post("/api/auth/token", content=(folder / "token.json").read_bytes(), headers=headers)
    answer.raise_for_status()
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


async def _send(
    http: httpx.AsyncClient, auth: dict[str, str], payee: tuple[str, str], *, count: int, concurrency: int
) -> tuple[list[int], list[str], list[float]]:
    """``count`` PIX of 0.01 to ``payee`` (key, owner's document), ``concurrency`` at a time: the
    transfers' ids and end-to-end ids, and each request's latency."""
    key, document = payee
    ids: list[int] = []
    e2es: list[str] = []
    latencies: list[float] = []
    queue = iter(range(count))

    async def client() -> None:
        for _ in queue:
            body = {
                "pixKey": key,
                "payment": {"amount": 0.01},
                "priority": "HIGH",
                "creditorDocument": document,
            }
            started = time.perf_counter()
            answer = await http.post(
                "/dict/pix", json=body, headers=auth | {"x-idempotency-key": str(uuid.uuid4())}
            )
            latencies.append(time.perf_counter() - started)
            if answer.status_code != 201:
                raise SystemExit(f"a PIX was refused: {answer.status_code} {answer.text}")
            ids.append(answer.json()["id"])
            e2es.append(answer.json()["endToEndId"])

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return ids, e2es, latencies


COMPLETED = "SELECT count(*) FROM transfers WHERE transaction_id = ANY($1) AND state = 'COMPLETED'"
CREDITED = "SELECT count(*) FROM network_receipts WHERE end_to_end_id = ANY($1) AND state = 'CREDITED'"


async def _finished(url: str, ids: list[int] | list[str], sql: str, within: float = 300) -> None:
    connection = await asyncpg.connect(url)
    try:
        deadline = time.monotonic() + within
        while await connection.fetchval(sql, ids) < len(ids):
            if time.monotonic() > deadline:
                raise SystemExit(f"PIX still unfinished after {within:.0f} s")
            await asyncio.sleep(0.05)
    finally:
        await connection.close()


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Run = tuple[float, float, float, float]
"""Requests a second, their p50 and p99 (ms), PIX settled a second."""


async def _run_case(
    http: httpx.AsyncClient,
    auth: dict[str, str],
    payee: tuple[str, str],
    databases: tuple[str, str | None],
    args: argparse.Namespace,
) -> Run:
    payer_db, payee_db = databases
    started = time.perf_counter()
    ids, e2es, latencies = await _send(http, auth, payee, count=args.count, concurrency=args.concurrency)
    sent = time.perf_counter() - started
    await _finished(payer_db, ids, COMPLETED)
    if payee_db is not None:  # between institutions: credited at the payee too
        await _finished(payee_db, e2es, CREDITED)
    settled = time.perf_counter() - started
    return (
        args.count / sent,
        _quantile(latencies, 0.5) * 1000,
        _quantile(latencies, 0.99) * 1000,
        args.count / settled,
    )


async def _launch(
    args: argparse.Namespace, folder: Path, ports: tuple[int, int, int], prefix: str
) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))}
    env |= {"PIXNETWORK_DATABASE_URL": args.database_url, "PIXNETWORK_DATABASE_PREFIX": prefix}
    launcher = await asyncio.create_subprocess_exec(
        sys.executable, str(ROOT / "tools" / "network.py"), "--folder", str(folder),
        "--ports", ",".join(map(str, ports)), env=env, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert launcher.stdout is not None
    while not (line := (await launcher.stdout.readline()).decode()).startswith("ready"):
        if not line:
            raise SystemExit("the network's launcher stopped before it was ready")
    await _run(
        env | _settings(folder / "bank-a.env"), str(BIN / "pixweb"), "admin", "account", "create",
        "--name", "Bench A2", "--document", DOCUMENT_A2, "--key", "bench.a2@pix.example",
    )  # fmt: skip
    return launcher


async def _stop(launcher: asyncio.subprocess.Process, database_url: str, prefix: str) -> None:
    if launcher.returncode is None:
        launcher.send_signal(signal.SIGTERM)
    await launcher.wait()
    admin = await asyncpg.connect(with_database(database_url, "postgres"))
    try:
        for row in await admin.fetch("SELECT datname FROM pg_database WHERE datname LIKE $1", prefix + "%"):
            await admin.execute(f'DROP DATABASE IF EXISTS "{row["datname"]}" WITH (FORCE)')
    finally:
        await admin.close()


async def bench(args: argparse.Namespace) -> list[Figure]:
    prefix = f"pixbench_net_{os.getpid()}_{secrets.token_hex(3)}_"
    ports = (free_port(), free_port(), free_port())
    folder = Path(tempfile.mkdtemp(prefix="pixbench-network-")) / "net"
    launcher = await _launch(args, folder, ports, prefix)
    runs: dict[str, list[Run]] = {"one institution": [], "two institutions": []}
    try:
        a_db = with_database(args.database_url, prefix + "bank_a")
        cases = {
            "one institution": (("bench.a2@pix.example", DOCUMENT_A2), (a_db, None)),
            "two institutions": (
                (
                    json.loads((folder / "bank-b" / "demo" / "client.json").read_text())["keys"][0],
                    "12345678909",
                ),
                (a_db, with_database(args.database_url, prefix + "bank_b")),
            ),
        }
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[1]}", timeout=60) as http:
            auth = await _token(http, folder / "bank-a" / "demo")
            cash = {"pixKey": "demo.11111111@pix.example", "amount": 100000.0}
            (await http.post("/sandbox/payments", json=cash, headers=auth)).raise_for_status()
            for payee, _ in cases.values():  # both paths warmed
                await _send(http, auth, payee, count=20, concurrency=4)
            for round_ in range(args.rounds):
                for case, (payee, databases) in cases.items():
                    row = await _run_case(http, auth, payee, databases, args)
                    runs[case].append(row)
                    print(
                        f"round {round_ + 1}, {case}: {row[0]:.0f} requests/s"
                        f" (p50 {row[1]:.1f} ms, p99 {row[2]:.1f} ms), {row[3]:.0f} PIX settled/s",
                        flush=True,
                    )
    finally:
        await _stop(launcher, args.database_url, prefix)
    return _report(runs, args)


def _report(runs: dict[str, list[Run]], args: argparse.Namespace) -> list[Figure]:
    one = [statistics.median(r[i] for r in runs["one institution"]) for i in range(4)]
    two = [statistics.median(r[i] for r in runs["two institutions"]) for i in range(4)]
    print()
    print(f"{args.count} PIX of 0.01 a run, {args.concurrency} clients, medians of {args.rounds} rounds")
    print("| case | requests/s | p50 / p99 ms | PIX settled/s |")
    print("|---|---:|---:|---:|")
    for case, row in (("one institution", one), ("two institutions", two)):
        print(f"| {case} | {row[0]:.0f} | {row[1]:.1f} / {row[2]:.1f} | {row[3]:.0f} |")
    print(f"two institutions against one: {two[3] / one[3]:.2f} of the settled PIX a second")
    return [
        Figure("network", "PIX between two institutions, settled/s", two[3], "PIX/s", baseline=one[3]),
        Figure("network", "their requests, p99", two[2], "ms", baseline=one[2], higher_is_better=False),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300, help="PIX a run (default 300)")
    parser.add_argument("--concurrency", type=int, default=16, help="clients sending at once (default 16)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of both cases (default 2)")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("PIX_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    add_summary_option(parser)
    args = parser.parse_args()
    write_summary(args.summary, asyncio.run(bench(args)))


if __name__ == "__main__":
    main()
