"""A flood of bad token requests against the rest of the API.

Set-up: one account with a linked certificate in a fresh database, and ``pixweb
serve --no-demo`` (settlement off) as a subprocess, once per case.

Measured, in this process, over one keep-alive connection: the latency of
``GET /balance`` with a valid token, back to back.

* Idle: ``--idle`` requests with nothing else going on (after ``--warmup`` once).
* Flood: a second process sends ``--burst`` (default 200) token requests with
  the account's client id and a wrong secret, all at once (one connection each;
  each would need a real Argon2 check); ``GET /balance`` is measured while they
  are in flight. The flood runs in its own process so that its client work does
  not land in the measured latencies.

Idle and flood alternate ``--rounds`` times, so that both see the same machine.

Cases:

* ``limits off``: ``PIX_TOKEN_RATE_PER_CLIENT=0`` and ``PIX_TOKEN_RATE_PER_ADDRESS=0``,
  as a flood spread over many addresses and client ids would be: every request
  reaches the hashing bound (``PIX_HASH_SLOTS``, ``PIX_HASH_QUEUE`` at their
  defaults), which alone must keep the API responsive.
* ``default limits``: the service as deployed; the rate limits refuse most of
  the flood before any hashing.

Printed for each: p50 and p99 of ``GET /balance`` idle and during the flood,
the ratio p99 flood / p99 idle (target: at most 3), and how the flood was
answered (statuses). The baseline is the idle p99 measured in the same run.

    .venv/bin/python bench/token_flood.py [--embedded] [--burst 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import queue
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from multiprocessing.queues import Queue
from pathlib import Path

import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import Holder, add_database_options, api_server, bench_database, open_holder, postgres_server

TARGET_RATIO = 3.0
CASES: dict[str, dict[str, str]] = {
    "limits off": {"PIX_TOKEN_RATE_PER_CLIENT": "0", "PIX_TOKEN_RATE_PER_ADDRESS": "0"},
    "default limits": {},
}


# ------------------------------------------------------------------------------ the flood


def flood_process(
    base_url: str, holder: Holder, burst: int, orders: Queue[int], answers: Queue[dict[int, int]]
) -> None:
    """Runs in a process of its own: for each order, ``burst`` bad token requests at once."""

    async def one_round(number: int) -> dict[int, int]:
        # One connection per request, opened for the round: as many distinct clients would.
        limits = httpx.Limits(max_connections=burst, max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=120) as http:

            async def bad(index: int) -> int:
                body = {"clientId": holder.client_id, "clientSecret": f"wrong-{number}-{index}"}
                response = await http.post(
                    "/api/auth/token", json=body, headers={"X-SSL-Client-Cert": holder.cert_header}
                )
                return response.status_code

            statuses = await asyncio.gather(*(bad(i) for i in range(burst)), return_exceptions=True)
        return dict(Counter(s if isinstance(s, int) else 0 for s in statuses))  # 0: no answer

    while (number := orders.get()) >= 0:
        answers.put(asyncio.run(one_round(number)))


# -------------------------------------------------------------------------- measuring


def ms(samples: list[float], percentile: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[percentile - 1] * 1000


async def timed_balance(http: httpx.AsyncClient, auth: dict[str, str]) -> float:
    started = time.perf_counter()
    response = await http.get("/balance", headers=auth)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise SystemExit(f"GET /balance answered {response.status_code}: {response.text}")
    return elapsed


@dataclass
class Outcome:
    idle: list[float]
    flood: list[float]
    statuses: Counter[int]
    flood_seconds: float


async def measure(base_url: str, holder: Holder, args: argparse.Namespace) -> Outcome:
    context = multiprocessing.get_context("spawn")
    orders: Queue[int] = context.Queue()
    answers: Queue[dict[int, int]] = context.Queue()
    flooder = context.Process(target=flood_process, args=(base_url, holder, args.burst, orders, answers))
    flooder.start()
    try:
        async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
            credentials = {"clientId": holder.client_id, "clientSecret": holder.client_secret}
            issued = await http.post(
                "/api/auth/token", json=credentials, headers={"X-SSL-Client-Cert": holder.cert_header}
            )
            if issued.status_code != 201:
                raise SystemExit(f"no token: {issued.status_code} {issued.text}")
            auth = {"Authorization": f"Bearer {issued.json()['access_token']}"}
            for _ in range(args.warmup):
                await timed_balance(http, auth)
            idle: list[float] = []
            flood: list[float] = []
            statuses: Counter[int] = Counter()
            flooding = 0.0
            for number in range(args.rounds):
                # Idle and flood alternate, so that both see the same machine (other load comes and goes).
                await asyncio.sleep(1.0)  # the previous round's connections wind down
                idle += [await timed_balance(http, auth) for _ in range(args.idle)]
                orders.put(number)
                started = time.perf_counter()
                while True:
                    flood.append(await timed_balance(http, auth))
                    try:
                        statuses.update(answers.get_nowait())
                        break
                    except queue.Empty:
                        continue
                flooding += time.perf_counter() - started
        return Outcome(idle, flood, statuses, flooding)
    finally:
        orders.put(-1)
        flooder.join(timeout=30)
        if flooder.is_alive():
            flooder.kill()


def report(case: str, outcome: Outcome, burst: int) -> list[Figure]:
    idle_p99, flood_p99 = ms(outcome.idle, 99), ms(outcome.flood, 99)
    ratio = flood_p99 / idle_p99
    answered = ", ".join(
        f"{status or 'no answer'}: {count}" for status, count in sorted(outcome.statuses.items())
    )
    print(f"\n{case}")
    idle_p50 = ms(outcome.idle, 50)
    print(
        f"  idle   GET /balance: {len(outcome.idle)} requests, p50 {idle_p50:.2f} ms, p99 {idle_p99:.2f} ms"
    )
    print(
        f"  flood  GET /balance: {len(outcome.flood)} requests during {outcome.flood_seconds:.1f} s of"
        f" floods, p50 {ms(outcome.flood, 50):.2f} ms, p99 {flood_p99:.2f} ms"
    )
    print(f"  p99 flood / p99 idle: {ratio:.2f} (target at most {TARGET_RATIO:.0f})")
    total = sum(outcome.statuses.values())
    print(f"  the {total} bad token requests ({burst} at a time) were answered {answered}")
    return [
        Figure(
            benchmark="token_flood",
            case=f"GET /balance p99 during {burst} bad token requests ({case})",
            value=flood_p99,
            unit="ms",
            baseline=idle_p99,
            higher_is_better=False,
            target=f"at most {TARGET_RATIO:.0f}x idle p99 (ratio at least {1 / TARGET_RATIO:.2f})",
            met=ratio <= TARGET_RATIO,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_database_options(parser)
    parser.add_argument(
        "--burst", type=int, default=200, help="bad token requests sent at once (default 200)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="bursts, one after the other (default 5)")
    parser.add_argument(
        "--idle", type=int, default=300, help="GET /balance measured idle per round (default 300)"
    )
    parser.add_argument("--warmup", type=int, default=100, help="unrecorded GET /balance first (default 100)")
    add_summary_option(parser)
    args = parser.parse_args()

    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="pixbench-flood-") as temporary:
        folder = Path(temporary)
        with postgres_server(args, folder) as server, bench_database(server, migrated_in=folder) as url:
            holder = asyncio.run(open_holder(url, folder))
            for case, settings in CASES.items():
                data_dir = folder / case.replace(" ", "-")
                data_dir.mkdir()
                with api_server(url, data_dir, settings) as (base_url, _):
                    figures += report(case, asyncio.run(measure(base_url, holder, args)), args.burst)
    write_summary(args.summary, figures)


if __name__ == "__main__":
    main()
