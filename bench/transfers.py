"""Transfers per second through ``POST /dict/pix`` on one hot account, against a direct asyncpg floor.

What is measured, for each client count N (``--clients``, default 16 and 64):

* API: ``pixweb serve --no-demo`` runs as a subprocess (one uvicorn process,
  settlement workers off so that nothing else competes). N asyncio tasks, each
  with its own ``httpx.AsyncClient`` and keep-alive connection, send transfers
  of 0.01 from the same account to one external key, back to back, for
  ``--duration`` seconds after ``--warmup`` seconds that are not counted.
  (``--shared-client``: one client with a pool of N connections for all the
  tasks instead. httpcore examines every pooled connection on every request,
  so at 64 connections the load generator then takes much of the CPU that
  the server needs.)
  Throughput counts the 201 answers; latency (p50, p99) is that of the 201s as
  the client saw it. Any other answer is counted and reported.
* Baseline: the same work with no HTTP and no framework, in this process: a
  pool of N asyncpg connections and N tasks, each transfer one transaction of
  INSERT transactions, INSERT idempotency_keys, INSERT transfers, the guarded
  ``UPDATE balances SET available = available - $1, blocked = blocked + $1
  WHERE account_id = $2 AND available >= $1`` and one INSERT of the two ledger
  entries. It runs on a second funded account, after the API run of the same
  N, so the two never contend for one row lock.

Each sending account is hot: every transfer takes its one balance row lock, so
throughput is bound by how long a transaction holds it. The target (issue 4)
is an API/baseline throughput ratio of at least 0.5 at 16 clients. The CPU
table tells where the machine's time went in each run, per transfer: the API
server process, this process (the load generator; in the baseline, the
baseline itself), the PostgreSQL backends of the bench database, and the
rest of the machine. The load generator shares the machine with the server
and PostgreSQL, so on a small machine it takes from both; the line "machine
busy before the runs" warns when other work was running too.

Every run uses a fresh database ``pixbench_<random>`` on the server of
``--database-url`` (or, with ``--embedded``, a throw-away embedded server in
a temporary folder), dropped at the end, also on an error or Ctrl-C. The
ledger check runs on it before the drop.

    .venv/bin/python bench/transfers.py [--duration 10] [--clients 16,64] [--embedded]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
import signal
import statistics
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from urllib.parse import quote

import asyncpg
import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import add_database_options, api_server, bench_database, postgres_server

from pixcore.clock import SystemClock
from pixcore.identifiers import new_end_to_end_id
from pixcore.usecases import link_certificate, open_account
from pixinfra.postgres.database import database_name
from pixinfra.runtime import database_ready
from pixinfra.settings import Settings
from pixweb.persistence.ledger_check import check_ledger
from pixweb.persistence.uow import PostgresUnitOfWork
from pixweb.security.certificates import create_self_signed
from pixweb.security.secrets import Argon2Hasher

TARGET_RATIO = 0.5
TARGET_CLIENTS = 16
ISPB = "99999999"
SENDER_DOCUMENTS = ("12345678909", "98765432100")  # valid CPFs: API sender, baseline sender
FUNDS = "1000000.00"  # per sending account: 100 million transfers of 0.01
AMOUNT = 0.01
AMOUNT_CENTS = 1
NORM_DELAY = timedelta(seconds=2)  # the service's default; settlement is off anyway
EXPIRATION = timedelta(seconds=86_400)  # the spec's default expiration

# The receiving side: one key of another bank, added with POST /sandbox/dict.
RECEIVER = {
    "pixKey": "bench-receiver@external.example",
    "ispb": "12345678",
    "name": "Bench Receiver",
    "document": "11144477735",
    "bankName": "OTHER BANK",
    "branch": "0001",
    "accountNumber": "123",
    "behavior": "settle",
}


# ------------------------------------------------------------------------------------ measuring


@dataclass
class Run:
    """One timed run: what the clients saw, and the CPU the machine spent meanwhile."""

    latencies: list[float] = field(default_factory=list)  # seconds, successes only
    failures: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds: server, bench, postgres, other

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    def ms(self, percentile: int) -> float:
        if len(self.latencies) < 2:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[percentile - 1] * 1000


@dataclass(frozen=True)
class CpuSample:
    busy: float  # CPU seconds the whole machine spent since boot (not idle, iowait or steal)
    server: float  # the API server process
    bench: float  # this process
    backends: dict[int, float]  # PostgreSQL backends of the bench database, by pid


class CpuMeter:
    """CPU seconds of the machine and of the parties of a run, from Linux's /proc.

    PostgreSQL backends are told by their process title, which names the
    database; the shared background processes (WAL writer, checkpointer) and
    anything else on the machine are "other".
    """

    def __init__(self, server_pid: int, database: str) -> None:
        self.server_pid = server_pid
        self.title = f" {database} ".encode()
        self.hertz = os.sysconf("SC_CLK_TCK")

    def _process(self, pid: int) -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.hertz  # utime + stime

    def _backends(self) -> dict[int, float]:
        found = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    if self.title in Path(entry.path, "cmdline").read_bytes():
                        found[int(entry.name)] = self._process(int(entry.name))
        return found

    def sample(self) -> CpuSample | None:
        try:
            ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
            server = self._process(self.server_pid)
        except (OSError, ValueError, IndexError):
            return None  # not Linux: no CPU figures
        own = os.times()
        busy = (sum(ticks[:3]) + ticks[5] + ticks[6]) / self.hertz  # user nice system irq softirq
        return CpuSample(busy, server, own.user + own.system, self._backends())

    @staticmethod
    def spent(before: CpuSample | None, after: CpuSample | None) -> dict[str, float]:
        """CPU seconds between two samples: server, bench, postgres (our backends), other."""
        if before is None or after is None:
            return {}
        postgres = sum(seconds - before.backends.get(pid, 0.0) for pid, seconds in after.backends.items())
        server, bench = after.server - before.server, after.bench - before.bench
        other = max(0.0, after.busy - before.busy - server - bench - postgres)
        return {"server": server, "bench": bench, "postgres": postgres, "other": other}


async def drive(
    clients: int,
    one: Callable[[int], Awaitable[str | None]],
    run: Run,
    meter: CpuMeter,
    args: argparse.Namespace,
) -> None:
    """Task i of ``clients`` awaits ``one(i)`` back to back: None for a success, else a failure's name.

    Calls started during the warm-up are not recorded, none starts after the
    end. ``run.elapsed`` and ``run.cpu`` cover the end of the warm-up until
    the last call returns.
    """
    loop = asyncio.get_running_loop()
    start = loop.time() + args.warmup
    stop = start + args.duration
    before: list[CpuSample | None] = []
    loop.call_at(start, lambda: before.append(meter.sample()))

    async def client(task: int) -> None:
        while (began := loop.time()) < stop:
            outcome = await one(task)
            if began < start:
                continue
            if outcome is None:
                run.latencies.append(loop.time() - began)
            else:
                run.failures[outcome] += 1

    await asyncio.gather(*(client(task) for task in range(clients)))
    run.elapsed = loop.time() - start
    run.cpu = meter.spent(before[0], meter.sample())


# ------------------------------------------------------------------------------------ the API


@dataclass(frozen=True)
class Sender:
    """A sending account, as its API client knows it."""

    account_id: int
    client_id: str
    client_secret: str
    cert_header: str
    key: str


async def open_senders(url: str, data_dir: Path) -> list[Sender]:
    """Migrate the fresh database; open the two sending accounts, each with a key and a certificate."""
    senders = []
    async with database_ready(Settings(database_url=url, data_dir=data_dir), pool_size=2) as database:
        for n, document in enumerate(SENDER_DOCUMENTS, start=1):
            opened = await open_account(
                partial(PostgresUnitOfWork, database),
                Argon2Hasher(),
                ispb=ISPB,
                name=f"Bench Sender {n}",
                document=document,
                city="RECIFE",
            )
            _, cert_pem, info = create_self_signed(f"bench-{opened.account.id}")
            await link_certificate(
                partial(PostgresUnitOfWork, database),
                account_id=opened.account.id,
                certificate=info,
                clock=SystemClock(),
            )
            senders.append(
                Sender(
                    account_id=opened.account.id,
                    client_id=opened.client_id,
                    client_secret=opened.client_secret,
                    cert_header=quote(cert_pem.decode(), safe=""),
                    key=opened.keys[0].value,
                )
            )
    return senders


async def prepare_api(http: httpx.AsyncClient, senders: list[Sender]) -> dict[str, str]:
    """Fund both senders through the sandbox, add the receiving key; the API sender's auth header."""
    headers = {}
    for sender in senders:
        response = await http.post(
            "/api/auth/token",
            json={"clientId": sender.client_id, "clientSecret": sender.client_secret},
            headers={"X-SSL-Client-Cert": sender.cert_header},
        )
        response.raise_for_status()
        auth = {"Authorization": f"Bearer {response.json()['access_token']}"}
        paid = await http.post(
            "/sandbox/payments", json={"pixKey": sender.key, "amount": FUNDS}, headers=auth
        )
        paid.raise_for_status()
        headers[sender.client_id] = auth
    api_auth = headers[senders[0].client_id]
    (await http.post("/sandbox/dict", json=RECEIVER, headers=api_auth)).raise_for_status()
    return api_auth


