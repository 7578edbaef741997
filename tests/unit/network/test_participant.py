"""The service as a network participant (``pixcore.network.participant_service``) on the fakes:
transfers the SPI settles are sent, never decided here, and finished by the SPI's answer only;
payments from the network are accepted for the right account and credited once settled."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest

from pixcore.accounts.rules import Balance, Counterpart
from pixcore.network.med import MedRequest, answer_meds
from pixcore.network.participant_service import (
    RESEND_AFTER,
    answer_incoming,
    credit_network_return,
    finish_payment,
    send_due_payments,
    send_due_refunds,
    settle_incoming,
)
from pixcore.network.ports import NetworkUnavailable
from pixcore.network.rules import (
    IncomingPayment,
    IncomingReturn,
    Outcome,
    OutgoingPayment,
    OutgoingReturn,
    ReceiptState,
)
from pixcore.records import TransactionStatus
from pixcore.refunds.med import MedReason
from pixcore.refunds.med_service import accept_med, open_med, reject_med
from pixcore.refunds.refund_service import request_refund
from pixcore.refunds.rules import RefundRequest, RefundStatus
from pixcore.testing import external_total
from pixcore.transfers.rules import SPI_BEHAVIOR, SpiError, TransferState
from tests.unit.transfer_world import FUNDS, SHOP, World, assert_books_balance
from tests.unit.usecase_helpers import HOLDER_CPF

ELSEWHERE = dataclasses.replace(SHOP, behavior=SPI_BEHAVIOR)
"""The shop's key, at another institution of the network: the SPI settles payments to it."""


class FakeNetwork:
    """The SPI as the use cases see it: records what it is sent, answers ``answer``."""

    def __init__(self, answer: Outcome | None = None) -> None:
        self.answer = answer or Outcome.pending()
        self.sent: list[OutgoingPayment] = []
        self.down = False

    async def send(self, payment: OutgoingPayment) -> Outcome:
        if self.down:
            raise NetworkUnavailable("connection refused")
        self.sent.append(payment)
        return self.answer


@pytest.fixture
def spi_world(world: World) -> World:
    world.directory.entries[ELSEWHERE.key.value] = ELSEWHERE  # the shop's key, now at a participant
    return world


async def test_a_transfer_the_spi_settles_is_sent_with_its_parties_and_waits_for_the_answer(
    spi_world: World,
) -> None:
    world, network = spi_world, FakeNetwork()
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    tid = created.transfer.transaction_id

    assert await send_due_payments(world.store.unit_of_work, world.clock, network) == 0
    (sent,) = network.sent
    assert (sent.end_to_end_id, sent.amount, sent.key) == (
        created.transfer.end_to_end_id,
        2500,
        SHOP.key.value,
    )
    assert sent.debtor == Counterpart(
        world.sender.name, HOLDER_CPF, world.sender.ispb, "", world.sender.branch, world.sender.number
    )
    assert (sent.creditor.ispb, sent.creditor.branch, sent.creditor.account_number) == (
        SHOP.ispb,
        SHOP.branch,
        SHOP.account_number,
    )
    assert world.store.transfers[tid].sent_at == world.clock.now()

    world.clock.advance(86_400)  # long past its deadline: still the SPI's to decide
    assert await world.settle_due() == 0
    assert world.store.transfers[tid].state is TransferState.PENDING
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 2500)


async def test_the_spis_settlement_completes_it_once(spi_world: World) -> None:
    world, network = spi_world, FakeNetwork(Outcome.settled())
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    tid = created.transfer.transaction_id

    assert await send_due_payments(world.store.unit_of_work, world.clock, network) == 1
    assert world.store.transfers[tid].state is TransferState.COMPLETED
    assert world.store.transactions[tid].status is TransactionStatus.CONFIRMED
    assert world.balance(world.sender) == Balance(FUNDS - 2500, 0)
    assert external_total(world.store) == -FUNDS + 2500
    assert (
        await finish_payment(
            world.store.unit_of_work, world.clock, created.transfer.end_to_end_id, Outcome.settled()
        )
        == 0
    )
    assert [e["data"]["status"] for e in world.events(world.sender) if e["type"] == "TRANSFER"] == [
        "LIQUIDATED"
    ]
    assert_books_balance(world.store)


async def test_the_spis_refusal_fails_it_and_gives_the_money_back(spi_world: World) -> None:
    world, network = spi_world, FakeNetwork()
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    await send_due_payments(world.store.unit_of_work, world.clock, network)

    refused = Outcome.refused(SpiError.INSUFFICIENT_SETTLEMENT)
    assert (
        await finish_payment(world.store.unit_of_work, world.clock, created.transfer.end_to_end_id, refused)
        == 1
    )
    transfer = world.store.transfers[created.transfer.transaction_id]
    assert (transfer.state, transfer.error_code) == (TransferState.ERROR, "AM04")
    assert world.balance(world.sender) == Balance(FUNDS, 0)
    assert_books_balance(world.store)


