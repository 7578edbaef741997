"""The web console's page times at 10,000 transactions (the target: every page's server time
under 50 ms p99).

Set-up (``_servers.loaded_account``, as ``bench/queries.py``'s): a fresh database, the benchmarks'
account with ``--rows`` transactions (default 10,000) loaded with ``COPY`` in time order, all of
them in the last 30 days (the window the overview's chart and the transactions list read by
default: the worst case for both), the mix of ``_servers.transaction_records`` (55% PAYMENT, 40%
WITHDRAW, 3% REFUND_IN, 2% REFUND_OUT; 93% CONFIRMED), then ``VACUUM ANALYZE``. ``pixweb serve
--no-demo`` (settlement off, the sandbox and the console on, JSON logs at INFO) as a subprocess;
the bench signs in through the console's own form and creates 60 charges through its charges form
(more than the list's 50), then asks for the QR image of each but the last once.

Then each page is requested ``--requests`` times after ``--warmup`` unrecorded ones, first one at
a time, then by ``--concurrency`` clients at once (each page in turn): sign-in (the form, signed
out), overview, transactions (first page, and the last page of 20), a transaction, charges, a
charge, its QR image, send, receive (sandbox). Signing in itself (``POST``) is timed apart and has
no target: it verifies an Argon2 hash on purpose. So is making a charge (the 60 ``POST``s, no
target): its CPU per request includes the drawing of the charge's QR image, which the service does
after answering.

Server time: the service's own access log (``pixweb.access``, ``duration_ms``: from the request's
arrival at the app to its last byte sent), matched to each request by the ``X-Request-Id`` the
bench sends. The client's time on loopback is printed beside it.

Server CPU: the service process's user and system CPU time (``/proc``) over each page's recorded
requests, divided by their number: what a request costs the service, whatever else the machine is
doing (on a busy machine the times above grow with the load; this one hardly moves). It is the
figure to compare two versions of the service by.

    .venv/bin/python bench/console.py [--embedded] [--rows 10000] [--requests 200] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import statistics
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import asyncpg
import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import Holder, add_database_options, api_server, cpu_seconds, loaded_account

TARGET_P99_MS = 50.0
CHARGES = 60
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


# ------------------------------------------------------------------------------------ pages


@dataclass
class Page:
    name: str
    path: str
    signed_in: bool = True
    ids: list[str] = field(default_factory=list)  # request ids sent, in the order of the runs
    client: dict[str, list[float]] = field(default_factory=dict)  # run -> seconds, as the client saw
    server: dict[str, list[float]] = field(default_factory=dict)  # run -> ms, from the access log
    cpu: dict[str, float] = field(default_factory=dict)  # run -> the service's CPU ms per request


def ms(samples: list[float], percentile: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[percentile - 1]


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    if found is None:
        raise SystemExit("a console form without its csrf field")
    return found.group(1)


async def sign_in(http: httpx.AsyncClient, holder: Holder) -> float:
    """Sign in through the form; the session cookie stays in ``http``. Returns the POST's seconds."""
    form = await http.get("/console/sign-in")
    began = time.perf_counter()
    answer = await http.post(
        "/console/sign-in",
        data={
            "csrf": csrf_of(form.text),
            "next": "/console",
            "client_id": holder.client_id,
            "client_secret": holder.client_secret,
        },
    )
    elapsed = time.perf_counter() - began
    if answer.status_code != 303:
        raise SystemExit(f"sign-in: {answer.status_code} {answer.text[:500]}")
    return elapsed


