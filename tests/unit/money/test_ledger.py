"""The double-entry ledger: postings balance, and the fake ledger keeps every balance sound."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from pixcore import ledger
from pixcore.accounts.rules import Account, Balance, NewAccount
from pixcore.errors import InsufficientFunds
from pixcore.ledger import Bucket, Entry, Posting
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import (
    InMemoryStore,
    InMemoryUnitOfWork,
    IntegrityError,
    StoredEntry,
    external_total,
    ledger_check,
)
from tests.unit.usecase_helpers import HOLDER_CPF, ISPB, OTHER_CPF

NOW = datetime(2026, 1, 1, tzinfo=UTC)
ELSEWHERE = "12345678"
"""An outside institution (the accounts here are of ``ISPB``)."""

# Every posting builder, as a function of (first account, second account, amount).
BUILDERS: dict[str, Callable[[int, int, int], Posting]] = {
    "reserve": lambda a, _b, x: ledger.reserve(a, x),
    "release": lambda a, _b, x: ledger.release(a, x),
    "settle_out": lambda a, _b, x: ledger.settle_out(a, x, ELSEWHERE),
    "settle_in": ledger.settle_in,
    "receive": lambda a, _b, x: ledger.receive(a, x, ELSEWHERE),
}

# -- postings --------------------------------------------------------------------------


@given(st.sampled_from(sorted(BUILDERS)), st.integers(1, 10**12), st.integers(1, 50), st.integers(1, 50))
def test_every_posting_balances(name: str, amount: int, first: int, second: int) -> None:
    posting = BUILDERS[name](first, second, amount)

    assert posting.name == name
    assert sum(entry.amount for entry in posting.entries) == 0
    assert sorted(abs(entry.amount) for entry in posting.entries) == [amount, amount]
    for entry in posting.entries:
        assert (entry.account_id is None) == (entry.bucket is Bucket.EXTERNAL)
        assert entry.institution == (ELSEWHERE if entry.account_id is None else None)


@pytest.mark.parametrize(
    ("posting", "deltas"),
    [
        (ledger.reserve(1, 500), {1: (-500, 500)}),
        (ledger.release(1, 500), {1: (500, -500)}),
        (ledger.settle_out(1, 500, ELSEWHERE), {1: (0, -500)}),
        (ledger.settle_in(1, 2, 500), {1: (0, -500), 2: (500, 0)}),
        (ledger.settle_in(3, 3, 500), {3: (500, -500)}),
        (ledger.receive(2, 500, ELSEWHERE), {2: (500, 0)}),
    ],
)
def test_deltas_are_the_change_of_available_and_blocked_per_account(
    posting: Posting, deltas: dict[int, tuple[int, int]]
) -> None:
    assert posting.deltas() == deltas


@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize("amount", [0, -1, -500])
def test_postings_move_a_positive_amount(name: str, amount: int) -> None:
    with pytest.raises(ValueError, match=r"^postings move a positive amount$"):
        BUILDERS[name](1, 2, amount)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ((Entry(1, Bucket.AVAILABLE, -5), Entry(1, Bucket.BLOCKED, 4)), "^posting bad does not balance$"),
        ((Entry(1, Bucket.AVAILABLE, 0), Entry(1, Bucket.BLOCKED, 0)), "^posting bad has an empty entry$"),
        (
            (Entry(1, Bucket.EXTERNAL, -5), Entry(1, Bucket.AVAILABLE, 5)),
            "^only the outside world has no account, and it has only the external bucket$",
        ),
        (
            (Entry(None, Bucket.AVAILABLE, -5), Entry(1, Bucket.AVAILABLE, 5)),
            "^only the outside world has no account, and it has only the external bucket$",
        ),
        (
            (Entry(None, Bucket.EXTERNAL, -5), Entry(1, Bucket.AVAILABLE, 5)),
            "^an outside entry names its institution, and only an outside entry does$",
        ),
        ((Entry(None, Bucket.EXTERNAL, -5, "1234"), Entry(1, Bucket.AVAILABLE, 5)), "8 digits"),
        ((Entry(None, Bucket.EXTERNAL, -5, ELSEWHERE), Entry(1, Bucket.AVAILABLE, 5, ELSEWHERE)), "only"),
    ],
)
def test_a_malformed_posting_is_refused(entries: tuple[Entry, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Posting("bad", entries)


# -- the fake ledger ---------------------------------------------------------------------


async def _open(tx: InMemoryUnitOfWork, document: str = HOLDER_CPF) -> Account:
    return await tx.accounts.add(NewAccount(ISPB, "Maria", document, "RECIFE"))


async def _record(tx: InMemoryUnitOfWork, account_id: int, amount: int) -> int:
    return await tx.transactions.add(
        NewTransaction(account_id, TransactionType.PAYMENT, TransactionStatus.CONFIRMED, amount, NOW)
    )


async def _post(tx: InMemoryUnitOfWork, account_id: int, posting: Posting) -> int:
    transaction_id = await _record(tx, account_id, 1)
    await tx.ledger.post(transaction_id, posting, NOW)
    return transaction_id


async def _funded(store: InMemoryStore, *amounts: int) -> list[int]:
    """Open one account per amount, each funded by a receipt from outside, committed."""
    async with store.unit_of_work() as tx:
        ids = [(await _open(tx)).id for _ in amounts]
        for account_id, amount in zip(ids, amounts, strict=True):
            await _post(tx, account_id, ledger.receive(account_id, amount, ELSEWHERE))
        await tx.commit()
    return ids


async def test_a_posting_the_balance_does_not_cover_changes_nothing(store: InMemoryStore) -> None:
    (sender,) = await _funded(store, 100)
    async with store.unit_of_work() as tx:
        receiver = (await _open(tx, OTHER_CPF)).id
        transaction_id = await _record(tx, sender, 150)
        with pytest.raises(InsufficientFunds):
            await tx.ledger.post(transaction_id, ledger.reserve(sender, 150), NOW)
        with pytest.raises(InsufficientFunds):  # the receiver's side would fit: it is not applied either
            await tx.ledger.post(transaction_id, ledger.settle_in(sender, receiver, 1), NOW)
        assert await tx.balances.get(sender) == Balance(100, 0)
        assert await tx.balances.get(receiver) == Balance(0, 0)

        await tx.ledger.post(transaction_id, ledger.reserve(sender, 100), NOW)
        assert await tx.balances.get(sender) == Balance(0, 100)
        await tx.commit()

    assert store.balances[sender] == Balance(0, 100)
    assert [e.posting for e in store.entries if e.transaction_id == transaction_id] == ["reserve", "reserve"]
    assert ledger_check(store) == []


async def test_postings_are_staged_until_commit(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    entries = list(store.entries)
    async with store.unit_of_work() as tx:
        await _post(tx, account, ledger.reserve(account, 40))
        async with store.unit_of_work() as other:
            assert await other.balances.get(account) == Balance(100, 0)
    assert store.balances[account] == Balance(100, 0)
    assert store.entries == entries


async def test_a_posting_needs_its_transaction_and_its_accounts(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    async with store.unit_of_work() as tx:
        with pytest.raises(IntegrityError):
            await tx.ledger.post(404, ledger.reserve(account, 1), NOW)
        with pytest.raises(IntegrityError):
            await _post(tx, account, ledger.receive(404, 1, ELSEWHERE))


async def test_the_second_of_two_units_spending_the_same_money_fails_at_commit(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    async with store.unit_of_work() as first, store.unit_of_work() as second:
        await _post(first, account, ledger.reserve(account, 60))
        lost = await _post(second, account, ledger.reserve(account, 60))  # it saw 100 available
        await first.commit()
        with pytest.raises(InsufficientFunds):
            await second.commit()

    assert store.balances[account] == Balance(40, 60)
    assert lost not in store.transactions
    assert ledger_check(store) == []


async def test_two_units_that_both_fit_both_commit_and_lose_no_update(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    async with store.unit_of_work() as first, store.unit_of_work() as second:
        await _post(first, account, ledger.reserve(account, 30))
        await _post(second, account, ledger.reserve(account, 30))
        await first.commit()
        await second.commit()

    assert store.balances[account] == Balance(40, 60)
    assert ledger_check(store) == []


# -- ledger_check finds what is wrong ---------------------------------------------------


async def test_ledger_check_reports_a_balance_that_is_not_the_sum_of_its_entries(
    store: InMemoryStore,
) -> None:
    (account,) = await _funded(store, 100)
    assert ledger_check(store) == []

    store.balances[account] = Balance(100, 5)

    assert ledger_check(store) == [
        f"account {account}: blocked is 5, its entries sum to 0",
        "money moved: our balances (105) and the outside's (-100) do not cancel",
    ]


async def test_ledger_check_reports_a_transaction_that_does_not_sum_to_zero(store: InMemoryStore) -> None:
    await _funded(store, 100)
    transaction_id = store.entries[0].transaction_id
    store.entries.append(StoredEntry(transaction_id, "forged", None, Bucket.EXTERNAL, 7, NOW, ELSEWHERE))

    assert ledger_check(store) == [
        f"transaction {transaction_id}: its entries sum to 7, not 0",
        "money moved: our balances (100) and the outside's (-93) do not cancel",
    ]


async def test_ledger_check_reports_entries_of_an_account_without_balance(store: InMemoryStore) -> None:
    await _funded(store, 100)
    store.entries.append(StoredEntry(99, "forged", 42, Bucket.AVAILABLE, 7, NOW))
    store.entries.append(StoredEntry(99, "forged", None, Bucket.EXTERNAL, -7, NOW, ELSEWHERE))

    assert ledger_check(store) == [
        "account 42 has entries but no balance",
        "money moved: our balances (100) and the outside's (-107) do not cancel",
    ]


async def test_ledger_check_reports_money_sent_to_our_own_institution(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    transaction_id = store.entries[0].transaction_id
    # What a refund between two of our accounts once did: the money "left" to our own ISPB.
    store.entries.append(StoredEntry(transaction_id, "forged", account, Bucket.AVAILABLE, -10, NOW))
    store.entries.append(StoredEntry(transaction_id, "forged", None, Bucket.EXTERNAL, 10, NOW, ISPB))
    store.balances[account] = Balance(90, 0)

    assert ledger_check(store) == [
        f"an outside entry of transaction {transaction_id} names our own institution {ISPB}"
    ]


async def test_the_fake_ledger_refuses_an_outside_entry_of_our_own_institution(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    async with store.unit_of_work() as tx:
        with pytest.raises(IntegrityError, match="institution of one of our accounts"):
            await _post(tx, account, ledger.receive(account, 5, ISPB))
    assert store.balances[account] == Balance(100, 0)


async def test_ledger_check_reports_a_negative_balance(store: InMemoryStore) -> None:
    (account,) = await _funded(store, 100)
    negative = object.__new__(Balance)  # Balance refuses to be negative: forge one as a bug would
    object.__setattr__(negative, "available", -1)
    object.__setattr__(negative, "blocked", 0)
    store.balances[account] = negative

    assert f"account {account}: available is negative (-1)" in ledger_check(store)


# -- random sequences of postings --------------------------------------------------------

ACCOUNTS = 3


def _draw_amount(data: st.DataObject, name: str, source: int) -> int:
    """Receipts bring in up to 50 reais; a spend is drawn around what its bucket holds,
    so that about half fit and half would overdraw."""
    if name == "receive":
        return data.draw(st.integers(1, 5_000), label="amount")
    return data.draw(st.integers(1, max(1, 2 * source)), label="amount")


def _expected(model: dict[int, list[int]], name: str, a: int, b: int, amount: int) -> dict[int, list[int]]:
    """The balances after the posting, computed by hand from the table in pixcore.ledger."""
    after = {account: list(held) for account, held in model.items()}
    if name == "receive":
        after[a][0] += amount
    elif name == "reserve":
        after[a][0] -= amount
        after[a][1] += amount
    elif name == "release":
        after[a][0] += amount
        after[a][1] -= amount
    elif name == "settle_out":
        after[a][1] -= amount
    else:  # settle_in
        after[a][1] -= amount
        after[b][0] += amount
    return after


@given(st.data())
async def test_random_postings_never_overdraw_and_conserve_money(data: st.DataObject) -> None:
    store = InMemoryStore()
    async with store.unit_of_work() as tx:
        ids = [(await _open(tx)).id for _ in range(ACCOUNTS)]
        await tx.commit()
    model = {account: [0, 0] for account in ids}

    for _ in range(data.draw(st.integers(0, 25), label="steps")):
        name = data.draw(st.sampled_from(sorted(BUILDERS)), label="posting")
        a, b = (
            data.draw(st.sampled_from(ids), label="account"),
            data.draw(st.sampled_from(ids), label="other"),
        )
        amount = _draw_amount(data, name, model[a][0] if name == "reserve" else model[a][1])
        expected = _expected(model, name, a, b, amount)
        fits = all(value >= 0 for held in expected.values() for value in held)
        event(f"{name} {'applied' if fits else 'refused'}")
        before = (dict(store.transactions), len(store.entries))
        async with store.unit_of_work() as tx:
            try:
                await _post(tx, a, BUILDERS[name](a, b, amount))
            except InsufficientFunds:
                assert not fits
            else:
                assert fits
                await tx.commit()
        if fits:
            model = expected
        else:
            assert (store.transactions, len(store.entries)) == before

        assert {account: [bal.available, bal.blocked] for account, bal in store.balances.items()} == model
        assert ledger_check(store) == []
        total = sum(bal.available + bal.blocked for bal in store.balances.values())
        assert total + external_total(store) == 0  # every centavo came from outside, none vanished