async def run_api(
    base_url: str, auth: dict[str, str], clients: int, *, run: Run, meter: CpuMeter, args: argparse.Namespace
) -> None:
    body = {"pixKey": RECEIVER["pixKey"], "payment": {"currency": "BRL", "amount": AMOUNT}}
    async with contextlib.AsyncExitStack() as stack:
        if args.shared_client:
            limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
            shared = httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60)
            https = [await stack.enter_async_context(shared)] * clients
        else:
            # One connection per task: httpcore's pool examines every connection on every request.
            limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
            https = [
                await stack.enter_async_context(
                    httpx.AsyncClient(base_url=base_url, limits=limits, timeout=60)
                )
                for _ in range(clients)
            ]

        async def one(task: int) -> str | None:
            headers = auth | {"x-idempotency-key": str(uuid.uuid4())}
            try:
                response = await https[task].post("/dict/pix", json=body, headers=headers)
            except httpx.HTTPError as exc:
                return type(exc).__name__
            return None if response.status_code == 201 else str(response.status_code)

        await drive(clients, one, run, meter, args)


# ------------------------------------------------------------------------------------ the baseline

INSERT_TRANSACTION = """
INSERT INTO transactions (account_id, type, status, amount, external_id, end_to_end_id, pix_key,
    counterpart_name, counterpart_document, counterpart_ispb, counterpart_bank, counterpart_branch,
    counterpart_account, created_at, updated_at)
VALUES ($1, 'WITHDRAW', 'PENDING', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
RETURNING id
"""
INSERT_KEY = """
INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
VALUES ($1, $2, $3, $4, $5)
"""
INSERT_TRANSFER = """
INSERT INTO transfers (transaction_id, account_id, idempotency_key, state, priority, pix_key, amount,
    end_to_end_id, creditor_name, creditor_document, creditor_ispb, behavior, settle_after, deadline,
    created_at)
VALUES ($1, $2, $3, 'PENDING', 'NORM', $4, $5, $6, $7, $8, $9, 'settle', $10, $11, $12)
"""
RESERVE = """
UPDATE balances SET available = available - $1, blocked = blocked + $1
 WHERE account_id = $2 AND available >= $1
"""
INSERT_ENTRIES = """
INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at)
VALUES ($1, 'reserve', $2, 'available', -$3::bigint, $4), ($1, 'reserve', $2, 'blocked', $3, $4)
"""


