"""Drives the real service and the reference model side by side, and compares them.

Each operation makes one request (or runs the workers' use cases), checks the
answer against what the model says (status, ids, amounts) and updates the model.
``check`` then compares the whole state of the example's accounts with the model
(``money_compare.differences``).
"""

from __future__ import annotations

from pixcore.charges.cob_service import sweep_expired_charges
from pixcore.group_commit.settlement import settle_in_groups
from pixcore.recurrences import run_recurring_charges
from pixcore.refunds.refund_service import process_due_refunds
from tests.e2e.money_model.money_charges import Charges
from tests.e2e.money_model.money_compare import differences
from tests.e2e.money_model.money_recurring import Recurring
from tests.e2e.money_model.money_refunds import Refunds
from tests.e2e.money_model.money_requests import ACCOUNTS, PAYER_ISPB, open_client
from tests.e2e.money_model.money_service import ModelService, advance_clock, cents, token_for
from tests.e2e.money_model.money_transfers import Transfers
from tests.support import add_external_key

__all__ = ["ACCOUNTS", "Driver", "cents"]


class Driver(Transfers, Charges, Recurring, Refunds):
    """One example: three fresh accounts, two outside keys, the model, and the comparisons; its
    operations (one module per kind), time, and the workers' round."""

    @classmethod
    async def start(cls, service: ModelService) -> Driver:
        clients = [await open_client(service) for _ in range(ACCOUNTS)]
        auth = await token_for(service, clients[0])
        outside = [
            await add_external_key(service.http, auth, behavior=behavior, ispb=PAYER_ISPB)
            for behavior in ("settle", "reject")
        ]
        return cls(service, clients, outside)

    async def advance(self, seconds: int) -> None:
        await advance_clock(self.service, seconds)
        self.model.advance(seconds)
        assert self.service.clock.now() == self.model.now

    async def run_workers(self) -> None:
        """A round of the settlement loop, by its use cases, until nothing is left to do. Transfers
        settle in groups of ``PIX_TRANSFER_BATCH_SIZE`` as the app's loop settles them."""
        uow, clock, size = self.service.uow, self.service.clock, self.service.settings.transfer_batch_size
        while await settle_in_groups(uow, clock, size=size):
            pass
        while await process_due_refunds(uow, clock):
            pass
        await sweep_expired_charges(uow, clock)
        while await run_recurring_charges(uow, clock):
            pass
        self.model.run_workers()
        await self._learn_recurring_receipts()

    # --- the comparison ----------------------------------------------------------------------

    async def check(self) -> None:
        found = await differences(self)
        assert not found, "the service and the model differ:\n" + "\n".join(found)
