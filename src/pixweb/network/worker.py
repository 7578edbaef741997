"""The network's messages, handled as they come: the service polls the SPI for its messages (a
long poll), handles each, and moves its cursor past it in its database.

* a payment to one of our accounts (pacs.008): answered at once, ACSP when the account its key
  names is the one it names (``answer_incoming``), RJCT with the reason otherwise; the answer's
  outcome, and later the SPI's pacs.002, credit the account once it is settled;
* a status report (pacs.002) of one of our transfers finishes it (``finish_payment``); of a
  payment we accepted, credits or drops it (``settle_incoming``).

Handling is idempotent (each use case finishes what is still open, once), so a message handled
again after a crash, before the cursor moved, changes nothing. The transfers due to the SPI are
sent from the settlement loop (``send_due_payments``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime

from pixcore.accounts.rules import Counterpart
from pixcore.clock import Clock
from pixcore.network.participant_service import (
    answer_incoming,
    credit_network_return,
    finish_payment,
    settle_incoming,
)
from pixcore.network.ports import NetworkUnavailable
from pixcore.network.rules import IncomingPayment, IncomingReturn
from pixcore.transfers.rules import SpiError
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.network.client import NetworkClient
from pixweb.network.spi import outcome_of
from pixwire.dict.model import DictProblem
from pixwire.spi.documents import Message, document, read, read_batch
from pixwire.spi.model import Payment, PaymentReturn, Reason, Status, StatusReport, new_message_id

__all__ = ["POLL_WAIT", "NetworkMessages"]

log = logging.getLogger(__name__)

POLL_WAIT = 10.0
"""Seconds a poll waits for a message before it is asked again."""
CONCURRENCY = 16
"""Messages of a batch handled at once."""
PAUSE = 1.0
"""Seconds between two polls while the network cannot be reached."""

_REASONS = {error: Reason(error.value) for error in SpiError if error.value in Reason.__members__}


class NetworkMessages:
    """The service's side of the network's message queue."""

    def __init__(self, client: NetworkClient, uow: UnitOfWorkFactory, clock: Clock, *, ispb: str) -> None:
        self._client = client
        self._uow = uow
        self._clock = clock
        self._ispb = ispb

    async def run(self, stop: asyncio.Event) -> None:
        """Poll and handle until ``stop`` is set. A round still going when it is set (most often
        a long poll waiting for a message) is given up at once: what it handled stays handled,
        and the cursor moves only past a whole batch, so the next start takes up the rest."""
        stopped = asyncio.create_task(stop.wait())
        try:
            while not stop.is_set():
                round_ = asyncio.create_task(self._round())
                await asyncio.wait({round_, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not round_.done():
                    round_.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await round_
        finally:
            stopped.cancel()

    async def _round(self) -> None:
        try:
            await self.poll(POLL_WAIT)
        except (NetworkUnavailable, DictProblem) as exc:
            log.warning("the network's messages wait: %s", getattr(exc, "reason", exc))
            await asyncio.sleep(PAUSE)
        except Exception:  # logged; the next poll starts from the cursor, nothing is lost
            log.exception("a network message could not be handled")
            await asyncio.sleep(PAUSE)

    async def poll(self, wait: float = 0) -> int:
        """One poll: the messages after the cursor handled, the cursor moved; how many."""
        async with self._uow() as tx:
            after = await tx.network.cursor()
        params = {"after": str(after), "wait": str(wait)}
        _, root = await self._client.call("GET", "/spi/v1/messages", params=params, wait=wait)
        messages, _ = read_batch(root)
        if not messages:
            return 0
        # Each message concerns one payment and is handled idempotently: a batch is handled at
        # once (a payee's answer to a payment is what makes its outcome, so no message of a batch
        # waits for another), and the cursor moves past the batch once all of it is handled.
        slots = asyncio.Semaphore(CONCURRENCY)

        async def handled(message: Message) -> None:
            async with slots:
                await self.handle(message)

        await asyncio.gather(*(handled(message) for _, message in messages))
        async with self._uow() as tx:
            await tx.network.advance(messages[-1][0])
            await tx.commit()
        return len(messages)

    async def handle(self, message: Message) -> None:
        if isinstance(message, Payment):
            await self._answer(message)
        elif isinstance(message, PaymentReturn):
            returned = IncomingReturn(
                message.return_id, message.end_to_end_id, message.amount, message.remittance
            )
            await credit_network_return(self._uow, self._clock, returned)
        elif message.return_id is None:  # a report of a payment (of one of our returns: nothing to do,
            # its refund was finished by the SPI's answer when it was sent, or is sent again)
            outcome = outcome_of(message)
            await finish_payment(self._uow, self._clock, message.end_to_end_id, outcome)
            await settle_incoming(self._uow, self._clock, message.end_to_end_id, outcome)

    async def _answer(self, payment: Payment) -> None:
        debtor, creditor = payment.debtor, payment.creditor
        incoming = IncomingPayment(
            end_to_end_id=payment.end_to_end_id,
            amount=payment.amount,
            payer=Counterpart(
                debtor.name or "",
                debtor.tax_id,
                debtor.ispb,
                f"ISPB {debtor.ispb}",
                debtor.branch or "",
                debtor.account,
            ),
            branch=creditor.branch,
            account_number=creditor.account,
            tax_id=creditor.tax_id,
            key=payment.key,
            description=payment.remittance,
        )
        refusal = await answer_incoming(self._uow, self._clock, incoming)
        answer = StatusReport(
            message_id=new_message_id(self._ispb),
            end_to_end_id=payment.end_to_end_id,
            status=Status.ACSP if refusal is None else Status.RJCT,
            created_at=datetime.now(UTC),
            reason=None if refusal is None else _REASONS.get(refusal, Reason.DS04),
        )
        _, root = await self._client.call(
            "POST", "/spi/v1/messages", body=self._client.signed(document(answer))
        )
        report = read(root)
        if isinstance(report, StatusReport):
            await settle_incoming(self._uow, self._clock, payment.end_to_end_id, outcome_of(report))
