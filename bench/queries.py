"""Transaction queries at a million rows: each endpoint through HTTP against its bare SQL.

Set-up (``_servers.loaded_account``): one account with ``--rows`` transactions
(default 1,000,000) spread evenly over the last 12 months, loaded with ``COPY``
(asyncpg's ``copy_records_to_table``) in time order, as they would have been
written; then ``VACUUM ANALYZE``. Mix (``_servers.transaction_records``): 55%
PAYMENT (to the account's key, a third of them with a cash-in externalId), 40%
WITHDRAW (to 2,000 keys of other banks, externalId = an idempotency key), 3%
REFUND_IN, 2% REFUND_OUT; 93% CONFIRMED, 5% ERROR, 2% PENDING. The rows have no
ledger entries: the database is thrown away afterwards.

Then, for each case (first page, a deep page, each filter, each look-up):

* API: ``pixweb serve --no-demo`` as a subprocess (settlement off); one
  keep-alive HTTP/1.1 connection sends ``--requests`` GETs back to back
  after ``--warmup`` unrecorded ones; latency as the client saw it. The
  client is a minimal one (:class:`PlainClient`: write the request, read the
  status line, the headers and ``Content-Length`` bytes): ``httpx`` spends
  about 0.5 ms of its own per request here, three times what a look-up's
  query takes, and the figures are the service's, not the client's.
  ``--client httpx`` measures through ``httpx.AsyncClient`` instead.
* SQL: the very statement the service runs for that request
  (``pixinfra.persistence.queries.list_statement`` / ``find_statement``, built
  from the same parsed parameters), on one asyncpg connection, the same number
  of times, in this process.

While the recorded requests of either run, this process's garbage collector
is off (``timeit`` does the same): on two CPUs a collection in the client
would land in the service's latency.

* Floor: ``bench/_floor_app.py``, a bare ASGI app on uvicorn (no framework,
  no authentication, no read model) that runs the same statement and returns
  its rows as JSON, measured with the same client. It shows what any service
  on this HTTP server could reach: where the floor's own ratio is under 0.4,
  so is every service's.

Printed: p50 and p99 of each, and the ratios SQL/API (1.0 would mean the
service adds nothing to its query) and SQL/floor. Targets: API p99
under 25 ms for every case, ratio at least 0.4.

Every run uses a fresh database ``pixbench_<random>`` on the server of
``--database-url`` (or, with ``--embedded``, a throw-away embedded server),
dropped at the end.

    .venv/bin/python bench/queries.py [--embedded] [--rows 1000000] [--requests 300]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import pickle
import signal
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import asyncpg
import httpx
from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path
from _servers import (
    Holder,
    add_database_options,
    api_server,
    child,
    free_port,
    loaded_account,
)

from pixcore.queries.rules import (
    PIX_KEY_TOTAL_CAP,
    ListKind,
    classify_identifier,
    parse_list_query,
    parse_query_pix_key,
)
from pixinfra.persistence.queries import find_statement, list_statement

TARGET_P99_MS = 25.0
TARGET_RATIO = 0.4


# ------------------------------------------------------------------------------------ cases


@dataclass
class Case:
    name: str
    path: str
    params: dict[str, str]
    statement: Callable[[], tuple[str, list[Any]]]  # built afresh per call: "now" moves
    api: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    sql: list[float] = field(default_factory=list)

    @staticmethod
    def ms(samples: list[float], percentile: int) -> float:
        return statistics.quantiles(samples, n=100, method="inclusive")[percentile - 1] * 1000


def list_case(name: str, account_id: int, params: dict[str, str], *, pix_key: str | None = None) -> Case:
    kind = ListKind.PIX_KEY if pix_key else ListKind.TRANSACTIONS
    key = parse_query_pix_key(pix_key) if pix_key else None
    wire = {
        "page": "page",
        "size": "size",
        "status": "status",
        "type": "type",
        "startDate": "start_date",
        "endDate": "end_date",
        "externalId": "external_id",
        "endToEndId": "end_to_end_id",
    }

    def statement() -> tuple[str, list[Any]]:
        query = parse_list_query(
            kind, now=datetime.now(UTC), pix_key=key, **{wire[k]: v for k, v in params.items()}
        )
        return list_statement(account_id, query, cap=PIX_KEY_TOTAL_CAP if pix_key else None)

    path = f"/api/pix/transactions/pix-key/{pix_key}" if pix_key else "/api/transactions"
    return Case(name, path, params, statement)


def lookup_case(name: str, account_id: int, identifier: str, *, pix_key: str | None = None) -> Case:
    wanted = classify_identifier(identifier, end_to_end=pix_key is not None)
    path = (
        f"/api/pix/transactions/pix-key/{pix_key}/{identifier}"
        if pix_key
        else f"/api/pix/transaction/{identifier}"
    )
    return Case(name, path, {}, lambda: find_statement(account_id, wanted, pix_key=pix_key))


async def make_cases(url: str, holder: Holder, http: httpx.AsyncClient, auth: dict[str, str]) -> list[Case]:
    conn = await asyncpg.connect(url)
    try:
        recent = await conn.fetchrow(
            "SELECT id, end_to_end_id FROM transactions WHERE account_id = $1 AND type = 'PAYMENT'"
            " ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 500",
            holder.account_id,
        )
        cash_in = await conn.fetchval(
            "SELECT external_id FROM transactions WHERE account_id = $1 AND external_id LIKE 'cashin-%'"
            " ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 200",
            holder.account_id,
        )
        old = await conn.fetchrow(
            "SELECT id, external_id, pix_key FROM transactions WHERE account_id = $1 AND type = 'WITHDRAW'"
            " ORDER BY created_at, id LIMIT 1 OFFSET 1000",
            holder.account_id,
        )
    finally:
        await conn.close()
    if recent is None or cash_in is None or old is None:
        raise SystemExit("the load left no rows to look up")
    first = (await http.get("/api/transactions", headers=auth)).json()["metadata"]
    a = holder.account_id
    half_year = datetime.now(UTC) - timedelta(days=180)
    window = {"startDate": f"{half_year - timedelta(days=30):%Y-%m-%d}", "endDate": f"{half_year:%Y-%m-%d}"}
    print(
        f"/api/transactions, default window: {first['total']:,} matches, {first['totalPages']:,} pages of 20"
    )
    return [
        list_case("list: first page", a, {}),
        list_case(f"list: deep page ({first['totalPages']:,} of 20)", a, {"page": str(first["totalPages"])}),
        list_case("list: size 100", a, {"size": "100"}),
        list_case("list: status=ERROR", a, {"status": "ERROR"}),
        list_case("list: type=REFUND_IN", a, {"type": "REFUND_IN"}),
        list_case("list: status+type", a, {"status": "PENDING", "type": "WITHDRAW"}),
        list_case("list: externalId", a, {"externalId": cash_in}),
        list_case("list: endToEndId", a, {"endToEndId": recent["end_to_end_id"]}),
        list_case("list: 31 days, 6 months ago", a, window),
        list_case("list: 6 months ago, deep page", a, window | {"page": "3000"}),
        list_case("pix-key: first page", a, {}, pix_key=holder.key),
        list_case("pix-key: last page (50 of 20)", a, {"page": "50"}, pix_key=holder.key),
        list_case("pix-key: size 1000", a, {"size": "1000"}, pix_key=holder.key),
        list_case("pix-key: status=ERROR", a, {"status": "ERROR"}, pix_key=holder.key),
        list_case("pix-key: type=REFUND_OUT", a, {"type": "REFUND_OUT"}, pix_key=holder.key),
        list_case("pix-key: an outside key", a, {}, pix_key=old["pix_key"]),
        lookup_case("pix-key lookup: endToEndId", a, recent["end_to_end_id"], pix_key=holder.key),
        lookup_case("pix-key lookup: id", a, str(recent["id"]), pix_key=holder.key),
        lookup_case("pix-key lookup: externalId", a, cash_in, pix_key=holder.key),
        lookup_case("status record: id", a, str(old["id"])),
        lookup_case("status record: externalId", a, old["external_id"]),
    ]


# ------------------------------------------------------------------------------------ measuring


class PlainClient:
    """GET over one keep-alive HTTP/1.1 connection, and nothing else (see the module docstring)."""

    def __init__(self, base_url: str) -> None:
        address = urlsplit(base_url)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A fresh connection (the server closes one left idle for 5 s)."""
        await self.close()
        # a buffer the size of the largest page, so that reading one never pauses the transport
        self.streams = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
        return self.streams

    async def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None

    async def get(self, path: str, params: dict[str, str], headers: dict[str, str]) -> tuple[int, bytes]:
        reader, writer = self.streams or await self.open()
        target = f"{path}?{urlencode(params)}" if params else path
        lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        writer.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}\r\n{lines}\r\n".encode())
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        fields = dict(line.lower().split(": ", 1) for line in head[1:] if line)
        if "content-length" not in fields:
            raise SystemExit(f"GET {target}: a response without Content-Length: {head}")
        return int(head[0].split(" ")[1]), await reader.readexactly(int(fields["content-length"]))