class Overdrawn(Exception):
    """The guarded update matched no row: roll the transfer back."""


async def baseline_transfer(conn: asyncpg.Connection, account_id: int) -> None:
    """One transfer's reservation, as directly as it can be written: one transaction, six statements."""
    key, now = uuid.uuid4(), datetime.now(UTC)
    e2e = new_end_to_end_id(ISPB, now)
    r = RECEIVER
    async with conn.transaction():
        transaction_id = await conn.fetchval(
            INSERT_TRANSACTION,
            account_id,
            AMOUNT_CENTS,
            str(key),
            e2e,
            r["pixKey"],
            r["name"],
            r["document"],
            r["ispb"],
            r["bankName"],
            r["branch"],
            r["accountNumber"],
            now,
        )
        await conn.execute(
            INSERT_KEY, account_id, key, hashlib.sha256(key.bytes).hexdigest(), transaction_id, now
        )
        await conn.execute(
            INSERT_TRANSFER,
            transaction_id,
            account_id,
            key,
            r["pixKey"],
            AMOUNT_CENTS,
            e2e,
            r["name"],
            r["document"],
            r["ispb"],
            now + NORM_DELAY,
            now + EXPIRATION,
            now,
        )
        if await conn.execute(RESERVE, AMOUNT_CENTS, account_id) != "UPDATE 1":
            raise Overdrawn()
        await conn.execute(INSERT_ENTRIES, transaction_id, account_id, AMOUNT_CENTS, now)


async def run_baseline(
    url: str, account_id: int, clients: int, *, run: Run, meter: CpuMeter, args: argparse.Namespace
) -> None:
    async with asyncpg.create_pool(url, min_size=clients, max_size=clients) as pool:

        async def one(_: int) -> str | None:
            try:
                async with pool.acquire() as conn:
                    await baseline_transfer(conn, account_id)
            except (Overdrawn, asyncpg.PostgresError) as exc:
                return type(exc).__name__
            return None

        await drive(clients, one, run, meter, args)


# ------------------------------------------------------------------------------------ report


