"""Rows for the contract tests: new every time (the PostgreSQL database is shared by the run)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta

from pixcore.accounts.rules import Account, CertificateInfo, Counterpart, NewAccount
from pixcore.keys import PixKey, PixKeyType
from pixcore.ledger import receive
from pixcore.records import NewTransaction, NewTransfer, TransactionStatus, TransactionType
from pixcore.transfers.rules import Priority
from pixcore.unit_of_work import UnitOfWork
from tests.support import random_cpf

ISPB = "99999999"
OUTSIDE = "12345678"
"""An outside institution's ISPB."""

T0 = datetime(2001, 2, 3, 4, 5, 6, 789000, tzinfo=UTC)
"""A fixed time long past: a ``due``/``expired`` query at such a time finds only the test's own
rows, never the rest of the run's."""

FAR = datetime(2100, 1, 2, 3, 4, 5, tzinfo=UTC)
"""A time no worker of the run reaches: for pending rows (transfers, charges) a test commits."""


def new_account(name: str = "Test Holder") -> NewAccount:
    return NewAccount(ispb=ISPB, name=name, document=random_cpf(), city="RECIFE")


async def add_account(tx: UnitOfWork) -> Account:
    return await tx.accounts.add(new_account())


def email_key() -> PixKey:
    return PixKey(PixKeyType.EMAIL, f"{uuid.uuid4().hex}@example.com")


def phone_key() -> PixKey:
    return PixKey(PixKeyType.PHONE, "+55" + str(uuid.uuid4().int)[:11])


def certificate() -> CertificateInfo:
    name = uuid.uuid4().hex
    return CertificateInfo(
        fingerprint=hashlib.sha256(name.encode()).hexdigest(),
        subject=f"CN={name}",
        not_before=T0 - timedelta(days=1),
        not_after=T0 + timedelta(days=365),
    )


def e2e() -> str:
    return "E" + uuid.uuid4().hex[:31].upper()


PAYER = Counterpart("Outside Payer", "12345678909", OUTSIDE, "OTHER BANK", "0001", "123")


def receipt(account_id: int, amount: int = 1_000, *, at: datetime = T0) -> NewTransaction:
    """A confirmed PAYMENT (money in) from an outside payer."""
    return NewTransaction(
        account_id=account_id,
        type=TransactionType.PAYMENT,
        status=TransactionStatus.CONFIRMED,
        amount=amount,
        created_at=at,
        end_to_end_id=e2e(),
        counterpart=PAYER,
        processed_at=at,
    )


def withdrawal(account_id: int, amount: int = 500, *, at: datetime = T0) -> NewTransaction:
    """A PENDING WITHDRAW (a transfer's record)."""
    return NewTransaction(
        account_id=account_id,
        type=TransactionType.WITHDRAW,
        status=TransactionStatus.PENDING,
        amount=amount,
        created_at=at,
        end_to_end_id=e2e(),
        pix_key="someone@example.com",
    )


def new_transfer(
    transaction_id: int, account_id: int, *, settle_after: datetime = T0, amount: int = 500
) -> NewTransfer:
    return NewTransfer(
        transaction_id=transaction_id,
        account_id=account_id,
        idempotency_key=uuid.uuid4(),
        priority=Priority.HIGH,
        pix_key="someone@example.com",
        amount=amount,
        end_to_end_id=e2e(),
        creditor_name="Someone Outside",
        creditor_document="12345678909",
        creditor_ispb=OUTSIDE,
        behavior="settle",
        settle_after=settle_after,
        deadline=settle_after + timedelta(seconds=30),
        created_at=settle_after - timedelta(seconds=1),
        description="rent",
    )


async def funded(tx: UnitOfWork, amount: int = 1_000) -> tuple[int, int]:
    """A new account that received ``amount`` from outside: (account id, the receipt's id)."""
    account = await add_account(tx)
    transaction_id = await tx.transactions.add(receipt(account.id, amount))
    await tx.ledger.post(transaction_id, receive(account.id, amount, OUTSIDE), T0)
    return account.id, transaction_id