async def make_pages(
    http: httpx.AsyncClient, url: str, holder: Holder, pid: int
) -> tuple[list[Page], Page, Page]:
    form = await http.get("/console/charges")
    csrf = csrf_of(form.text)
    txids = []
    making = Page("making a charge (POST)", "")
    cpu = cpu_seconds(pid)
    for number in range(CHARGES):
        request_id = f"bench-{uuid.uuid4().hex}"
        began = time.perf_counter()
        made = await http.post(
            "/console/charges",
            data={"csrf": csrf, "amount": f"{10 + number}.00"},
            headers={"X-Request-Id": request_id},
        )
        if made.status_code != 303:
            raise SystemExit(f"creating a charge: {made.status_code} {made.text[:500]}")
        making.ids.append(f"sequential {request_id}")
        making.client.setdefault("sequential", []).append(time.perf_counter() - began)
        txids.append(made.headers["location"].rsplit("/", 1)[-1])
    await asyncio.sleep(1)  # the images the service draws after answering: counted with the POSTs
    making.cpu["sequential"] = (cpu_seconds(pid) - cpu) * 1000 / CHARGES
    txid = txids[-1]
    conn = await asyncpg.connect(url)
    try:
        some = await conn.fetchval(
            "SELECT id FROM transactions WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1 OFFSET 5000",
            holder.account_id,
        )
    finally:
        await conn.close()
    listing = await http.get("/console/transactions")
    pages = re.search(r"page 1 of ([0-9,]+)", listing.text)
    last = pages.group(1).replace(",", "") if pages else "1"
    print(f"transactions list: {last} pages of 20 in its default 31 days; {CHARGES} charges made")
    first_views = Page("a charge's QR image, first view", "")
    cpu = cpu_seconds(pid)
    for other in txids[:-1]:  # each asked for once, before the runs
        request_id = f"bench-{uuid.uuid4().hex}"
        began = time.perf_counter()
        answer = await http.get(f"/console/charges/{other}/qr.png", headers={"X-Request-Id": request_id})
        if answer.status_code != 200:
            raise SystemExit(f"a QR image: {answer.status_code}")
        first_views.ids.append(f"sequential {request_id}")
        first_views.client.setdefault("sequential", []).append(time.perf_counter() - began)
    first_views.cpu["sequential"] = (cpu_seconds(pid) - cpu) * 1000 / (len(txids) - 1)
    return (
        [
            Page("sign-in (form)", "/console/sign-in", signed_in=False),
            Page("overview", "/console"),
            Page("transactions", "/console/transactions"),
            Page(f"transactions, last page ({last})", f"/console/transactions?page={last}"),
            Page("a transaction", f"/console/transactions/{some}"),
            Page("charges", "/console/charges"),
            Page("a charge", f"/console/charges/{txid}"),
            Page("a charge's QR image", f"/console/charges/{txid}/qr.png"),
            Page("send", "/console/send"),
            Page("receive (sandbox)", "/console/receive"),
        ],
        making,
        first_views,
    )


