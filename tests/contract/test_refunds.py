"""The contracts of ``RefundRepository`` and ``MedRepository``.

The originals a refund refers to (``lock_original``, ``original_of``) as plain receipts are in
test_money.py; here, the originals that name another account of ours or a charge.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import timedelta

import pytest

from pixcore.errors import DuplicateMedCase
from pixcore.queries.standard import parse_received_query
from pixcore.records import TransactionStatus, TransactionType
from pixcore.refunds.med import MedCase, MedReason, MedStatus, NewMedCase
from pixcore.refunds.rules import NewRefund, Refund, RefundKind, RefundNature, RefundStatus
from pixcore.unit_of_work import UnitOfWork
from tests.contract.conftest import Backend
from tests.contract.rows import T0, add_account, e2e, new_transfer, receipt, withdrawal


async def _receipt(tx: UnitOfWork, amount: int = 1_000) -> tuple[int, int]:
    """A new account with a confirmed receipt: (account id, the receipt's transaction id)."""
    account = await add_account(tx)
    return account.id, await tx.transactions.add(receipt(account.id, amount))


async def _new_refund(
    tx: UnitOfWork,
    account_id: int,
    original_id: int,
    *,
    amount: int = 100,
    kind: RefundKind = RefundKind.SENT,
    process_after_s: int = 5,
    refund_id: str | None = None,
) -> NewRefund:
    """A refund request with its own REFUND_IN/REFUND_OUT record."""
    record = dataclasses.replace(
        withdrawal(account_id, amount),
        type=TransactionType.REFUND_IN if kind is RefundKind.SENT else TransactionType.REFUND_OUT,
    )
    return NewRefund(
        kind=kind,
        account_id=account_id,
        original_transaction_id=original_id,
        refund_id=refund_id or uuid.uuid4().hex[:20],
        rtr_id="D" + uuid.uuid4().hex[:31].upper(),
        amount=amount,
        nature=RefundNature.ORIGINAL,
        requested_at=T0,
        process_after=T0 + timedelta(seconds=process_after_s),
        transaction_id=await tx.transactions.add(record),
        reserved=True,
        description="wrong amount",
    )


def _stored(new: NewRefund, refund_id: int) -> Refund:
    fields = {f.name: getattr(new, f.name) for f in dataclasses.fields(new)}
    return Refund(**fields, id=refund_id)


# -- refunds -------------------------------------------------------------------------


async def test_a_refund_reads_back_the_same_and_is_found_by_its_id(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        new = await _new_refund(tx, account, original)
        refund = await tx.refunds.add(new)
        assert refund == _stored(new, refund.id)
        assert (refund.status, refund.reason, refund.finished_at) == (
            RefundStatus.EM_PROCESSAMENTO,
            None,
            None,
        )
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.refunds.find(original, new.refund_id) == refund
        assert await tx.refunds.find(original, "other") is None
        assert await tx.refunds.find(-1, new.refund_id) is None
        # Leave nothing pending for the run's refund workers.
        await tx.refunds.finish(refund.id, RefundStatus.NAO_REALIZADO, "test over", T0)
        await tx.commit()


async def test_find_sees_only_the_refunds_a_client_asked_for(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        received = await tx.refunds.add(await _new_refund(tx, account, original, kind=RefundKind.RECEIVED))
        assert await tx.refunds.find(original, received.refund_id) is None


async def test_a_refund_id_is_unique_per_original_and_kind(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        first = await tx.refunds.add(await _new_refund(tx, account, original, refund_id="r1"))
        received = await tx.refunds.add(
            await _new_refund(tx, account, original, refund_id="r1", kind=RefundKind.RECEIVED)
        )
        assert received.id != first.id
        with pytest.raises(backend.refused):
            await tx.refunds.add(await _new_refund(tx, account, original, refund_id="r1"))


async def test_a_refund_has_its_own_rtr_id_per_kind_and_its_own_record(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        first = await tx.refunds.add(await _new_refund(tx, account, original))
        # A return between two of our accounts: the sent and the received side share the RTR id.
        other_side = await _new_refund(tx, account, original, kind=RefundKind.RECEIVED)
        assert (
            await tx.refunds.add(dataclasses.replace(other_side, rtr_id=first.rtr_id))
        ).rtr_id == first.rtr_id
        again = await _new_refund(tx, account, original)
        with pytest.raises(backend.refused):
            await tx.refunds.add(dataclasses.replace(again, rtr_id=first.rtr_id))
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        first = await tx.refunds.add(await _new_refund(tx, account, original))
        again = await _new_refund(tx, account, original)
        with pytest.raises(backend.refused):
            await tx.refunds.add(dataclasses.replace(again, transaction_id=first.transaction_id))


async def test_a_refund_of_a_missing_original_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        new = await _new_refund(tx, account, original)
        with pytest.raises(backend.refused):
            await tx.refunds.add(dataclasses.replace(new, original_transaction_id=-1))


async def test_total_counts_the_refunds_of_a_kind_that_are_not_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        _, elsewhere = await _receipt(tx)
        assert await tx.refunds.total(original, RefundKind.SENT) == 0
        done = await tx.refunds.add(await _new_refund(tx, account, original, amount=100))
        await tx.refunds.add(await _new_refund(tx, account, original, amount=20))
        refused = await tx.refunds.add(await _new_refund(tx, account, original, amount=300))
        await tx.refunds.add(await _new_refund(tx, account, original, amount=4_000, kind=RefundKind.RECEIVED))
        await tx.refunds.add(await _new_refund(tx, account, elsewhere, amount=50_000))
        await tx.refunds.finish(done.id, RefundStatus.DEVOLVIDO, None, T0)
        await tx.refunds.finish(refused.id, RefundStatus.NAO_REALIZADO, "no funds", T0)

        assert await tx.refunds.total(original, RefundKind.SENT) == 120
        assert await tx.refunds.total(original, RefundKind.RECEIVED) == 4_000


async def test_list_sent_gives_every_refund_of_a_receipt_to_its_payer_oldest_first(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        _, elsewhere = await _receipt(tx)
        assert await tx.refunds.list_sent(original) == []
        later = await _new_refund(tx, account, original, amount=20)
        later = dataclasses.replace(later, requested_at=T0 + timedelta(seconds=9))
        second = await tx.refunds.add(later)
        first = await tx.refunds.add(await _new_refund(tx, account, original, amount=100))
        refused = await tx.refunds.add(await _new_refund(tx, account, original, amount=300))
        await tx.refunds.add(await _new_refund(tx, account, original, amount=4_000, kind=RefundKind.RECEIVED))
        await tx.refunds.add(await _new_refund(tx, account, elsewhere, amount=50_000))
        await tx.refunds.finish(refused.id, RefundStatus.NAO_REALIZADO, "no funds", T0)

        listed = await tx.refunds.list_sent(original)
        # Same time: by id; a refused one is listed too, with its status.
        assert [r.id for r in listed] == [first.id, refused.id, second.id]
        assert listed[1].status is RefundStatus.NAO_REALIZADO
        assert listed[0] == first


async def test_due_refunds_are_the_pending_ones_whose_time_came_in_time_order(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        late = await tx.refunds.add(await _new_refund(tx, account, original, process_after_s=30))
        early = await tx.refunds.add(await _new_refund(tx, account, original, process_after_s=10))
        future = await tx.refunds.add(await _new_refund(tx, account, original, process_after_s=100))
        finished = await tx.refunds.add(await _new_refund(tx, account, original, process_after_s=1))
        await tx.refunds.finish(finished.id, RefundStatus.DEVOLVIDO, None, T0 + timedelta(seconds=2))

        now = T0 + timedelta(seconds=30)
        assert await tx.refunds.due(now, 10) == [early.id, late.id]
        assert await tx.refunds.due(now, 1) == [early.id]
        assert await tx.refunds.due(T0, 10) == []
        assert future.id in await tx.refunds.due(T0 + timedelta(seconds=100), 10)


async def test_a_finished_refund_keeps_its_status_reason_and_time(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        new = await _new_refund(tx, account, original)
        refund = await tx.refunds.add(new)
        at = T0 + timedelta(seconds=7)
        await tx.refunds.finish(refund.id, RefundStatus.NAO_REALIZADO, "account closed", at)
        assert await tx.refunds.find(original, new.refund_id) == dataclasses.replace(
            refund, status=RefundStatus.NAO_REALIZADO, reason="account closed", finished_at=at
        )
        assert await tx.refunds.lock_pending(refund.id) is None


async def test_lock_pending_gives_a_pending_refund_to_one_unit_at_a_time(backend: Backend) -> None:
    far = 10**9  # seconds: no worker of the run reaches it
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        refund = await tx.refunds.add(await _new_refund(tx, account, original, process_after_s=far))
        await tx.commit()

    async with backend.uow() as first, backend.uow() as second:
        assert await first.refunds.lock_pending(refund.id) == refund
        assert await second.refunds.lock_pending(refund.id) is None  # skipped, not waited for
        assert await first.refunds.lock_pending(-1) is None
    async with backend.uow() as tx:
        assert await tx.refunds.lock_pending(refund.id) == refund  # the lock ended with its unit
        await tx.refunds.finish(refund.id, RefundStatus.NAO_REALIZADO, "test over", T0)  # leave none pending
        await tx.commit()


# -- originals that name another account of ours or a charge --------------------------


async def test_an_original_names_the_account_of_ours_on_the_other_side_and_the_charge(
    backend: Backend,
) -> None:
    async with backend.uow() as tx:
        sender = await add_account(tx)
        receiver = await add_account(tx)
        sent_id = await tx.transactions.add(withdrawal(sender.id))
        transfer = dataclasses.replace(new_transfer(sent_id, sender.id), receiver_account_id=receiver.id)
        await tx.transfers.add(transfer)
        received = dataclasses.replace(receipt(receiver.id), end_to_end_id=transfer.end_to_end_id)
        received_id = await tx.transactions.add(received)
        await tx.transactions.set_status(sent_id, TransactionStatus.CONFIRMED, T0)
        await tx.transactions.confirm(sent_id, transfer.end_to_end_id, received.counterpart, T0)  # type: ignore[arg-type]

        of_receipt = await tx.refunds.original_of(received_id)
        of_transfer = await tx.refunds.lock_original(
            sender.id, transfer.end_to_end_id, TransactionType.WITHDRAW
        )
        assert of_receipt is not None
        assert of_transfer is not None
        assert (of_receipt.counterpart_account_id, of_receipt.tx_id) == (sender.id, None)
        assert (of_transfer.transaction_id, of_transfer.counterpart_account_id) == (sent_id, receiver.id)


# -- received PIX (GET /pix) ----------------------------------------------------------


async def test_received_pix_are_searched_by_window_filters_and_pages_for_their_account_only(
    backend: Backend,
) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        other = await add_account(tx)
        records = [receipt(account.id, 100 * (n + 1), at=T0 + timedelta(minutes=n)) for n in range(3)]
        records[2] = dataclasses.replace(
            records[2],
            counterpart=dataclasses.replace(records[2].counterpart, document="52998224725"),  # type: ignore[type-var]
        )
        ids = [await tx.transactions.add(r) for r in records]
        await tx.transactions.add(receipt(other.id, at=T0))
        await tx.transactions.add(withdrawal(account.id, at=T0))  # sent, not received
        refund = await tx.refunds.add(await _new_refund(tx, account.id, ids[1]))

        async def found(**params: str) -> tuple[int, list[int]]:
            query = parse_received_query(
                inicio=T0.isoformat(), fim=(T0 + timedelta(minutes=2)).isoformat(), **params
            )
            total, originals = await tx.refunds.search_received(account.id, query)
            return total, [o.transaction_id for o in originals]

        assert await found() == (3, ids)
        assert await found(size="2", page="1") == (3, [ids[2]])
        assert await found(refund_present="true") == (1, [ids[1]])
        assert await found(refund_present="false") == (2, [ids[0], ids[2]])
        assert await found(cpf="52998224725") == (1, [ids[2]])
        assert await found(txid_present="true") == (0, [])
        assert await found(txid_present="false") == (3, ids)
        assert await tx.refunds.list_sent_of(ids) == [refund]
        assert await tx.refunds.list_sent_of([]) == []

        one = await tx.refunds.find_received(account.id, records[0].end_to_end_id or "")
        assert one is not None
        assert (one.transaction_id, one.amount, one.received_at) == (ids[0], 100, T0)
        assert await tx.refunds.find_received(other.id, records[0].end_to_end_id or "") is None


# -- MED cases -----------------------------------------------------------------------


def _new_case(account_id: int, original_id: int, *, amount: int = 600, blocked: int = 500) -> NewMedCase:
    return NewMedCase(
        account_id=account_id,
        original_transaction_id=original_id,
        end_to_end_id=e2e(),
        reason=MedReason.MED_FRAUDE,
        amount=amount,
        blocked=blocked,
        created_at=T0,
    )


async def test_a_med_case_reads_back_the_same_for_its_account_only(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        other = await add_account(tx)
        new = _new_case(account, original)
        case = await tx.med.add(new)
        fields = {f.name: getattr(new, f.name) for f in dataclasses.fields(new)}
        assert case == MedCase(**fields, id=case.id)
        assert (case.status, case.finished_at) == (MedStatus.CREATED, None)
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.med.lock(account, case.id) == case
        assert await tx.med.lock(other.id, case.id) is None
        assert await tx.med.lock(account, -1) is None


async def test_a_receipt_has_one_open_case_at_a_time(backend: Backend) -> None:
    async with backend.uow() as tx:
        account, original = await _receipt(tx)
        assert await tx.med.open_amount(original) == 0
        assert await tx.med.open_case(original) is None
        case = await tx.med.add(_new_case(account, original, amount=600))
        assert await tx.med.open_amount(original) == 600
        assert await tx.med.open_case(original) == case
        await tx.commit()

    async with backend.uow() as tx:
        with pytest.raises(DuplicateMedCase):
            await tx.med.add(_new_case(account, original))
        # The refusal left the unit usable: the case is finished, and a new one may open.
        at = T0 + timedelta(days=1)
        await tx.med.finish(case.id, MedStatus.REJECTED, at)
        assert await tx.med.lock(account, case.id) == dataclasses.replace(
            case, status=MedStatus.REJECTED, finished_at=at
        )
        assert await tx.med.open_amount(original) == 0
        assert await tx.med.open_case(original) is None  # a finished case is not open
        second = await tx.med.add(_new_case(account, original, amount=250, blocked=0))
        assert await tx.med.open_amount(original) == 250
        assert await tx.med.open_case(original) == second
        await tx.commit()

    async with backend.uow() as tx:
        assert await tx.med.open_amount(original) == 250
        await tx.med.finish(second.id, MedStatus.ACCEPTED, T0)
        await tx.commit()


async def test_a_case_of_a_missing_receipt_is_refused(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        with pytest.raises(backend.refused):
            await tx.med.add(_new_case(account.id, -1))
