"""The ports of the service as a participant: the network's SPI (:class:`PaymentNetwork`) and what
the service keeps of the payments it receives through it (:class:`NetworkRepository`)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pixcore.accounts.rules import Counterpart
from pixcore.errors import ServiceBusy
from pixcore.network.rules import (
    MedLink,
    NetworkReceipt,
    Outcome,
    OutgoingPayment,
    OutgoingReturn,
    ReceiptState,
)

__all__ = ["NetworkRepository", "NetworkUnavailable", "PaymentNetwork"]


class NetworkUnavailable(ServiceBusy):
    """The network could not be reached or did not answer: try again later (nothing is known).
    A request that needed it is answered 503, as for a busy service."""

    def __init__(self, reason: str) -> None:
        super().__init__("The PIX network is unavailable. Retry shortly.")
        self.reason = reason
        """What failed, for the logs (the client is told only that the network is unavailable)."""


class PaymentNetwork(Protocol):
    async def send(self, payment: OutgoingPayment) -> Outcome:
        """Send ``payment`` to the SPI; sending it again is safe (the SPI knows it by its
        end-to-end id) and answers where it stands. :class:`NetworkUnavailable` when the network
        cannot be reached; a payment the network refuses outright is an :class:`Outcome` refused."""
        ...

    async def send_return(self, returned: OutgoingReturn) -> Outcome:
        """Send a refund of a payment received through the network: settled or refused at once
        (sending it again answers the same: the SPI knows it by its return id).
        :class:`NetworkUnavailable` when the network cannot be reached."""
        ...


class NetworkRepository(Protocol):
    async def accept(self, receipt: NetworkReceipt) -> bool:
        """Keep a payment the service accepts; False (nothing kept) if its end-to-end id is known."""
        ...

    async def receipt(self, end_to_end_id: str) -> NetworkReceipt | None: ...

    async def lock_accepted(self, end_to_end_id: str) -> NetworkReceipt | None:
        """The receipt, still ACCEPTED, locked until the unit of work ends; None otherwise."""
        ...

    async def finish(
        self, end_to_end_id: str, state: ReceiptState, transaction_id: int | None, at: datetime
    ) -> None: ...

    async def return_received(self, return_id: str) -> bool:
        """Whether a return with this id was credited to one of this service's transfers."""
        ...

    async def transfer_account(self, end_to_end_id: str) -> int | None:
        """The account that sent the transfer with this end-to-end id, if one did."""
        ...

    async def counterpart_of(self, transaction_id: int) -> Counterpart | None:
        """The counterpart a transaction record names (for a transfer: its creditor's account)."""
        ...

    async def cursor(self) -> int:
        """The id of the last network message handled (0 before the first)."""
        ...

    async def advance(self, cursor: int) -> None:
        """Record that the messages up to ``cursor`` are handled."""
        ...

    async def link_med(self, link: MedLink) -> None:
        """Keep the MED case a refund request of the DICT opened here."""
        ...

    async def med_link(self, refund_id: str) -> MedLink | None:
        """The link of a refund request of the DICT, closed or not."""
        ...

    async def med_links(self) -> list[MedLink]:
        """The links not closed yet (their requests still open at the DICT)."""
        ...

    async def close_med(self, refund_id: str, at: datetime) -> None: ...
