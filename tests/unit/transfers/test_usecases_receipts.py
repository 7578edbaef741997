"""A receipt for a key the service does not know, or (in the sandbox) a key of another account."""

from __future__ import annotations

import pytest

from pixcore.errors import KeyNotInDirectory
from pixcore.keys import parse_pix_key
from pixcore.transfers.receipt_service import receive_payment
from tests.unit.transfer_world import PAYER, World


async def test_an_unknown_key_is_not_in_the_directory(world: World) -> None:
    with pytest.raises(KeyNotInDirectory) as refused:
        await receive_payment(
            world.store.unit_of_work,
            world.clock,
            key=parse_pix_key("nobody@example.com"),
            amount=1,
            payer=PAYER,
        )

    assert refused.value.message == KeyNotInDirectory().message


async def test_the_sandbox_pays_only_the_callers_own_keys(world: World) -> None:
    before = dict(world.store.balances)

    with pytest.raises(KeyNotInDirectory) as refused:
        await receive_payment(
            world.store.unit_of_work,
            world.clock,
            key=parse_pix_key("joao@example.com"),
            amount=1,
            payer=PAYER,
            only_for=world.sender.id,
        )

    assert refused.value.message == "The key is not a key of your account."
    assert world.store.balances == before
