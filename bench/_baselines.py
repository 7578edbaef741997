"""The accounts of ``bench/transfers.py`` and its SQL baselines: the rows the service writes for a
transfer out of (a receipt into) one hot account, written by asyncpg with nothing else around,
one transaction per request (naive) or a group of them per transaction (grouped)."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import statistics
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from _cpu import CpuMeter
from _servers import Holder, open_holder

from pixcore.documents import cpf_check_digits
from pixcore.identifiers import new_end_to_end_id

__all__ = ["Accounts", "Row", "grouped_sql", "naive_sql", "open_accounts", "show"]

ISPB = "99999999"
FUNDS = "1000000.00"  # per sending account: 100 million transfers of 0.01
CENTS = 1  # 0.01 per request
NORM_DELAY = timedelta(seconds=2)
EXPIRATION = timedelta(seconds=86_400)
PAYER = ("Bench Payer", "11144477735", "12345678")  # name, document, ISPB of the outside payer
RECEIVER = {  # the outside key transfers go to, added with POST /sandbox/dict
    "pixKey": "bench-receiver@external.example",
    "ispb": "12345678",
    "name": "Bench Receiver",
    "document": "11144477735",
    "bankName": "OTHER BANK",
    "branch": "0001",
    "accountNumber": "123",
    "behavior": "settle",
}
ROLES = ("sender", "receiver", "sql_sender", "sql_receiver")


@dataclass
class Row:
    """One measured run of ``bench/transfers.py``."""

    case: str
    operation: str  # transfers | receipts | echo
    connections: int
    rate: float  # successful requests a second
    p50: float  # ms
    p99: float  # ms
    failed: int
    cpu: dict[str, float] = field(default_factory=dict)  # ms a request: server, load, postgres, other


def show(row: Row) -> Row:
    failed = f", failed {row.failed}" if row.failed else ""
    print(
        f"  {row.case}, {row.operation}, {row.connections} connections: {row.rate:,.0f}/s"
        f" (p50 {row.p50:.1f} ms, p99 {row.p99:.1f} ms{failed})",
        flush=True,
    )
    return row


@dataclass(frozen=True)
class Accounts:
    """The API's hot sender and hot receiver, and the baselines' own two (never contended together)."""

    holders: dict[str, Holder]

    @property
    def transfer_body(self) -> bytes:
        return b'{"pixKey":"%s","payment":{"currency":"BRL","amount":0.01}}' % RECEIVER["pixKey"].encode()

    @property
    def receipt_body(self) -> bytes:
        return b'{"pixKey":"%s","amount":0.01}' % self.holders["receiver"].key.encode()

    async def _token(self, http: httpx.AsyncClient, holder: Holder) -> dict[str, str]:
        response = await http.post(
            "/api/auth/token",
            json={"clientId": holder.client_id, "clientSecret": holder.client_secret},
            headers={"X-SSL-Client-Cert": holder.cert_header},
        )
        response.raise_for_status()
        return {"Authorization": f"Bearer {response.json()['access_token']}"}

    async def fund(self, base_url: str) -> None:
        """Fund both senders through the sandbox; add the outside receiving key."""
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
            for role in ("sender", "sql_sender"):
                holder = self.holders[role]
                auth = await self._token(http, holder)
                paid = await http.post(
                    "/sandbox/payments", json={"pixKey": holder.key, "amount": FUNDS}, headers=auth
                )
                paid.raise_for_status()
            (await http.post("/sandbox/dict", json=RECEIVER, headers=auth)).raise_for_status()

    async def api_headers(self, base_url: str) -> dict[str, dict[str, str]]:
        """A fresh token for the API's sender and receiver, with the JSON content type."""
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
            return {
                role: await self._token(http, self.holders[role]) | {"content-type": "application/json"}
                for role in ("sender", "receiver")
            }


def _cpf(n: int) -> str:
    base = f"{123456780 + n:09d}"
    return base + cpf_check_digits(base)


async def open_accounts(url: str, data_dir: Path) -> Accounts:
    """Migrate the fresh database; open the four accounts, each with a key and a certificate."""
    holders = {}
    for n, role in enumerate(ROLES, start=1):
        holders[role] = await open_holder(url, data_dir, name=f"Bench {role}", document=_cpf(n))
    return Accounts(holders)


