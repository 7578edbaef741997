"""Invariants of the ledger, checked over everything a store has committed."""

from __future__ import annotations

from collections import defaultdict

from pixcore.ledger import Bucket
from pixcore.testing._store import StoreState

__all__ = ["external_total", "ledger_check"]


def ledger_check(store: StoreState) -> list[str]:
    """The ledger's problems, one sentence each; an empty list means it is sound.

    * every account's balance is, bucket by bucket, the sum of its entries;
    * no entry belongs to an account without a balance;
    * the entries of every transaction sum to zero;
    * no balance is negative;
    * the sum over every ledger account (our balances, and each outside institution's entries)
      is zero: money is neither created nor destroyed;
    * no outside entry names the institution of one of our accounts.
    """
    problems: list[str] = []
    sums: dict[int, dict[Bucket, int]] = defaultdict(lambda: {Bucket.AVAILABLE: 0, Bucket.BLOCKED: 0})
    per_transaction: dict[int, int] = defaultdict(int)
    for entry in store.entries:
        per_transaction[entry.transaction_id] += entry.amount
        if entry.account_id is not None:
            sums[entry.account_id][entry.bucket] += entry.amount
    for account_id, balance in sorted(store.balances.items()):
        total = sums.get(account_id, {Bucket.AVAILABLE: 0, Bucket.BLOCKED: 0})
        for bucket, held in ((Bucket.AVAILABLE, balance.available), (Bucket.BLOCKED, balance.blocked)):
            if held != total[bucket]:
                problems.append(
                    f"account {account_id}: {bucket.value} is {held}, its entries sum to {total[bucket]}"
                )
            if held < 0:
                problems.append(f"account {account_id}: {bucket.value} is negative ({held})")
    problems.extend(
        f"account {account_id} has entries but no balance"
        for account_id in sorted(sums.keys() - store.balances.keys())
    )
    problems.extend(
        f"transaction {transaction_id}: its entries sum to {total}, not 0"
        for transaction_id, total in sorted(per_transaction.items())
        if total
    )
    held, outside = sum(b.available + b.blocked for b in store.balances.values()), external_total(store)
    if held + outside != 0:
        problems.append(f"money moved: our balances ({held}) and the outside's ({outside}) do not cancel")
    ours = {account.ispb for account in store.accounts.values()}
    problems.extend(
        f"an outside entry of transaction {e.transaction_id} names our own institution {e.institution}"
        for e in store.entries
        if e.institution in ours
    )
    return problems


def external_total(store: StoreState) -> int:
    """The outside world's balance: what it received from the service less what it sent in."""
    return sum(entry.amount for entry in store.entries if entry.bucket is Bucket.EXTERNAL)
