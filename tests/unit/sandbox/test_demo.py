"""The demo account of ``make run``: a sandbox administrator, and never made in production mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from pixcore.testing import InMemoryStore, PlainHasher
from pixinfra.settings import Settings
from pixweb.demo import ensure_demo


async def test_the_demo_account_may_move_the_sandbox_clock(tmp_path: Path) -> None:
    store = InMemoryStore()
    demo, created = await ensure_demo(Settings(data_dir=tmp_path), store.unit_of_work, PlainHasher())
    assert created
    async with store.unit_of_work() as tx:
        account = await tx.accounts.get(demo.account_id)
    assert account is not None
    assert account.sandbox_admin


async def test_production_mode_makes_no_demo_account(tmp_path: Path) -> None:
    store = InMemoryStore()
    settings = Settings(data_dir=tmp_path, production=True, sandbox=False)
    with pytest.raises(ValueError, match="production"):
        await ensure_demo(settings, store.unit_of_work, PlainHasher())
    async with store.unit_of_work() as tx:
        assert await tx.accounts.get(1) is None
    assert not (tmp_path / "demo").exists()