async def run(
    pages: list[Page],
    signed: httpx.AsyncClient,
    anonymous: httpx.AsyncClient,
    pid: int,
    args: argparse.Namespace,
) -> None:
    async def one(page: Page, run_name: str, record: bool) -> None:
        request_id = f"bench-{uuid.uuid4().hex}"
        http = signed if page.signed_in else anonymous
        began = time.perf_counter()
        answer = await http.get(page.path, headers={"X-Request-Id": request_id})
        elapsed = time.perf_counter() - began
        if answer.status_code != 200:
            raise SystemExit(f"{page.name}: {answer.status_code} {answer.text[:500]}")
        if record:
            page.ids.append(f"{run_name} {request_id}")
            page.client.setdefault(run_name, []).append(elapsed)

    for run_name, clients in (("sequential", 1), (f"{args.concurrency} at once", args.concurrency)):
        for page in pages:
            for _ in range(args.warmup):
                await one(page, run_name, record=False)

            async def worker(count: int, page: Page = page, run_name: str = run_name) -> None:
                for _ in range(count):
                    await one(page, run_name, record=True)

            share = -(-args.requests // clients)
            cpu = cpu_seconds(pid)
            await asyncio.gather(*(worker(share) for _ in range(clients)))
            page.cpu[run_name] = (cpu_seconds(pid) - cpu) * 1000 / len(page.client[run_name])
            print(
                f"  {run_name}: {page.name}: client p50 {ms(page.client[run_name], 50) * 1000:.1f} ms,"
                f" service CPU {page.cpu[run_name]:.2f} ms a request",
                flush=True,
            )


def read_access_log(log: Path, pages: list[Page]) -> None:
    """Each recorded request's ``duration_ms`` from the service's access log."""
    durations: dict[str, float] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if entry.get("logger") == "pixweb.access" and str(entry.get("request_id", "")).startswith("bench-"):
            durations[entry["request_id"]] = float(entry["duration_ms"])
    for page in pages:
        for tagged in page.ids:
            run_name, request_id = tagged.rsplit(" ", 1)
            if request_id not in durations:
                raise SystemExit(f"{page.name}: request {request_id} is not in the access log")
            page.server.setdefault(run_name, []).append(durations[request_id])


def report(
    pages: list[Page], making: Page, first_views: Page, sign_ins: list[float], args: argparse.Namespace
) -> None:
    runs = list(pages[0].server)
    print(
        f"\n{args.requests} requests per page and run after {args.warmup} unrecorded;"
        f" {args.rows:,} transactions."
        " Server time from the access log (duration_ms); client time on loopback in brackets;"
        " the service's CPU time per request."
    )
    print(
        "\n| page | "
        + " | ".join(f"{r}: p50 / p99 ms" for r in runs)
        + " | CPU ms a request ("
        + " / ".join(runs)
        + ") |"
    )
    print("|---|" + "---:|" * (len(runs) + 1))
    figures = []
    worst = 0.0
    for page in pages:
        cells = []
        for r in runs:
            p50, p99 = ms(page.server[r], 50), ms(page.server[r], 99)
            c50, c99 = ms(page.client[r], 50) * 1000, ms(page.client[r], 99) * 1000
            worst = max(worst, p99)
            cells.append(f"{p50:.1f} / {p99:.1f} ({c50:.1f} / {c99:.1f})")
            figures.append(
                Figure(
                    "console",
                    f"{page.name}, {r}, server p99",
                    p99,
                    "ms",
                    higher_is_better=False,
                    target=f"< {TARGET_P99_MS:g} ms",
                    met=p99 < TARGET_P99_MS,
                )
            )
        cells.append(" / ".join(f"{page.cpu[r]:.2f}" for r in runs))
        figures.extend(
            Figure("console", f"{page.name}, {r}, service CPU a request", page.cpu[r], "ms",
                   higher_is_better=False)
            for r in runs
        )  # fmt: skip
        print(f"| {page.name} | " + " | ".join(cells) + " |")
    drawn = first_views.server["sequential"]
    p50, p99 = ms(drawn, 50), ms(drawn, 99)
    worst = max(worst, p99)
    figures.append(
        Figure("console", f"{first_views.name}, server p99", p99, "ms", higher_is_better=False,
               target=f"< {TARGET_P99_MS:g} ms", met=p99 < TARGET_P99_MS)
    )  # fmt: skip
    print(
        f"\n{first_views.name} (each of {len(drawn)} charges once, one at a time):"
        f" p50 / p99 {p50:.1f} / {p99:.1f} ms, CPU {first_views.cpu['sequential']:.2f} ms a request"
    )
    made = making.server["sequential"]
    print(
        f"{making.name}, no target (each of {len(made)}, one at a time): p50 / p99"
        f" {ms(made, 50):.1f} / {ms(made, 99):.1f} ms, CPU {making.cpu['sequential']:.2f} ms a charge"
        " (with its image, drawn after the answer)"
    )
    print(
        "\nsigning in (POST, Argon2 on purpose, no target): client median"
        f" {statistics.median(sign_ins) * 1000:.0f} ms"
        f" over {len(sign_ins)}"
    )
    verdict = "met" if worst < TARGET_P99_MS else "MISSED"
    print(
        f"target: every page's server time p99 under {TARGET_P99_MS:g} ms: {verdict} (worst {worst:.1f} ms)"
    )
    write_summary(args.summary, figures)


async def measure(
    base_url: str, db_url: str, holder: Holder, pid: int, args: argparse.Namespace
) -> tuple[list[Page], Page, Page, list[float]]:
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as signed,
        httpx.AsyncClient(base_url=base_url, timeout=30) as anonymous,
    ):
        sign_ins = []
        for _ in range(4):  # each in a fresh client: a signed-in browser is sent on from the form
            async with httpx.AsyncClient(base_url=base_url, timeout=30) as fresh:
                sign_ins.append(await sign_in(fresh, holder))
        await sign_in(signed, holder)
        pages, making, first_views = await make_pages(signed, db_url, holder, pid)
        await run(pages, signed, anonymous, pid, args)
    return pages, making, first_views, sign_ins


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=10_000, help="transactions to load (default 10,000)")
    parser.add_argument(
        "--requests", type=int, default=200, help="recorded requests per page and run (default 200)"
    )
    parser.add_argument(
        "--warmup", type=int, default=20, help="unrecorded requests per page and run first (default 20)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, help="clients of the concurrent run (default 4)"
    )
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    settings = {"PIX_LOG_LEVEL": "INFO", "PIX_LOG_FORMAT": "json", "PIX_CONSOLE": "on", "PIX_SANDBOX": "on"}
    with (
        loaded_account(args, args.rows, span=timedelta(days=30)) as loaded,
        api_server(loaded.url, loaded.folder, settings) as (base_url, process),
    ):
        pages, making, first_views, sign_ins = asyncio.run(
            measure(base_url, loaded.url, loaded.holder, process.pid, args)
        )
        read_access_log(loaded.folder / "server.log", [*pages, making, first_views])
    report(pages, making, first_views, sign_ins, args)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the server was stopped and the bench database dropped")