async def test_an_unanswered_transfer_is_sent_again_and_never_failed_here(spi_world: World) -> None:
    world, network = spi_world, FakeNetwork()
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    await send_due_payments(world.store.unit_of_work, world.clock, network)
    await send_due_payments(world.store.unit_of_work, world.clock, network)
    assert len(network.sent) == 1  # not again before RESEND_AFTER

    world.clock.advance(RESEND_AFTER.total_seconds())
    network.down = True
    assert await send_due_payments(world.store.unit_of_work, world.clock, network) == 0
    world.clock.advance(3_600)  # its deadline long gone, the network back
    network.down = False
    assert await send_due_payments(world.store.unit_of_work, world.clock, network) == 0
    assert [p.end_to_end_id for p in network.sent] == [created.transfer.end_to_end_id] * 2
    assert world.store.transfers[created.transfer.transaction_id].state is TransferState.PENDING


async def test_a_transfer_never_sent_fails_at_its_deadline_without_the_network(spi_world: World) -> None:
    world, network = spi_world, FakeNetwork()
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    world.clock.advance(3_600)
    network.down = True  # never reached: nothing is sent once the deadline has passed

    assert await send_due_payments(world.store.unit_of_work, world.clock, network) == 1
    transfer = world.store.transfers[created.transfer.transaction_id]
    assert (transfer.state, transfer.error_code, transfer.sent_at) == (TransferState.ERROR, "AB03", None)
    assert world.balance(world.sender) == Balance(FUNDS, 0)


def incoming(world: World, **changes: object) -> IncomingPayment:
    payment = IncomingPayment(
        end_to_end_id="E11111111202611291200abcdefghijk",
        amount=1_234,
        payer=Counterpart("Pagador", "11144477735", "11111111", "", "0001", "99"),
        branch=world.receiver.branch,
        account_number=world.receiver.number,
        tax_id=world.receiver.document,
        key="joao@example.com",
        description="almoço",
    )
    return dataclasses.replace(payment, **changes)


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"key": None}, SpiError.NOT_ALLOWED),
        ({"key": "ninguem@example.com"}, SpiError.UNKNOWN_ACCOUNT),
        ({"key": "not a key"}, SpiError.UNKNOWN_ACCOUNT),
        ({"key": "maria@example.com"}, SpiError.UNKNOWN_ACCOUNT),  # another account's key
        ({"account_number": "999999"}, SpiError.UNKNOWN_ACCOUNT),
        ({"branch": "9999"}, SpiError.UNKNOWN_ACCOUNT),
        ({"tax_id": HOLDER_CPF}, SpiError.DOCUMENT_MISMATCH),
    ],
)
async def test_a_payment_for_an_account_it_does_not_name_rightly_is_refused(
    world: World, changes: dict[str, object], refusal: SpiError
) -> None:
    assert await answer_incoming(world.store.unit_of_work, world.clock, incoming(world, **changes)) is refusal
    assert world.store.tables.network_receipts == {}


async def test_an_accepted_payment_is_credited_once_when_the_spi_settles_it(world: World) -> None:
    payment = incoming(world)
    before = world.balance(world.receiver)
    assert await answer_incoming(world.store.unit_of_work, world.clock, payment) is None
    assert await answer_incoming(world.store.unit_of_work, world.clock, payment) is None  # asked again
    assert world.balance(world.receiver) == before  # nothing until the SPI settles

    assert await settle_incoming(
        world.store.unit_of_work, world.clock, payment.end_to_end_id, Outcome.settled()
    )
    assert not await settle_incoming(
        world.store.unit_of_work, world.clock, payment.end_to_end_id, Outcome.settled()
    )
    assert world.balance(world.receiver) == Balance(before.available + 1_234, before.blocked)
    receipt = world.store.tables.network_receipts[payment.end_to_end_id]
    assert receipt.state is ReceiptState.CREDITED
    assert receipt.transaction_id is not None
    credited = world.store.transactions[receipt.transaction_id]
    assert (credited.end_to_end_id, credited.counterpart) == (payment.end_to_end_id, payment.payer)
    assert [e["type"] for e in world.events(world.receiver)][-1:] == ["RECEIVE"]
    assert_books_balance(world.store)


