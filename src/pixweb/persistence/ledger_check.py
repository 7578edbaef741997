"""Reconciliation: balances equal the sum of their ledger entries, and money is conserved.

Three proofs, each a query:
- every account's ``available`` and ``blocked`` equal the sums of its entries in those buckets;
- every transaction's entries sum to zero (each posting balances);
- all entries together, the outside world's included, sum to zero.
"""

from __future__ import annotations

from typing import Any

import asyncpg

__all__ = ["check_ledger"]

_MISMATCHED_ACCOUNTS = """
WITH sums AS (
    SELECT account_id,
           coalesce(sum(amount) FILTER (WHERE bucket = 'available'), 0)::bigint AS available,
           coalesce(sum(amount) FILTER (WHERE bucket = 'blocked'), 0)::bigint AS blocked
      FROM ledger_entries
     WHERE account_id IS NOT NULL
     GROUP BY account_id
)
SELECT b.account_id, b.available, b.blocked,
       coalesce(s.available, 0) AS entries_available, coalesce(s.blocked, 0) AS entries_blocked
  FROM balances b LEFT JOIN sums s USING (account_id)
 WHERE b.available <> coalesce(s.available, 0) OR b.blocked <> coalesce(s.blocked, 0)
 ORDER BY b.account_id
"""

_UNBALANCED_TRANSACTIONS = """
SELECT transaction_id, sum(amount)::bigint AS total
  FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0
 ORDER BY transaction_id LIMIT 100
"""


async def check_ledger(
    conn: asyncpg.Connection[Any] | asyncpg.pool.PoolConnectionProxy[Any],
) -> dict[str, Any]:
    """The report of ``pixweb admin ledger check``; ``ok`` is true when all three proofs hold."""
    async with conn.transaction(isolation="repeatable_read", readonly=True):  # one snapshot for all three
        mismatched = await conn.fetch(_MISMATCHED_ACCOUNTS)
        unbalanced = await conn.fetch(_UNBALANCED_TRANSACTIONS)
        total = await conn.fetchval("SELECT coalesce(sum(amount), 0)::bigint FROM ledger_entries")
        accounts = await conn.fetchval("SELECT count(*) FROM balances")
        entries = await conn.fetchval("SELECT count(*) FROM ledger_entries")
    return {
        "ok": not mismatched and not unbalanced and total == 0,
        "accounts": accounts,
        "entries": entries,
        "entriesTotal": total,
        "mismatchedAccounts": [
            {
                "accountId": row["account_id"],
                "available": row["available"],
                "blocked": row["blocked"],
                "entriesAvailable": row["entries_available"],
                "entriesBlocked": row["entries_blocked"],
            }
            for row in mismatched
        ],
        "unbalancedTransactions": [
            {"transactionId": r["transaction_id"], "total": r["total"]} for r in unbalanced
        ],
    }