async def timed(call: Callable[[], Awaitable[object]], warmup: int, count: int) -> list[float]:
    for _ in range(warmup):
        await call()
    samples = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(count):
            began = time.perf_counter()
            await call()
            samples.append(time.perf_counter() - began)
    finally:
        gc.enable()
    return samples


@contextlib.contextmanager
def floor_server(url: str, statements: list[tuple[str, list[Any]]], folder: Path) -> Iterator[str]:
    """``bench/_floor_app.py`` serving ``statements`` on a free port, until it answers; stopped on exit."""
    cases = folder / "floor-cases.pickle"
    cases.write_bytes(pickle.dumps(statements))
    port = free_port()
    env = os.environ | {"FLOOR_CASES": str(cases), "FLOOR_DATABASE_URL": url}
    command = [sys.executable, str(Path(__file__).with_name("_floor_app.py")), str(port)]
    base_url = f"http://127.0.0.1:{port}"
    with child(command, env, folder / "floor.log", ready_url=f"{base_url}/case/0"):
        yield base_url


async def measure(
    url: str, base_url: str, holder: Holder, args: argparse.Namespace, folder: Path
) -> list[Case]:
    stack = contextlib.ExitStack()
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        token = await http.post(
            "/api/auth/token",
            json={"clientId": holder.client_id, "clientSecret": holder.client_secret},
            headers={"X-SSL-Client-Cert": holder.cert_header},
        )
        token.raise_for_status()
        auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
        cases = await make_cases(url, holder, http, auth)
        plain = PlainClient(base_url)
        conn = await asyncpg.connect(url)
        floor_url = stack.enter_context(floor_server(url, [case.statement() for case in cases], folder))
        floor = PlainClient(floor_url)
        try:
            for number, case in enumerate(cases):
                probe = await http.get(case.path, params=case.params, headers=auth)
                if probe.status_code != 200:
                    raise SystemExit(f"{case.name}: {probe.status_code} {probe.text}")
                await plain.open()

                async def api_call(case: Case = case) -> None:
                    if args.client == "httpx":
                        response = await http.get(case.path, params=case.params, headers=auth)
                        status, body = response.status_code, response.content
                    else:
                        status, body = await plain.get(case.path, case.params, auth)
                    if status != 200:
                        raise SystemExit(f"{case.name}: {status} {body.decode(errors='replace')}")

                async def floor_call(number: int = number) -> None:
                    if args.client == "httpx":  # the floor through the same client as the API
                        response = await http.get(f"{floor_url}/case/{number}")
                        status, body = response.status_code, response.content
                    else:
                        status, body = await floor.get(f"/case/{number}", {}, {})
                    if status != 200:
                        raise SystemExit(f"floor of case {number}: {status} {body.decode(errors='replace')}")

                async def sql_call(case: Case = case) -> None:
                    sql, sql_args = case.statement()
                    await conn.fetch(sql, *sql_args)

                case.api = await timed(api_call, args.warmup, args.requests)
                await floor.open()
                case.floor = await timed(floor_call, args.warmup, args.requests)
                case.sql = await timed(sql_call, args.warmup, args.requests)
                print(f"  {case.name}: API p50 {case.ms(case.api, 50):.2f} ms", flush=True)
        finally:
            await plain.close()
            await floor.close()
            await conn.close()
            stack.close()
    return cases