async def test_an_accepted_payment_the_spi_refuses_credits_nothing(world: World) -> None:
    payment = incoming(world)
    before = world.balance(world.receiver)
    await answer_incoming(world.store.unit_of_work, world.clock, payment)
    refused = Outcome.refused(SpiError.INSUFFICIENT_SETTLEMENT)
    assert await settle_incoming(world.store.unit_of_work, world.clock, payment.end_to_end_id, refused)
    assert world.store.tables.network_receipts[payment.end_to_end_id].state is ReceiptState.REJECTED
    assert world.balance(world.receiver) == before
    assert not await settle_incoming(
        world.store.unit_of_work, world.clock, payment.end_to_end_id, Outcome.settled()
    )
    assert world.balance(world.receiver) == before


class ReturnsNetwork(FakeNetwork):
    """The SPI's returns: answers ``returned_answer`` and records what it was sent."""

    def __init__(self, answer: Outcome) -> None:
        super().__init__()
        self.returned_answer = answer
        self.returns: list[OutgoingReturn] = []

    async def send_return(self, returned: OutgoingReturn) -> Outcome:
        if self.down:
            raise NetworkUnavailable("connection refused")
        self.returns.append(returned)
        return self.returned_answer


async def _received(world: World) -> IncomingPayment:
    payment = incoming(world)
    await answer_incoming(world.store.unit_of_work, world.clock, payment)
    await settle_incoming(world.store.unit_of_work, world.clock, payment.end_to_end_id, Outcome.settled())
    return payment


async def _refund(world: World, payment: IncomingPayment, amount: str = "4.00") -> int:
    requested = await request_refund(
        world.store.unit_of_work,
        world.clock,
        account_id=world.receiver.id,
        end_to_end_id=payment.end_to_end_id,
        refund_id="devolucao1",
        request=RefundRequest.parse(amount=amount),
        ispb=world.receiver.ispb,
        delay=timedelta(0),
    )
    return requested.refund.id


async def test_a_refund_of_a_payment_from_the_network_goes_back_through_the_spi(world: World) -> None:
    payment = await _received(world)
    refund_id = await _refund(world, payment)
    before = world.balance(world.receiver)
    network = ReturnsNetwork(Outcome.settled())
    network.down = True
    assert await send_due_refunds(world.store.unit_of_work, world.clock, network) == 0  # waits for it
    assert world.store.tables.refunds[refund_id].status is RefundStatus.EM_PROCESSAMENTO
    network.down = False

    assert await send_due_refunds(world.store.unit_of_work, world.clock, network) == 1
    (sent,) = network.returns
    assert (sent.end_to_end_id, sent.amount, sent.fraud) == (payment.end_to_end_id, 400, False)
    assert world.store.tables.refunds[refund_id].status is RefundStatus.DEVOLVIDO
    assert world.balance(world.receiver) == Balance(before.available, before.blocked - 400)
    assert_books_balance(world.store)


async def test_an_accepted_med_of_a_payment_from_the_network_goes_back_through_the_spi(world: World) -> None:
    """Accepting a MED case of a payment received through the network does not finish its refund
    here (the payer's institution would never see the money): the SPI is sent a fraud return, and
    the refund is DEVOLVIDO by its answer."""
    payment = await _received(world)
    before = world.balance(world.receiver)
    uow = world.store.unit_of_work
    case = await open_med(
        uow,
        world.clock,
        account_id=world.receiver.id,
        end_to_end_id=payment.end_to_end_id,
        reason=MedReason.MED_FRAUDE,
    )
    outcome = await accept_med(
        uow, world.clock, account_id=world.receiver.id, case_id=case.id, ispb=world.receiver.ispb
    )
    assert outcome.refund is not None
    assert world.store.tables.refunds[outcome.refund.id].status is RefundStatus.EM_PROCESSAMENTO
    assert world.balance(world.receiver) == Balance(
        before.available - payment.amount, before.blocked + payment.amount
    )

    network = ReturnsNetwork(Outcome.settled())
    assert await send_due_refunds(uow, world.clock, network) == 1
    (sent,) = network.returns
    assert (sent.end_to_end_id, sent.amount, sent.fraud) == (payment.end_to_end_id, payment.amount, True)
    assert world.store.tables.refunds[outcome.refund.id].status is RefundStatus.DEVOLVIDO
    assert world.balance(world.receiver) == Balance(before.available - payment.amount, before.blocked)
    assert_books_balance(world.store)


async def test_a_refund_the_spi_refuses_is_not_made_and_its_money_stays(world: World) -> None:
    payment = await _received(world)
    refund_id = await _refund(world, payment)
    before = world.balance(world.receiver)
    network = ReturnsNetwork(Outcome.refused(SpiError.INSUFFICIENT_SETTLEMENT))
    assert await send_due_refunds(world.store.unit_of_work, world.clock, network) == 1
    refund = world.store.tables.refunds[refund_id]
    assert (refund.status, refund.reason) == (RefundStatus.NAO_REALIZADO, "Recusada pelo SPI: AM04")
    assert world.balance(world.receiver) == Balance(before.available + 400, before.blocked - 400)
    assert_books_balance(world.store)