def report(results: list[tuple[int, Run, Run]], args: argparse.Namespace) -> None:
    print(
        f"\n{args.duration:g} s per run after {args.warmup:g} s of warm-up;"
        " transfers of 0.01 from one hot account"
    )
    print("\n| clients | API tx/s | API p50 / p99 ms | baseline tx/s | baseline p50 / p99 ms | ratio |")
    print("|---:|---:|---:|---:|---:|---:|")
    for clients, api, base in results:
        ratio = api.rate / base.rate if base.rate else float("nan")
        print(
            f"| {clients} | {api.rate:,.0f} | {api.ms(50):.1f} / {api.ms(99):.1f} | {base.rate:,.0f} | "
            f"{base.ms(50):.1f} / {base.ms(99):.1f} | {ratio:.2f} |"
        )
    for clients, api, base in results:
        for name, run in (("API", api), ("baseline", base)):
            if run.failures:
                failed = ", ".join(f"{count} x {kind}" for kind, count in run.failures.most_common())
                print(f"{clients} clients, {name}: {failed} (not counted)")
    if any(api.cpu for _, api, _ in results):
        print(
            "\nCPU ms per transfer: pixweb serve; this process (load generator, or the baseline);"
            " the PostgreSQL backends of the bench database; other (WAL writer, anything else)"
        )
        print("\n| clients | run | server | bench | PostgreSQL | other | machine busy |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        cores = os.cpu_count() or 1
        for clients, api, base in results:
            for name, run in (("API", api), ("baseline", base)):
                done = max(len(run.latencies), 1)
                cells = " | ".join(f"{seconds * 1000 / done:.2f}" for seconds in run.cpu.values())
                busy = sum(run.cpu.values()) / (run.elapsed * cores)
                print(f"| {clients} | {name} | {cells} | {busy:.0%} |")
    target = next((r for r in results if r[0] == TARGET_CLIENTS), None)
    figures = [
        Figure(
            "transfers",
            f"{clients} clients, tx/s",
            api.rate,
            "tx/s",
            baseline=base.rate,
            target=f"ratio >= {TARGET_RATIO}" if clients == TARGET_CLIENTS else "",
            met=(api.rate / base.rate >= TARGET_RATIO if base.rate else False)
            if clients == TARGET_CLIENTS
            else None,
        )
        for clients, api, base in results
    ] + [
        Figure(
            "transfers",
            f"{clients} clients, p99",
            api.ms(99),
            "ms",
            baseline=base.ms(99),
            higher_is_better=False,
        )
        for clients, api, base in results
    ]
    write_summary(args.summary, figures)
    if target is None:
        print(f"\ntarget: ratio at least {TARGET_RATIO} at {TARGET_CLIENTS} clients: not measured")
        return
    ratio = target[1].rate / target[2].rate if target[2].rate else 0.0
    verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
    print(f"\ntarget: ratio at least {TARGET_RATIO} at {TARGET_CLIENTS} clients: {verdict} ({ratio:.2f})")


# ------------------------------------------------------------------------------------ set-up


async def measure(
    base_url: str, db_url: str, senders: list[Sender], meter: CpuMeter, args: argparse.Namespace
) -> list[tuple[int, Run, Run]]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        auth = await prepare_api(http, senders)
    before = meter.sample()
    await asyncio.sleep(1)
    if idle := meter.spent(before, meter.sample()):
        busy = sum(idle.values()) / (os.cpu_count() or 1)
        warning = "  (other work is running: the figures will be low)" if busy > 0.15 else ""
        print(f"machine busy before the runs: {busy:.0%}{warning}", flush=True)
    results = []
    for clients in args.clients:
        api, base = Run(), Run()
        await run_api(base_url, auth, clients, run=api, meter=meter, args=args)
        await run_baseline(db_url, senders[1].account_id, clients, run=base, meter=meter, args=args)
        print(f"{clients} clients: API {api.rate:,.0f} tx/s, baseline {base.rate:,.0f} tx/s", flush=True)
        results.append((clients, api, base))
    conn = await asyncpg.connect(db_url)
    try:
        ledger = await check_ledger(conn)
    finally:
        await conn.close()
    print(f"ledger check after the runs: {'ok' if ledger['ok'] else 'FAILED: ' + str(ledger)}")
    return results


def client_counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of positive integers")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured per run (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before each run, not counted")
    parser.add_argument("--clients", type=client_counts, default=[16, 64], help="default 16,64")
    parser.add_argument(
        "--shared-client",
        action="store_true",
        help="all API tasks share one httpx client with N connections (default: one client each)",
    )
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    # A SIGTERM unwinds like Ctrl-C (asyncio.run cancels its task): the server stops, the database goes.
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pixbench-")))
        server_url = stack.enter_context(postgres_server(args, folder))
        db_url = stack.enter_context(bench_database(server_url))
        senders = asyncio.run(open_senders(db_url, folder))
        base_url, process = stack.enter_context(api_server(db_url, folder))
        results = asyncio.run(
            measure(base_url, db_url, senders, CpuMeter(process.pid, database_name(db_url)), args)
        )
    report(results, args)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the server was stopped and the bench database dropped")
