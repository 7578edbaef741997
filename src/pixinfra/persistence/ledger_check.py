"""Reconciliation: balances equal the sum of their ledger entries, and money is conserved.

The ledger accounts are ours (an account's ``available`` and ``blocked``) and the
outside world's (one per institution, in the ``external`` bucket). The proofs,
each a query over one snapshot:
- every account's ``available`` and ``blocked`` equal the sums of its entries in those buckets
  (an account with entries and no balance row has a balance of zero);
- every transaction's entries sum to zero (each posting balances);
- all entries together, the outside world's included, sum to zero;
- the sum over every ledger account (our balances as the ``balances`` table holds them, plus
  each outside institution's entries) is zero: the constant that money being neither created
  nor destroyed keeps;
- no outside entry names the institution of one of our accounts: money between two of our
  accounts never leaves the service;
- a month of entries a retention pass let go counts by its sums, carried forward per ledger
  account into ``ledger_closings`` in the transaction that let it go.
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
      FROM (SELECT account_id, bucket, amount FROM ledger_entries WHERE account_id IS NOT NULL
            UNION ALL
            SELECT account_id, bucket, amount FROM ledger_closings WHERE account_id IS NOT NULL) e
     GROUP BY account_id
)
SELECT account_id, coalesce(b.available, 0) AS available, coalesce(b.blocked, 0) AS blocked,
       coalesce(s.available, 0) AS entries_available, coalesce(s.blocked, 0) AS entries_blocked
  FROM balances b FULL JOIN sums s USING (account_id)
 WHERE coalesce(b.available, 0) <> coalesce(s.available, 0)
    OR coalesce(b.blocked, 0) <> coalesce(s.blocked, 0)
 ORDER BY account_id
"""

_UNBALANCED_TRANSACTIONS = """
SELECT transaction_id, sum(amount)::bigint AS total
  FROM ledger_entries GROUP BY transaction_id HAVING sum(amount) <> 0
 ORDER BY transaction_id LIMIT 100
"""

_OUTSIDE = """
SELECT institution, sum(amount)::bigint AS balance,
       EXISTS (SELECT 1 FROM accounts a WHERE a.ispb = e.institution) AS ours
  FROM (SELECT institution, amount FROM ledger_entries WHERE institution IS NOT NULL
        UNION ALL
        SELECT institution, amount FROM ledger_closings WHERE institution IS NOT NULL) e
 GROUP BY institution ORDER BY institution
"""

_TOTALS = """
SELECT ((SELECT coalesce(sum(amount), 0) FROM ledger_entries)
        + (SELECT coalesce(sum(amount), 0) FROM ledger_closings))::bigint AS entries_total,
       (SELECT coalesce(sum(available + blocked), 0) FROM balances)::bigint AS ours,
       (SELECT count(*) FROM balances) AS accounts,
       (SELECT count(*) FROM ledger_entries) AS entries
"""


async def check_ledger(
    conn: asyncpg.Connection[Any] | asyncpg.pool.PoolConnectionProxy[Any],
) -> dict[str, Any]:
    """The report of ``pixweb admin ledger check``; ``ok`` is true when every proof holds.

    ``ledgerTotal`` is the sum over every ledger account: our balances (``ours``) plus the
    outside institutions' (``outside``). It is zero since the first posting and stays so.
    """
    async with conn.transaction(isolation="repeatable_read", readonly=True):  # one snapshot for all
        mismatched = await conn.fetch(_MISMATCHED_ACCOUNTS)
        unbalanced = await conn.fetch(_UNBALANCED_TRANSACTIONS)
        outside = await conn.fetch(_OUTSIDE)
        totals = await conn.fetchrow(_TOTALS)
    if totals is None:  # an aggregate always returns its row
        raise RuntimeError("the ledger totals query returned nothing")
    outside_total = sum(row["balance"] for row in outside)
    ledger_total = totals["ours"] + outside_total
    ours_outside = [row["institution"] for row in outside if row["ours"]]
    return {
        "ok": not mismatched
        and not unbalanced
        and totals["entries_total"] == 0
        and ledger_total == 0
        and not ours_outside,
        "accounts": totals["accounts"],
        "entries": totals["entries"],
        "ledgerTotal": ledger_total,
        "entriesTotal": totals["entries_total"],
        "ours": totals["ours"],
        "outside": [{"institution": row["institution"], "balance": row["balance"]} for row in outside],
        "outsideInstitutionsOfOurs": ours_outside,
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
