"""Webhook deliveries per second from one notifier process, against a plain httpx loop; and latency.

What is measured:

* Throughput. ``pixnotify run`` runs as a subprocess (``--concurrency N``, default 16) against a
  fresh database with one account, its secret and one registration pointing at a local receiver.
  This process commits ``--events`` outbox events (default 10,000) in one transaction; the clock
  runs from that commit until the receiver has had every one of them (fan-out, claims, signing,
  the POSTs and the stored outcomes all happen in between). Then the baseline: a plain
  ``httpx.AsyncClient`` in this process, N tasks, posting the same bodies (the bytes the notifier
  sent, with a content type and nothing else) to the same receiver, timed from first to last,
  once before and once after the notifier's run (the notifier idles meanwhile). The ratio is
  notifier / mean of the two baselines; the target is at least 0.8. CPU per delivery
  is printed for each run (notifier, receiver, this process, the bench database's PostgreSQL
  backends, other work on the machine): a large "other" means the machine was busy.
* Latency. With the notifier idle, this process commits one event every 10 ms (100 events/s,
  each its own transaction) for ``--latency-seconds`` (default 10); the latency of an event is
  the time from its commit returning to its arrival at the receiver (one clock: both are on this
  machine). Target: p99 under 150 ms.

The receiver is a minimal HTTP/1.1 server (asyncio protocol, keep-alive, answers 204) in a
process of its own, so that neither side of the comparison pays for it. Every run uses a fresh
database ``pixbench_<random>`` on the server of ``--database-url`` (or, with ``--embedded``, a
throw-away embedded server), dropped at the end.

    .venv/bin/python bench/webhooks.py [--events 10000] [--concurrency 16] [--embedded]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import secrets
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import uvloop
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import add_database_options, bench_database, child, cpu_seconds, free_port, postgres_server

from pixcore.webhooks.delivery import encode_body
from pixinfra.postgres.database import database_name

TARGET_RATIO = 0.8
TARGET_P99_MS = 150.0
PIXNOTIFY = Path(sys.executable).parent / "pixnotify"


def event(n: int) -> dict[str, Any]:
    """A TRANSFER notification as the service writes it (about 500 bytes)."""
    return {
        "type": "TRANSFER",
        "data": {
            "id": n,
            "txId": None,
            "pixKey": "bench-receiver@external.example",
            "status": "LIQUIDATED",
            "payment": {"amount": "0.01", "currency": "BRL"},
            "endToEndId": f"E99999999202611221200{n:011d}",
            "creditDebitType": "DEBIT",
            "idempotencyKey": f"6f1c2f0e-bench-{n:012d}",
            "creditorAccount": {"name": "Bench Receiver", "document": "***.444.777-**", "ispb": "12345678"},
            "remittanceInformation": "bench",
        },
    }


# ------------------------------------------------------------------------------------ measuring


class CpuMeter:
    """CPU seconds (Linux /proc) of the notifier, the receiver, this process, the PostgreSQL
    backends of the bench database (told by their process title), and the whole machine."""

    def __init__(self, database: str) -> None:
        self.title = f" {database} ".encode()
        self.hertz = os.sysconf("SC_CLK_TCK")
        self.pids: dict[str, int] = {}

    def sample(self) -> dict[str, float]:
        try:
            ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
            found = {name: cpu_seconds(pid) for name, pid in self.pids.items()}
        except (OSError, ValueError, IndexError):
            return {}
        own = os.times()
        found["bench"] = own.user + own.system
        found["postgres"] = 0.0
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    if self.title in Path(entry.path, "cmdline").read_bytes():
                        found["postgres"] += cpu_seconds(int(entry.name))
        found["machine"] = (sum(ticks[:3]) + ticks[5] + ticks[6]) / self.hertz
        return found

    @staticmethod
    def per_item(before: dict[str, float], after: dict[str, float], items: int) -> str:
        """CPU ms per item, by party (backends that ended meanwhile are not counted)."""
        if not before or not after:
            return "CPU figures need Linux"
        spent = {name: after[name] - before.get(name, 0.0) for name in after}
        spent["other"] = spent["machine"] - sum(v for k, v in spent.items() if k != "machine")
        cells = ", ".join(f"{name} {seconds * 1000 / items:.2f}" for name, seconds in spent.items())
        return f"CPU ms per delivery: {cells}"


# ------------------------------------------------------------------------------------ the receiver

RESPONSE = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"


class Receiving(asyncio.Protocol):
    """HTTP/1.1 with keep-alive: records (webhook-id or a counter, arrival time) and answers 204.
    ``GET /stats`` answers the records as JSON; ``POST /reset`` forgets them."""

    arrivals: dict[str, float] = {}  # noqa: RUF012 - one table per receiver process
    counter = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].lower()
            length, msg_id = 0, b""
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name == b"content-length":
                    length = int(value)
                elif name == b"webhook-id":
                    msg_id = value.strip()
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            if head.startswith(b"get /stats"):
                body = json.dumps(Receiving.arrivals).encode()
                self.transport.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
                continue
            if head.startswith(b"post /reset"):
                Receiving.arrivals = {}
            else:
                Receiving.counter += 1
                Receiving.arrivals[msg_id.decode() or f"plain-{Receiving.counter}"] = time.time()
            self.transport.write(RESPONSE)


def serve_receiver(port: int) -> None:
    async def serve() -> None:
        server = await asyncio.get_running_loop().create_server(Receiving, "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(serve())


async def stats(http: httpx.AsyncClient) -> dict[str, float]:
    response = await http.get("/stats")
    response.raise_for_status()
    arrivals: dict[str, float] = response.json()
    return arrivals


async def wait_for_receipts(http: httpx.AsyncClient, wanted: set[str], within: float) -> dict[str, float]:
    """The arrivals, once every id of ``wanted`` has arrived (checked every 50 ms)."""
    deadline = time.monotonic() + within
    while True:
        arrivals = await stats(http)
        if wanted <= arrivals.keys():
            return arrivals
        if time.monotonic() > deadline:
            missing = len(wanted - arrivals.keys())
            raise SystemExit(f"{missing} of {len(wanted)} deliveries did not arrive within {within:g} s")
        await asyncio.sleep(0.05)


# ------------------------------------------------------------------------------------ the database


async def prepare(db_url: str, receiver_url: str) -> int:
    """One account with a secret and one cash_out registration; returns the account id."""
    conn = await asyncpg.connect(db_url)
    try:
        account: int = await conn.fetchval(
            """INSERT INTO accounts (ispb, branch, number, name, document, city)
               VALUES ('99999999', '0001', '00000001', 'Bench', '12345678909', 'RECIFE') RETURNING id"""
        )
        await conn.execute("INSERT INTO balances (account_id) VALUES ($1)", account)
        secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
        await conn.execute(
            "INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES ($1, $2, now())",
            account,
            secret,
        )
        await conn.execute(
            """INSERT INTO webhooks (account_id, event_type, url, created_at, updated_at)
               VALUES ($1, 'cash_out', $2, now(), now())""",
            account,
            receiver_url,
        )
        return account
    finally:
        await conn.close()


async def queue(conn: asyncpg.Connection[Any], account: int, first: int, count: int) -> list[int]:
    """Commit ``count`` events in one transaction; their outbox ids."""
    async with conn.transaction():
        rows = await conn.fetch(
            """INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
               SELECT $1, 'TRANSFER', 'cash_out', p::jsonb, now() FROM unnest($2::text[]) AS p
               RETURNING id""",
            account,
            [json.dumps(event(n)) for n in range(first, first + count)],
        )
    return [row["id"] for row in rows]


def message_ids(outbox_ids: list[int], webhook_id: int) -> set[str]:
    return {f"msg_{outbox_id}_{webhook_id}" for outbox_id in outbox_ids}


# ------------------------------------------------------------------------------------ the runs


async def notifier_run(
    db_url: str, http: httpx.AsyncClient, account: int, meter: CpuMeter, args: argparse.Namespace
) -> float:
    """Deliveries per second of the notifier for ``args.events`` events queued at once."""
    conn = await asyncpg.connect(db_url)
    try:
        webhook_id = await conn.fetchval("SELECT id FROM webhooks WHERE account_id = $1", account)
        await http.post("/reset")
        before = meter.sample()
        ids = await queue(conn, account, 0, args.events)
        committed = time.time()
        arrivals = await wait_for_receipts(http, message_ids(ids, webhook_id), within=600)
        print(CpuMeter.per_item(before, meter.sample(), args.events))
        rate = args.events / (max(arrivals.values()) - committed)
        stored = await conn.fetchval("SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'")
        print(f"notifier: {args.events:,} events, {rate:,.0f} deliveries/s ({stored:,} stored as delivered)")
        return rate
    finally:
        await conn.close()


async def baseline_run(
    receiver_url: str, http: httpx.AsyncClient, meter: CpuMeter, args: argparse.Namespace
) -> float:
    """The same bodies posted by a plain httpx loop with the same concurrency."""
    bodies = [encode_body(event(n)) for n in range(args.events)]
    await http.post("/reset")
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    headers = {"content-type": "application/json"}
    async with httpx.AsyncClient(limits=limits, timeout=15, trust_env=False) as client:
        next_body = iter(bodies)
        failures = 0

        async def poster() -> None:
            nonlocal failures
            for body in next_body:
                response = await client.post(receiver_url, content=body, headers=headers)
                failures += not response.is_success

        before = meter.sample()
        began = time.monotonic()
        await asyncio.gather(*(poster() for _ in range(args.concurrency)))
        elapsed = time.monotonic() - began
        print(CpuMeter.per_item(before, meter.sample(), args.events))
    rate = args.events / elapsed
    print(f"baseline: {args.events:,} posts, {rate:,.0f} /s ({failures} failures)")
    return rate


async def latency_run(
    db_url: str, http: httpx.AsyncClient, account: int, args: argparse.Namespace
) -> list[float]:
    """Milliseconds from each event's commit to its arrival, at ``args.rate`` events per second."""
    conn = await asyncpg.connect(db_url)
    try:
        webhook_id = await conn.fetchval("SELECT id FROM webhooks WHERE account_id = $1", account)
        await http.post("/reset")
        committed: dict[str, float] = {}
        count = int(args.latency_seconds * args.rate)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for n in range(count):
            await asyncio.sleep(max(0.0, start + n / args.rate - loop.time()))
            (outbox_id,) = await queue(conn, account, 1_000_000 + n, 1)
            committed[f"msg_{outbox_id}_{webhook_id}"] = time.time()
        arrivals = await wait_for_receipts(http, set(committed), within=60)
        return [(arrivals[msg] - at) * 1000 for msg, at in committed.items()]
    finally:
        await conn.close()


