"""A refund's ``natureza`` on the in-memory fakes: ``RETIRADA`` gives back the cash of a Pix Saque
or Troco, ``ORIGINAL`` its purchase (the whole amount of any other PIX), each up to its part less
the earlier refunds of that nature; a nature with no part is refused naming ``natureza``. What a
refund gives back is what it blocks, the ledger balanced."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Balance, Counterpart, OpenedAccount
from pixcore.charges.cob import CalendarFields, ChargeFields, ChargeRequest, ValueFields
from pixcore.charges.cob_service import create_charge, pay_charge
from pixcore.charges.withdrawal import WithdrawalFields, WithdrawalPartFields
from pixcore.clock import ManualClock
from pixcore.errors import RefundAboveRefundable
from pixcore.refunds.refund_service import request_refund
from pixcore.refunds.rules import RefundField, RefundNature, RefundRequest
from pixcore.testing import InMemoryStore, PlainHasher, ledger_check
from tests.unit.usecase_helpers import OTHER_CPF, open_test_account

PAYER = Counterpart("Outside Payer", OTHER_CPF, "12345678")
SAQUE = WithdrawalPartFields(amount="5.00", agent="AGPSS", facilitator="12345678")
TROCO = WithdrawalPartFields(amount="5.00", agent="AGTEC", facilitator="12345678")
RETIRADA, ORIGINAL = RefundNature.RETIRADA, RefundNature.ORIGINAL


@pytest.fixture
async def holder(store: InMemoryStore, hasher: PlainHasher) -> OpenedAccount:
    return await open_test_account(store, hasher, keys=("holder@example.com",))


async def _paid(
    store: InMemoryStore,
    clock: ManualClock,
    holder: OpenedAccount,
    original: str,
    cash: WithdrawalFields | None,
) -> str:
    value = ValueFields(original, 0, cash)
    request = ChargeRequest.parse(ChargeFields(calendar=CalendarFields(), value=value))
    charge = await create_charge(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        txid=None,
        request=request,
        location_prefix="q/",
    )
    paid = await pay_charge(store.unit_of_work, clock, location_id=charge.location_id, payer=PAYER)
    return paid.end_to_end_id


async def _refund(  # noqa: PLR0917 - the test's world, then what is refunded
    store: InMemoryStore,
    clock: ManualClock,
    holder: OpenedAccount,
    e2e: str,
    cents: int,
    nature: RefundNature,
) -> None:
    await request_refund(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        end_to_end_id=e2e,
        refund_id=uuid.uuid4().hex,
        request=RefundRequest(cents, nature),
        ispb="99999999",
        delay=timedelta(seconds=5),
    )


async def _refused(  # noqa: PLR0917 - the test's world, then what is refunded
    store: InMemoryStore,
    clock: ManualClock,
    holder: OpenedAccount,
    e2e: str,
    cents: int,
    nature: RefundNature,
) -> tuple[RefundField, str]:
    before = (dict(store.refunds), list(store.entries), store.balances[holder.account.id])
    with pytest.raises(RefundAboveRefundable) as refused:
        await _refund(store, clock, holder, e2e, cents, nature)
    assert (dict(store.refunds), list(store.entries), store.balances[holder.account.id]) == before
    [problem] = refused.value.problems
    [field] = problem.fields
    assert isinstance(field, RefundField)
    return field, problem.text


async def test_a_trocos_cash_and_purchase_are_refunded_each_up_to_itself(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    e2e = await _paid(store, clock, holder, "10.00", WithdrawalFields(troco=TROCO))

    cash_over = await _refused(store, clock, holder, e2e, 5_01, RETIRADA)
    assert cash_over == (RefundField.AMOUNT, "at most 5.00 remains refundable as RETIRADA (the cash)")
    assert await _refused(store, clock, holder, e2e, 10_01, ORIGINAL) == (
        RefundField.AMOUNT,
        "at most 10.00 remains refundable",
    )
    await _refund(store, clock, holder, e2e, 3_00, RETIRADA)
    assert (await _refused(store, clock, holder, e2e, 2_01, RETIRADA))[1].startswith("at most 2.00 ")
    await _refund(store, clock, holder, e2e, 10_00, ORIGINAL)  # the cash refunds took none of it
    await _refund(store, clock, holder, e2e, 2_00, RETIRADA)
    assert (await _refused(store, clock, holder, e2e, 1, ORIGINAL))[1].startswith("at most 0.00 ")

    assert store.balances[holder.account.id] == Balance(available=0, blocked=15_00)
    assert sorted((r.nature, r.amount) for r in store.refunds.values()) == [
        (ORIGINAL, 10_00),
        (RETIRADA, 2_00),
        (RETIRADA, 3_00),
    ]
    assert ledger_check(store) == []


async def test_a_saque_has_only_its_cash_to_refund(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    e2e = await _paid(store, clock, holder, "0.00", WithdrawalFields(saque=SAQUE))

    field, text = await _refused(store, clock, holder, e2e, 1_00, ORIGINAL)
    assert field is RefundField.NATURE
    assert text.startswith("ORIGINAL refunds a purchase")
    await _refund(store, clock, holder, e2e, 5_00, RETIRADA)
    assert store.balances[holder.account.id] == Balance(available=0, blocked=5_00)
    assert ledger_check(store) == []


async def test_a_pix_without_cash_refuses_retirada_and_refunds_all_as_original(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    e2e = await _paid(store, clock, holder, "20.00", None)

    field, text = await _refused(store, clock, holder, e2e, 1_00, RETIRADA)
    assert field is RefundField.NATURE
    assert text.startswith("RETIRADA refunds the cash")
    await _refund(store, clock, holder, e2e, 20_00, ORIGINAL)
    assert store.balances[holder.account.id] == Balance(available=0, blocked=20_00)
    assert ledger_check(store) == []
