"""Shared data and helpers of the use-case tests (fixtures are in conftest.py)."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from pixcore.accounts.accounts_service import open_account
from pixcore.accounts.rules import CertificateInfo, OpenedAccount
from pixcore.clock import ManualClock
from pixcore.testing import (
    InMemoryStore,
    PlainHasher,
)

ISPB = "99999999"
HOLDER_CPF = "52998224725"
OTHER_CPF = "11144477735"
HOLDER_CNPJ = "11222333000181"
OTHER_CNPJ = "12ABC34501DE35"


async def open_test_account(
    store: InMemoryStore,
    hasher: PlainHasher,
    *,
    name: str = "Maria da Silva",
    document: str = HOLDER_CPF,
    city: str = "RECIFE",
    keys: tuple[str, ...] = (),
    ispb: str = ISPB,
    **address: str,
) -> OpenedAccount:
    """An account opened on ``store``; ``address``: its ``street``, ``state``, ``postal_code``."""
    return await open_account(
        store.unit_of_work, hasher, ispb=ispb, name=name, document=document, city=city, keys=keys, **address
    )


def certificate_for(clock: ManualClock, name: str = "client", *, days: int = 365) -> CertificateInfo:
    now = clock.now()
    return CertificateInfo(
        fingerprint=hashlib.sha256(name.encode()).hexdigest(),
        subject=f"CN={name}",
        not_before=now - timedelta(days=1),
        not_after=now + timedelta(days=days),
    )


def assert_store_empty(store: InMemoryStore) -> None:
    assert store.accounts == {}
    assert store.balances == {}
    assert store.keys == {}
    assert store.credentials == {}
    assert store.commits == 0