def percentile(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


async def measure(
    db_url: str, receiver_url: str, folder: Path, meter: CpuMeter, args: argparse.Namespace
) -> None:
    async with httpx.AsyncClient(
        base_url=receiver_url.rsplit("/", 1)[0], timeout=30, trust_env=False
    ) as http:
        deadline = time.monotonic() + 20
        while True:  # the receiver is up
            try:
                await stats(http)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)
        account = await prepare(db_url, receiver_url)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIX_")} | {
            "PIX_DATABASE_URL": db_url,
            "PIX_DATA_DIR": str(folder),
            "PIX_WEBHOOK_ALLOW_PRIVATE": "on",
            "PIX_LOG_LEVEL": "WARNING",
        }
        command = [
            str(PIXNOTIFY),
            "run",
            f"--concurrency={args.concurrency}",
            f"--batch-size={args.batch_size}",
        ]
        with child(command, env, folder / "notifier.log", stop=signal.SIGTERM) as process:
            meter.pids["notifier"] = process.pid
            # Warm-up (not counted): the process is up, its pool and connections open.
            conn = await asyncpg.connect(db_url)
            webhook_id = await conn.fetchval("SELECT id FROM webhooks WHERE account_id = $1", account)
            warm = await queue(conn, account, 10_000_000, 200)
            await conn.close()
            await wait_for_receipts(http, message_ids(warm, webhook_id), within=60)
            # Baseline before and after (the notifier idles meanwhile, polling): other work on the
            # machine shows as a difference between the two.
            before = await baseline_run(receiver_url, http, meter, args)
            notifier = await notifier_run(db_url, http, account, meter, args)
            after = await baseline_run(receiver_url, http, meter, args)
            latencies = await latency_run(db_url, http, account, args)
    baseline = (before + after) / 2
    ratio = notifier / baseline
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    print("\n| concurrency | notifier deliveries/s | baseline posts/s (mean of 2) | ratio | target |")
    print("|---:|---:|---:|---:|---|")
    verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
    cells = f"{args.concurrency} | {notifier:,.0f} | {baseline:,.0f} | {ratio:.2f}"
    print(f"| {cells} | >= {TARGET_RATIO}: {verdict} |")
    write_summary(
        args.summary,
        [
            Figure(
                "webhooks",
                f"deliveries/s, concurrency {args.concurrency}",
                notifier,
                "deliveries/s",
                baseline=baseline,
                target=f"ratio >= {TARGET_RATIO}",
                met=ratio >= TARGET_RATIO,
            ),
            Figure(
                "webhooks",
                f"commit -> received p99 at {args.rate:g}/s",
                p99,
                "ms",
                higher_is_better=False,
                target=f"< {TARGET_P99_MS:g} ms",
                met=p99 < TARGET_P99_MS,
            ),
        ],
    )
    verdict = "met" if p99 < TARGET_P99_MS else "MISSED"
    print(
        f"\nlatency at {args.rate:g} events/s, {len(latencies)} events, commit -> received:"
        f" p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms"
        f" (target p99 < {TARGET_P99_MS:g} ms: {verdict})"
    )


