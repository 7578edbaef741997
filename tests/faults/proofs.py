"""What must hold after any fault, read straight from the database and the webhook receiver.

- money: the ledger check, conservation (balances plus the outside world sum to zero), every
  transfer finished exactly once (one settle or release posting) with exactly one TRANSFER event,
  every finished refund returned once;
- operations: every idempotency key maps to at most one transfer, and every acknowledged
  transfer, receipt and refund exists;
- refusals: every transfer refused for want of funds and every refund refused above what remains
  refundable left nothing (no transfer, no record, no refund), no receipt was refunded beyond its
  amount and no balance went negative, however the retries after a fault fell;
- events: every outbox row dispatched, fanned out exactly once to each registration of its type
  (no pair missing, none twice), every delivery delivered, and the receiver got each message at
  least once, duplicates only as the same message (same ``webhook-id``, same bytes).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import asyncpg

from pixinfra.persistence.ledger_check import check_ledger
from tests.faults.load import Load
from tests.integration.receiver import Received, Receiver

QUIET = """
SELECT (SELECT count(*) FROM transfers WHERE state = 'PENDING') AS "pending transfers",
       (SELECT count(*) FROM refunds WHERE status = 'EM_PROCESSAMENTO') AS "refunds in process",
       (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL) AS "undispatched events",
       (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS "pending deliveries"
"""


async def wait_until_quiet(url: str, *, within: float = 300.0) -> None:
    """Until settlement and delivery have nothing left to do (the processes keep running)."""
    left: dict[str, int] = {}
    try:
        async with asyncio.timeout(within):
            while True:
                try:
                    conn = await asyncpg.connect(url, timeout=10)
                    try:
                        left = dict(await conn.fetchrow(QUIET) or {})
                    finally:
                        await conn.close()
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                    left = {f"database unreachable: {exc!r}": 1}
                if not any(left.values()):
                    return
                await asyncio.sleep(0.5)
    except TimeoutError:
        raise AssertionError(f"still busy after {within} s: {left}") from None


def prove_clients(load: Load) -> None:
    """What the clients saw: every operation acknowledged in the end, no hang, no 500, and 503s
    only in the error shape with Retry-After."""
    assert load.done == load.ops
    assert load.hangs == [], f"{len(load.hangs)} requests timed out: {load.hangs[:5]}"
    assert load.unexpected == [], f"{len(load.unexpected)} unexpected answers: {load.unexpected[:5]}"
    assert load.malformed == [], f"{len(load.malformed)} malformed 503s: {load.malformed[:5]}"
    assert load.unfinished == [], f"{len(load.unfinished)} operations never acknowledged"
    acknowledged = len(load.transfers) + len(load.receipts) + len(load.refunds)
    refused = len(load.refused_transfers) + len(load.refused_refunds)
    assert acknowledged + refused == load.ops
    if load.ops >= 20:  # each twenty operations hold a transfer and a refund that must be refused
        assert load.refused_transfers, "no transfer was refused: the load never ran an account short"
        assert load.refused_refunds, "no refund was refused above the refundable remainder"


async def prove_operations(conn: asyncpg.Connection[Any], load: Load) -> None:
    rows = await conn.fetch("SELECT idempotency_key::text AS key, end_to_end_id FROM transfers")
    by_key: dict[str, list[str]] = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row["end_to_end_id"])
    twice = {key: e2e for key, e2e in by_key.items() if len(e2e) > 1}
    assert twice == {}, f"idempotency keys with more than one transfer: {twice}"
    assert set(by_key) <= load.sent_keys
    lost = {key: e2e for key, e2e in load.transfers.items() if by_key.get(key) != [e2e]}
    assert lost == {}, f"acknowledged transfers missing or different: {lost}"

    paid = {
        row["end_to_end_id"]
        for row in await conn.fetch(
            "SELECT end_to_end_id FROM transactions WHERE type = 'PAYMENT' AND status = 'CONFIRMED'"
        )
    }
    missing = [r.end_to_end_id for r in load.receipts if r.end_to_end_id not in paid]
    assert missing == [], f"acknowledged receipts missing: {missing}"

    refunds = {row["rtr_id"] for row in await conn.fetch("SELECT rtr_id FROM refunds WHERE kind = 'sent'")}
    assert load.refunds <= refunds, f"acknowledged refunds missing: {load.refunds - refunds}"


OVER_REFUNDED = """
SELECT t.id, t.amount, sum(r.amount) AS refunded
  FROM transactions t JOIN refunds r ON r.original_transaction_id = t.id
 WHERE r.kind = 'sent' AND r.status <> 'NAO_REALIZADO'
 GROUP BY t.id, t.amount HAVING sum(r.amount) > t.amount
"""


async def prove_refusals(conn: asyncpg.Connection[Any], load: Load) -> None:
    keys = sorted(load.refused_transfers)
    made = await conn.fetch(
        "SELECT idempotency_key::text AS key FROM transfers WHERE idempotency_key = ANY($1::uuid[])", keys
    )
    assert made == [], f"refused transfers that exist: {[row['key'] for row in made]}"
    records = await conn.fetchval("SELECT count(*) FROM transactions WHERE external_id = ANY($1)", keys)
    assert records == 0, "a refused transfer left its WITHDRAW record"
    refunds = await conn.fetch(
        "SELECT refund_id FROM refunds WHERE refund_id = ANY($1)", sorted(load.refused_refunds)
    )
    assert refunds == [], f"refused refunds that exist: {[row['refund_id'] for row in refunds]}"
    assert [dict(row) for row in await conn.fetch(OVER_REFUNDED)] == [], (
        "receipts refunded beyond their amount"
    )
    negative = await conn.fetchval("SELECT count(*) FROM balances WHERE available < 0 OR blocked < 0")
    assert negative == 0, "an account overdrawn"


async def prove_money(conn: asyncpg.Connection[Any]) -> None:
    report = await check_ledger(conn)
    assert report["ok"], report
    outside_and_inside = await conn.fetchval(
        """SELECT (SELECT coalesce(sum(available + blocked), 0) FROM balances)
                + (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE account_id IS NULL)"""
    )
    assert outside_and_inside == 0

    finished = await conn.fetch(
        """
        SELECT t.transaction_id, t.state, t.end_to_end_id,
               count(*) FILTER (WHERE e.posting = 'reserve') AS reserve,
               count(*) FILTER (WHERE e.posting IN ('settle_out', 'settle_in')) AS settle,
               count(*) FILTER (WHERE e.posting = 'release') AS release
          FROM transfers t LEFT JOIN ledger_entries e USING (transaction_id)
         GROUP BY t.transaction_id, t.state, t.end_to_end_id
        """
    )
    assert finished, "no transfers at all"
    expected = {"COMPLETED": (2, 2, 0), "ERROR": (2, 0, 2)}  # entries: reserve, settle, release
    wrong = [
        dict(row)
        for row in finished
        if expected.get(row["state"]) != (row["reserve"], row["settle"], row["release"])
    ]
    assert wrong == [], f"transfers not finished exactly once: {wrong[:5]}"
    events = Counter(
        row["e2e"]
        for row in await conn.fetch(
            "SELECT payload->'data'->>'endToEndId' AS e2e FROM outbox WHERE event_type = 'TRANSFER'"
        )
    )
    notified = {row["end_to_end_id"]: events[row["end_to_end_id"]] for row in finished}
    assert set(notified.values()) == {1}, "a transfer without its TRANSFER event, or with two"

    refunds = await conn.fetch(
        """
        SELECT r.rtr_id, r.status,
               count(e.id) FILTER (WHERE e.posting = 'settle_out') AS settle
          FROM refunds r LEFT JOIN ledger_entries e ON e.transaction_id = r.transaction_id
         WHERE r.kind = 'sent'
         GROUP BY r.rtr_id, r.status
        """
    )
    wrong = [
        dict(row)
        for row in refunds
        if (row["status"], row["settle"]) not in {("DEVOLVIDO", 2), ("NAO_REALIZADO", 0)}
    ]
    assert wrong == [], f"refunds not finished exactly once: {wrong[:5]}"


async def prove_delivery(
    conn: asyncpg.Connection[Any], receiver: Receiver, paths: dict[int, str]
) -> Counter[str]:
    """Every event reached every registration of its type; returns the copies received per message."""
    assert await conn.fetchval("SELECT count(*) FROM outbox WHERE dispatched_at IS NULL") == 0
    hooks: dict[tuple[int, str], list[int]] = {}
    for row in await conn.fetch("SELECT id, account_id, event_type FROM webhooks WHERE is_active"):
        hooks.setdefault((row["account_id"], row["event_type"]), []).append(row["id"])
    expected: set[tuple[int, int]] = set()
    for row in await conn.fetch("SELECT id, account_id, webhook_type FROM outbox"):
        # The service writes where each of its events goes (tests/integration/notifier/test_outbox.py
        # holds it).
        assert row["webhook_type"] is not None, f"outbox row {row['id']} goes nowhere"
        expected |= {(row["id"], hook) for hook in hooks.get((row["account_id"], row["webhook_type"]), [])}
    deliveries = await conn.fetch("SELECT outbox_id, webhook_id, message_id, status FROM webhook_deliveries")
    pairs = [(row["outbox_id"], row["webhook_id"]) for row in deliveries]
    assert len(pairs) == len(set(pairs)), "an event fanned out twice to one registration"
    assert set(pairs) == expected, (
        f"{len(expected - set(pairs))} fan-outs missing, {len(set(pairs) - expected)} unexpected"
    )
    assert expected, "no deliveries at all"
    assert Counter(row["status"] for row in deliveries) == Counter({"delivered": len(deliveries)})

    copies: dict[str, list[Received]] = {}
    for got in receiver.received:
        copies.setdefault(got.webhook_id, []).append(got)
    by_message = {row["message_id"]: row["webhook_id"] for row in deliveries}
    assert set(copies) == set(by_message), "the receiver's messages differ from the deliveries"
    for message, received in copies.items():
        assert len({copy.body for copy in received}) == 1, f"{message} arrived with different bodies"
        assert {copy.path for copy in received} == {paths[by_message[message]]}
    return Counter({message: len(received) for message, received in copies.items()})


async def prove_everything(url: str, load: Load, receiver: Receiver, paths: dict[int, str]) -> Counter[str]:
    prove_clients(load)
    conn = await asyncpg.connect(url)
    try:
        await prove_operations(conn, load)
        await prove_refusals(conn, load)
        await prove_money(conn)
        return await prove_delivery(conn, receiver, paths)
    finally:
        await conn.close()
