"""The contracts of the service as a network participant: the transfers the SPI settles
(``TransferRepository.due_to_spi``, ``mark_sent``, ``lock_pending_by_end_to_end``) and
``NetworkRepository`` (the payments received through the SPI, the messages' cursor)."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Counterpart
from pixcore.network.rules import IncomingPayment, MedLink, NetworkReceipt, ReceiptState
from pixcore.refunds.med import MedReason, NewMedCase
from pixcore.refunds.rules import NewRefund, RefundKind, RefundNature
from pixcore.transfers.rules import SPI_BEHAVIOR, TransferState
from tests.contract.conftest import Backend
from tests.contract.rows import PAYER, T0, add_account, e2e, new_transfer, receipt, withdrawal


async def test_transfers_the_spi_settles_are_sent_not_settled_here(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)

        async def add(settle_after_s: int, behavior: str = SPI_BEHAVIOR) -> tuple[int, str]:
            transaction_id = await tx.transactions.add(withdrawal(account.id))
            new = new_transfer(
                transaction_id, account.id, settle_after=T0 + timedelta(seconds=settle_after_s)
            )
            await tx.transfers.add(dataclasses.replace(new, behavior=behavior))
            return transaction_id, new.end_to_end_id

        (spi, spi_e2e), (later, _) = await add(10), await add(100)
        (local, _) = await add(10, "settle")
        now = T0 + timedelta(seconds=50)
        due_here = await tx.transfers.due(now + timedelta(days=1), 100)
        assert local in due_here
        assert spi not in due_here  # not even past its deadline: its outcome is the SPI's
        assert spi in await tx.transfers.due_to_spi(now, now - timedelta(seconds=5), 100)
        assert later not in await tx.transfers.due_to_spi(now, now - timedelta(seconds=5), 100)
        assert local not in await tx.transfers.due_to_spi(now, now - timedelta(seconds=5), 100)

        await tx.transfers.mark_sent([spi], now)
        sent = await tx.transfers.get(spi)
        assert sent is not None
        assert sent.sent_at == now
        assert spi not in await tx.transfers.due_to_spi(now, now - timedelta(seconds=5), 100)
        resend = now + timedelta(seconds=5)
        assert spi in await tx.transfers.due_to_spi(resend, resend - timedelta(seconds=5), 100)

        locked = await tx.transfers.lock_pending_by_end_to_end(spi_e2e)
        assert locked == sent
        await tx.transfers.finish(spi, TransferState.COMPLETED, None, now)
        assert await tx.transfers.lock_pending_by_end_to_end(spi_e2e) is None
        assert await tx.transfers.lock_pending_by_end_to_end(e2e()) is None


def incoming(amount: int = 700) -> IncomingPayment:
    return IncomingPayment(
        end_to_end_id=e2e(),
        amount=amount,
        payer=PAYER,
        branch="0001",
        account_number="42",
        tax_id="12345678909",
        key="someone@example.com",
        description="almoço",
    )


async def test_a_received_payment_is_accepted_once_then_finished_once(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        payment = incoming()
        accepted = NetworkReceipt(payment, account.id, ReceiptState.ACCEPTED, T0)
        assert await tx.network.accept(accepted) is True
        assert (
            await tx.network.accept(
                dataclasses.replace(accepted, payment=dataclasses.replace(payment, amount=1))
            )
            is False
        )
        assert await tx.network.receipt(payment.end_to_end_id) == accepted
        assert await tx.network.lock_accepted(payment.end_to_end_id) == accepted

        credited = await tx.transactions.add(receipt(account.id, payment.amount))
        await tx.network.finish(
            payment.end_to_end_id, ReceiptState.CREDITED, credited, T0 + timedelta(seconds=1)
        )
        assert await tx.network.lock_accepted(payment.end_to_end_id) is None
        assert await tx.network.receipt(payment.end_to_end_id) == dataclasses.replace(
            accepted,
            state=ReceiptState.CREDITED,
            transaction_id=credited,
            finished_at=T0 + timedelta(seconds=1),
        )
        assert await tx.network.receipt(e2e()) is None


async def test_a_received_payment_needs_its_account(backend: Backend) -> None:
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.network.accept(NetworkReceipt(incoming(), -1, ReceiptState.ACCEPTED, T0))


async def test_a_payment_accepted_and_committed_is_kept(backend: Backend) -> None:
    payment = incoming()
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.network.accept(NetworkReceipt(payment, account.id, ReceiptState.ACCEPTED, T0))
        await tx.commit()
    async with backend.uow() as tx:
        kept = await tx.network.receipt(payment.end_to_end_id)
        assert kept is not None
        assert (kept.payment, kept.state) == (payment, ReceiptState.ACCEPTED)


async def test_a_transfer_records_its_creditor(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        creditor = Counterpart("Someone Outside", "12345678909", "22222222", "OTHER BANK", "0001", "98765")
        record = dataclasses.replace(withdrawal(account.id), counterpart=creditor)
        transaction_id = await tx.transactions.add(record)
        assert await tx.network.counterpart_of(transaction_id) == creditor
        assert await tx.network.counterpart_of(-1) is None


async def test_the_cursor_only_goes_forward(backend: Backend) -> None:
    async with backend.uow() as tx:  # rolled back: the run's database is shared
        before = await tx.network.cursor()
        await tx.network.advance(before + 5)
        assert await tx.network.cursor() == before + 5
        await tx.network.advance(before + 1)
        assert await tx.network.cursor() == before + 5


async def test_a_transfer_is_found_by_its_end_to_end_id_and_a_return_by_its_id(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        transaction_id = await tx.transactions.add(withdrawal(account.id))
        new = new_transfer(transaction_id, account.id)
        await tx.transfers.add(new)
        assert await tx.network.transfer_account(new.end_to_end_id) == account.id
        assert await tx.network.transfer_account(e2e()) is None

        return_id = "D" + e2e()[1:]
        assert await tx.network.return_received(return_id) is False
        record = await tx.transactions.add(
            dataclasses.replace(receipt(account.id, 100), end_to_end_id=return_id)
        )
        await tx.refunds.add(
            NewRefund(
                kind=RefundKind.RECEIVED,
                account_id=account.id,
                original_transaction_id=transaction_id,
                refund_id=return_id,
                rtr_id=return_id,
                amount=100,
                nature=RefundNature.ORIGINAL,
                description=None,
                requested_at=T0,
                process_after=T0,
                transaction_id=record,
                reserved=False,
            )
        )
        assert await tx.network.return_received(return_id) is True


async def test_a_med_link_is_kept_listed_while_open_and_closed_once(backend: Backend) -> None:
    """A refund request of the DICT and the MED case it opened: listed until closed, then found
    still (a request seen again is not opened twice); a second link of one request is refused."""
    async with backend.uow() as tx:
        account = await add_account(tx)
        original = await tx.transactions.add(receipt(account.id))
        case = await tx.med.add(
            NewMedCase(
                account_id=account.id,
                original_transaction_id=original,
                end_to_end_id=e2e(),
                reason=MedReason.MED_FRAUDE,
                amount=1_000,
                blocked=1_000,
                created_at=T0,
            )
        )
        link = MedLink(str(uuid.uuid4()), case.id, account.id, case.end_to_end_id, str(uuid.uuid4()))
        await tx.network.link_med(link)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.network.med_link(link.refund_id) == link
        assert link in await tx.network.med_links()
        assert await tx.network.med_link(str(uuid.uuid4())) is None
        await tx.network.close_med(link.refund_id, T0)
        await tx.commit()
    async with backend.uow() as tx:
        assert link not in await tx.network.med_links()
        assert await tx.network.med_link(link.refund_id) == link
    async with backend.uow() as tx:
        with pytest.raises(backend.refused):
            await tx.network.link_med(link)