# ------------------------------------------------------------------------------------ set-up


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=10_000, help="events queued for the throughput run")
    parser.add_argument("--concurrency", type=int, default=16, help="deliveries in flight (both runs)")
    parser.add_argument("--batch-size", type=int, default=100, help="the notifier's --batch-size")
    parser.add_argument("--rate", type=float, default=100.0, help="events per second in the latency run")
    parser.add_argument("--latency-seconds", type=float, default=10.0, help="length of the latency run")
    parser.add_argument("--asyncio", action="store_true", help="baseline on asyncio's loop, not uvloop")
    parser.add_argument("--receiver", type=int, help=argparse.SUPPRESS)  # internal: serve on this port
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    if args.receiver:
        serve_receiver(args.receiver)
        return
    # A SIGTERM unwinds like Ctrl-C: the server stops, the database goes.
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pixbench-")))
        server_url = stack.enter_context(postgres_server(args, folder))
        db_url = stack.enter_context(bench_database(server_url, migrated_in=folder))
        port = free_port()
        receiver_command = [sys.executable, __file__, f"--receiver={port}"]
        receiver_log = folder / "receiver.log"
        receiver = stack.enter_context(child(receiver_command, None, receiver_log, stop=signal.SIGTERM))
        meter = CpuMeter(database_name(db_url))
        meter.pids["receiver"] = receiver.pid
        work = measure(db_url, f"http://127.0.0.1:{port}/hook", folder, meter, args)
        if args.asyncio:
            asyncio.run(work)
        else:  # the event loop `pixnotify run` uses: the baseline runs on it too
            with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                runner.run(work)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