async def test_a_return_from_the_network_credits_the_transfers_sender_once(spi_world: World) -> None:
    world = spi_world
    created = await world.send(priority="HIGH", creditor_document=SHOP.document)
    await send_due_payments(world.store.unit_of_work, world.clock, FakeNetwork(Outcome.settled()))
    before = world.balance(world.sender)
    returned = IncomingReturn(
        "D12345678202611291200abcdefghijk", created.transfer.end_to_end_id, 1_000, "estorno"
    )

    assert await credit_network_return(world.store.unit_of_work, world.clock, returned)
    assert not await credit_network_return(world.store.unit_of_work, world.clock, returned)  # delivered twice
    unknown = dataclasses.replace(returned, end_to_end_id="E99999999202611291200zzzzzzzzzzz")
    assert not await credit_network_return(world.store.unit_of_work, world.clock, unknown)
    assert world.balance(world.sender) == Balance(before.available + 1_000, before.blocked)
    assert [e["type"] for e in world.events(world.sender)][-1:] == ["REFUND"]
    assert_books_balance(world.store)


class FakeMedDirectory:
    """The DICT's MED as the use cases see it: one open request, and what was closed."""

    def __init__(self, request: MedRequest) -> None:
        self.requests = [request]
        self.closed: list[tuple[str, str | None, str | None, bool]] = []
        self.reports: list[tuple[str, bool]] = []
        self.acknowledged: list[str] = ["report-1"]

    async def reports_to_acknowledge(self) -> list[str]:
        waiting, self.acknowledged = self.acknowledged, []
        return waiting

    async def acknowledge_report(self, report_id: str) -> None:
        self.reports.append((report_id, False))

    async def close_report(self, report_id: str, *, agreed: bool) -> None:
        self.reports.append((report_id, agreed))

    async def requests_against_us(self) -> list[MedRequest]:
        return [r for r in self.requests if r.refund_id not in {c[0] for c in self.closed}]

    async def close_request(
        self, request_id: str, *, returned: str | None, partly: bool, rejection: str | None
    ) -> None:
        self.closed.append((request_id, returned, rejection, partly))


async def test_a_refund_request_of_the_dict_opens_a_med_case_once_and_its_rejection_is_told(
    world: World,
) -> None:
    payment = await _received(world)
    before = world.balance(world.receiver)
    uow = world.store.unit_of_work
    directory = FakeMedDirectory(
        MedRequest("refund-1", payment.end_to_end_id, payment.amount, fraud=True, report_id="report-1")
    )

    assert await answer_meds(uow, world.clock, directory) == 2  # the report acknowledged, a case opened
    assert await answer_meds(uow, world.clock, directory) == 0  # seen again: nothing more
    (case,) = world.store.tables.med_cases.values()
    assert (case.end_to_end_id, case.reason, case.blocked) == (
        payment.end_to_end_id,
        MedReason.MED_FRAUDE,
        payment.amount,
    )
    assert world.balance(world.receiver) == Balance(
        before.available - payment.amount, before.blocked + payment.amount
    )

    await reject_med(uow, world.clock, account_id=world.receiver.id, case_id=case.id)
    assert await answer_meds(uow, world.clock, directory) == 1
    assert directory.closed == [("refund-1", None, "CANNOT_REFUND", False)]
    assert directory.reports == [("report-1", False), ("report-1", False)]  # acknowledged, then disagreed
    assert await answer_meds(uow, world.clock, directory) == 0  # closed once
    assert world.balance(world.receiver) == before
    assert_books_balance(world.store)


async def test_a_case_opened_by_a_pass_that_stopped_before_linking_it_is_linked_not_opened_again(
    world: World,
) -> None:
    """A pass opened the case and stopped before it kept the link (a crash): the next pass links
    that case; no second case is opened, nothing more is blocked."""
    payment = await _received(world)
    uow = world.store.unit_of_work
    case = await open_med(
        uow,
        world.clock,
        account_id=world.receiver.id,
        end_to_end_id=payment.end_to_end_id,
        reason=MedReason.MED_FRAUDE,
    )
    blocked = world.balance(world.receiver)
    directory = FakeMedDirectory(
        MedRequest("refund-2", payment.end_to_end_id, payment.amount, fraud=True, report_id=None)
    )

    await answer_meds(uow, world.clock, directory)
    assert list(world.store.tables.med_cases) == [case.id]
    async with uow() as tx:
        link = await tx.network.med_link("refund-2")
    assert link is not None
    assert link.case_id == case.id
    assert world.balance(world.receiver) == blocked