# ------------------------------------------------------------------------------------ the SQL

INSERT_WITHDRAW = """
INSERT INTO transactions (account_id, type, status, amount, external_id, end_to_end_id, pix_key,
    counterpart_name, counterpart_document, counterpart_ispb, counterpart_bank, counterpart_branch,
    counterpart_account, created_at, updated_at)
SELECT $1, 'WITHDRAW', 'PENDING', $2, k, e, $5, $6, $7, $8, $9, $10, $11, $12, $12
  FROM unnest($3::text[], $4::text[]) AS t(k, e)
RETURNING id
"""
INSERT_KEYS = """
INSERT INTO idempotency_keys (account_id, key, request_hash, transaction_id, created_at)
SELECT $1, k, h, i, $5 FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS t(k, h, i)
"""
INSERT_TRANSFERS = """
INSERT INTO transfers (transaction_id, account_id, idempotency_key, state, priority, pix_key, amount,
    end_to_end_id, creditor_name, creditor_document, creditor_ispb, behavior, settle_after, deadline,
    created_at)
SELECT i, $2, k, 'PENDING', 'NORM', $5, $6, e, $7, $8, $9, 'settle', $10, $11, $12
  FROM unnest($1::bigint[], $3::uuid[], $4::text[]) AS t(i, k, e)
"""
RESERVE = """
UPDATE balances SET available = available - $1, blocked = blocked + $1
 WHERE account_id = $2 AND available >= $1
"""
RESERVE_ENTRIES = """
INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at)
SELECT i, 'reserve', $2, b, s * $3::bigint, $4
  FROM unnest($1::bigint[]) AS t(i) CROSS JOIN (VALUES ('available', -1), ('blocked', 1)) AS v(b, s)
"""
INSERT_PAYMENT = """
INSERT INTO transactions (account_id, type, status, amount, end_to_end_id, pix_key, counterpart_name,
    counterpart_document, counterpart_ispb, created_at, updated_at, processed_at)
SELECT $1, 'PAYMENT', 'CONFIRMED', $2, e, $4, $5, $6, $7, $8, $8, $8 FROM unnest($3::text[]) AS t(e)
RETURNING id
"""
RECEIVE_ENTRIES = """
INSERT INTO ledger_entries (transaction_id, posting, account_id, bucket, amount, created_at, institution)
SELECT i, 'receive', CASE WHEN b = 'external' THEN NULL ELSE $2::bigint END, b, s * $3::bigint, $4,
       CASE WHEN b = 'external' THEN $5 END
  FROM unnest($1::bigint[]) AS t(i) CROSS JOIN (VALUES ('external', -1), ('available', 1)) AS v(b, s)
"""
CREDIT = "UPDATE balances SET available = available + $1, updated_at = $2 WHERE account_id = $3"
RECEIVE_EVENTS = """
INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at)
SELECT $1, 'RECEIVE', 'cash_in', jsonb_build_object('endToEndId', e, 'amount', $3::bigint), $4
  FROM unnest($2::text[]) AS t(e)
"""


class Overdrawn(Exception):
    """The guarded update matched no row: roll the group back."""


async def transfers_out(conn: asyncpg.Connection[Any], account_id: int, count: int) -> None:
    """``count`` transfers' reservations in one transaction (count 1: the naive baseline)."""
    now = datetime.now(UTC)
    keys = [uuid.uuid4() for _ in range(count)]
    e2es = [new_end_to_end_id(ISPB, now) for _ in range(count)]
    r = RECEIVER
    async with conn.transaction():
        ids = [
            row[0]
            for row in await conn.fetch(
                INSERT_WITHDRAW,
                account_id,
                CENTS,
                [str(k) for k in keys],
                e2es,
                r["pixKey"],
                r["name"],
                r["document"],
                r["ispb"],
                r["bankName"],
                r["branch"],
                r["accountNumber"],
                now,
            )
        ]
        hashes = [hashlib.sha256(k.bytes).hexdigest() for k in keys]
        await conn.execute(INSERT_KEYS, account_id, keys, hashes, ids, now)
        await conn.execute(
            INSERT_TRANSFERS,
            ids,
            account_id,
            keys,
            e2es,
            r["pixKey"],
            CENTS,
            r["name"],
            r["document"],
            r["ispb"],
            now + NORM_DELAY,
            now + EXPIRATION,
            now,
        )
        await conn.execute(RESERVE_ENTRIES, ids, account_id, CENTS, now)
        if await conn.execute(RESERVE, CENTS * count, account_id) != "UPDATE 1":
            raise Overdrawn()


