"""``Posting.deltas`` sums every entry of an account, however many a posting holds per bucket.

The service's own postings carry one entry per account and bucket, so a ``deltas`` that kept
only the last entry passed every test (a mutant ``make mutate`` found, docs/testing.md).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pixcore.ledger import Bucket, Entry, Posting

LINES = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=3),
        st.sampled_from([Bucket.AVAILABLE, Bucket.BLOCKED]),
        st.integers(min_value=1, max_value=10_000),
    ),
    min_size=1,
    max_size=6,
)


@given(LINES)
def test_deltas_are_the_sums_per_account_and_bucket(lines: list[tuple[int, Bucket, int]]) -> None:
    # Each line moves its amount into a bucket; account 4's available pays for all of them.
    total = sum(amount for _, _, amount in lines)
    entries = [Entry(account, bucket, amount) for account, bucket, amount in lines]
    posting = Posting("spread", (*entries, Entry(4, Bucket.AVAILABLE, -total)))

    expected: dict[int, tuple[int, int]] = {4: (-total, 0)}
    for account, bucket, amount in lines:
        available, blocked = expected.get(account, (0, 0))
        if bucket is Bucket.AVAILABLE:
            expected[account] = (available + amount, blocked)
        else:
            expected[account] = (available, blocked + amount)
    assert posting.deltas() == expected


def test_two_entries_in_one_bucket_add_up() -> None:
    posting = Posting(
        "two",
        (Entry(1, Bucket.AVAILABLE, 5), Entry(1, Bucket.AVAILABLE, 3), Entry(1, Bucket.BLOCKED, -8)),
    )

    assert posting.deltas() == {1: (8, -8)}