def report(cases: list[Case], args: argparse.Namespace) -> None:
    print(
        f"\n{args.requests} requests per case, one {args.client} client, after {args.warmup} unrecorded;"
        f" {args.rows:,} rows"
    )
    print(
        "\n| case | API p50 / p99 ms | floor p50 / p99 ms | SQL p50 / p99 ms | ratio p50 | ratio p99"
        " | floor's ratio p50 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    worst_p99, worst_ratio = 0.0, float("inf")
    below_floor = []
    for case in cases:
        api50, api99 = case.ms(case.api, 50), case.ms(case.api, 99)
        floor50, floor99 = case.ms(case.floor, 50), case.ms(case.floor, 99)
        sql50, sql99 = case.ms(case.sql, 50), case.ms(case.sql, 99)
        worst_p99, worst_ratio = max(worst_p99, api99), min(worst_ratio, sql50 / api50)
        if sql50 / floor50 < TARGET_RATIO:
            below_floor.append(case.name)
        print(
            f"| {case.name} | {api50:.2f} / {api99:.2f} | {floor50:.2f} / {floor99:.2f} |"
            f" {sql50:.2f} / {sql99:.2f} | {sql50 / api50:.2f} | {sql99 / api99:.2f} |"
            f" {sql50 / floor50:.2f} |"
        )
    write_summary(
        args.summary,
        [
            Figure(
                "queries",
                f"{case.name}, p99",
                case.ms(case.api, 99),
                "ms",
                baseline=case.ms(case.sql, 99),
                higher_is_better=False,
                target=f"< {TARGET_P99_MS:g} ms, ratio p50 >= {TARGET_RATIO}",
                met=case.ms(case.api, 99) < TARGET_P99_MS
                and case.ms(case.sql, 50) / case.ms(case.api, 50) >= TARGET_RATIO,
            )
            for case in cases
        ],
    )
    p99 = "met" if worst_p99 < TARGET_P99_MS else "MISSED"
    ratio = "met" if worst_ratio >= TARGET_RATIO else "MISSED"
    print(f"\ntarget: API p99 under {TARGET_P99_MS:g} ms in every case: {p99} (worst {worst_p99:.2f} ms)")
    print(f"target: ratio (p50) at least {TARGET_RATIO} in every case: {ratio} (lowest {worst_ratio:.2f})")
    if below_floor:
        print(
            f"the floor itself (a bare ASGI app on uvicorn) is under {TARGET_RATIO} in {len(below_floor)}"
            f" case(s): {', '.join(below_floor)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rows", type=int, default=1_000_000, help="transactions to load (default 1,000,000)"
    )
    parser.add_argument("--requests", type=int, default=300, help="recorded requests per case (default 300)")
    parser.add_argument(
        "--warmup", type=int, default=30, help="unrecorded requests per case first (default 30)"
    )
    parser.add_argument(
        "--client",
        choices=("plain", "httpx"),
        default="plain",
        help="HTTP client of the API runs (default plain: see above)",
    )
    add_database_options(parser)
    add_summary_option(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: signal.raise_signal(signal.SIGINT))
    with (
        loaded_account(args, args.rows, span=timedelta(days=365)) as loaded,
        api_server(loaded.url, loaded.folder) as (base_url, _),
    ):
        cases = asyncio.run(measure(loaded.url, base_url, loaded.holder, args, loaded.folder))
    report(cases, args)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the server was stopped and the bench database dropped")