async def receipts_in(conn: asyncpg.Connection[Any], account_id: int, count: int) -> None:
    """``count`` receipts from an outside payer in one transaction (count 1: the naive baseline)."""
    now = datetime.now(UTC)
    e2es = [new_end_to_end_id(PAYER[2], now) for _ in range(count)]
    async with conn.transaction():
        ids = [
            row[0]
            for row in await conn.fetch(
                INSERT_PAYMENT, account_id, CENTS, e2es, "bench-key", PAYER[0], PAYER[1], PAYER[2], now
            )
        ]
        await conn.execute(RECEIVE_ENTRIES, ids, account_id, CENTS, now, PAYER[2])
        await conn.execute(CREDIT, CENTS * count, now, account_id)
        await conn.execute(RECEIVE_EVENTS, account_id, e2es, CENTS, now)


# ------------------------------------------------------------------------------------ driving


@dataclass
class Timed:
    latencies: list[float]
    failures: int
    elapsed: float
    cpu: dict[str, float]


async def _drive(
    tasks: int, one: Callable[[], Awaitable[int]], meter: CpuMeter, args: argparse.Namespace
) -> Timed:
    """Each of ``tasks`` awaits ``one()`` (requests done) back to back; only the measured window counts."""
    loop = asyncio.get_running_loop()
    start = loop.time() + args.warmup
    stop = start + args.duration
    before: list[Any] = []
    loop.call_at(start, lambda: before.append(meter.sample()))
    timed = Timed([], 0, 0.0, {})

    async def task() -> None:
        while (began := loop.time()) < stop:
            try:
                done = await one()
            except (Overdrawn, asyncpg.PostgresError):
                timed.failures += 1
                continue
            if began >= start:
                timed.latencies += [loop.time() - began] * done

    await asyncio.gather(*(task() for _ in range(tasks)))
    timed.elapsed = loop.time() - start
    timed.cpu = meter.spent(before[0], meter.sample())
    return timed


def _row(case: str, operation: str, connections: int, timed: Timed) -> Row:
    done = len(timed.latencies)
    cuts = (
        statistics.quantiles(timed.latencies, n=100, method="inclusive") if done > 1 else [float("nan")] * 99
    )
    rate = done / timed.elapsed if timed.elapsed else 0.0
    cpu = {party: seconds * 1000 / max(done, 1) for party, seconds in timed.cpu.items()}
    return show(
        Row(case, operation, connections, rate, cuts[49] * 1000, cuts[98] * 1000, timed.failures, cpu)
    )


def _sql(operation: str, accounts: Accounts) -> tuple[Callable[..., Awaitable[None]], int]:
    if operation == "transfers":
        return transfers_out, accounts.holders["sql_sender"].account_id
    return receipts_in, accounts.holders["sql_receiver"].account_id


def naive_sql(
    operation: str,
    *,
    url: str,
    accounts: Accounts,
    connections: int,
    meter: CpuMeter,
    args: argparse.Namespace,
) -> Row:
    write, account_id = _sql(operation, accounts)

    async def run() -> Timed:
        async with asyncpg.create_pool(url, min_size=connections, max_size=connections) as pool:

            async def one() -> int:
                async with pool.acquire() as conn:
                    await write(conn, account_id, 1)
                return 1

            return await _drive(connections, one, meter, args)

    return _row("naive SQL", operation, connections, asyncio.run(run()))


def grouped_sql(
    operation: str, *, url: str, accounts: Accounts, group: int, meter: CpuMeter, args: argparse.Namespace
) -> Row:
    write, account_id = _sql(operation, accounts)
    connections = 2

    async def run() -> Timed:
        async with asyncpg.create_pool(url, min_size=connections, max_size=connections) as pool:

            async def one() -> int:
                async with pool.acquire() as conn:
                    await write(conn, account_id, group)
                return group

            return await _drive(connections, one, meter, args)

    return _row(f"grouped SQL, {group} a transaction", operation, connections, asyncio.run(run()))
