"""The standard API's first slice on the in-memory fakes: the list queries' rules, ``POST /cob``'s
txid, ``GET /cob`` and ``GET /pix`` (filters, pages, another account's rows), revisions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pixcore.accounts.rules import OpenedAccount
from pixcore.charges.cob import (
    ABSENT,
    CalendarFields,
    CashInRequest,
    ChargeFields,
    ChargeRequest,
    ChargeStatus,
    DebtorFields,
    RevisionFields,
    ValueFields,
)
from pixcore.charges.cob_service import (
    create_cash_in,
    create_charge,
    pay_charge,
    read_charge,
    read_received,
    revise_charge,
    search_charges,
    search_received,
)
from pixcore.clock import ManualClock
from pixcore.errors import InvalidQuery, InvalidTransition, TransactionNotFound, ValidationError
from pixcore.identifiers import validate_txid
from pixcore.queries.standard import Page, parse_charge_query, parse_received_query
from pixcore.testing import InMemoryStore, PlainHasher
from tests.unit.charges.test_usecases_charges import PAYER, PREFIX, request
from tests.unit.usecase_helpers import OTHER_CPF, open_test_account
from tests.unit.wire_rendering import wire_details

START, END = "2020-01-01T00:00:00Z", "2099-01-01T00:00:00-03:00"


@pytest.fixture
async def holder(store: InMemoryStore, hasher: PlainHasher) -> OpenedAccount:
    return await open_test_account(store, hasher, keys=("holder@example.com",))


@pytest.fixture
async def other(store: InMemoryStore, hasher: PlainHasher) -> OpenedAccount:
    return await open_test_account(store, hasher, keys=("other@example.com",))


def _details(exc: pytest.ExceptionInfo[ValidationError]) -> set[str]:
    return {d.split(": ", 1)[0] for d in wire_details(exc.value)}


def test_a_charge_query_reads_every_parameter() -> None:
    query = parse_charge_query(
        inicio="2026-03-01T00:00:00-03:00",
        fim="2026-03-02T00:00:00Z",
        cpf="11144477735",
        location_present="true",
        status="ATIVA",
        page="2",
        size="50",
    )
    assert query.start == datetime(2026, 3, 1, 3, tzinfo=UTC)
    assert query.end == datetime(2026, 3, 2, tzinfo=UTC)
    assert (query.cpf, query.location_present, query.status) == ("11144477735", True, ChargeStatus.ATIVA)
    assert query.page == Page(2, 50)
    assert query.page.offset == 100
    defaults = parse_charge_query(inicio=START, fim=END)
    assert defaults.page == Page(0, 100)
    assert defaults.page.count(0) == 1
    assert Page(0, 2).count(5) == 3


@pytest.mark.parametrize(
    ("params", "names"),
    [
        ({}, {"inicio", "fim"}),
        ({"inicio": "2020-01-01", "fim": "2020-01-01T00:00:00"}, {"inicio", "fim"}),  # no time, no offset
        ({"inicio": "0001-01-01T00:00:00+00:01", "fim": START}, {"inicio"}),  # before year 1 in UTC
        ({"inicio": END, "fim": START}, {"fim"}),
        (
            {"inicio": START, "fim": END, "cpf": "1114447773", "cnpj": "11222333000100"},
            {"cpf", "cnpj", "cpf, cnpj"},
        ),
        (
            {"inicio": START, "fim": END, "page": "-1", "size": "1001"},
            {"paginacao.paginaAtual", "paginacao.itensPorPagina"},
        ),
        (
            {"inicio": START, "fim": END, "page": "9" * 400, "size": "\uff10"},
            {"paginacao.paginaAtual", "paginacao.itensPorPagina"},
        ),
        (
            {"inicio": START, "fim": END, "status": "ativa", "location_present": "True"},
            {"status", "locationPresente"},
        ),
        ({"inicio": "2" * 10_000, "fim": END}, {"inicio"}),
    ],
)
def test_a_charge_query_lists_every_broken_rule(params: dict[str, str], names: set[str]) -> None:
    with pytest.raises(InvalidQuery) as caught:
        parse_charge_query(**{"inicio": None, "fim": None} | params)
    assert _details(caught) == names


def test_a_due_charge_query_reads_its_batch_id_as_an_int32() -> None:
    assert parse_charge_query(inicio=START, fim=END).batch is None
    assert parse_charge_query(inicio=START, fim=END, batch="").batch is None
    assert parse_charge_query(inicio=START, fim=END, batch="-2147483648").batch == -(2**31)
    assert parse_charge_query(inicio=START, fim=END, batch="2147483647").batch == 2**31 - 1
    assert parse_charge_query(inicio=START, fim=END, batch="-0000000000002147483648").batch == -(2**31)
    assert parse_charge_query(inicio=START, fim=END, batch="00000000000007").batch == 7
    for wrong in ("2147483648", "-2147483649", "68764143919", "1.0", "x", "9" * 40, "+1", "--1"):
        with pytest.raises(InvalidQuery) as caught:
            parse_charge_query(inicio=START, fim=END, batch=wrong)
        assert _details(caught) == {"loteCobVId"}, wrong


def test_a_received_query_reads_and_refuses_its_own_filters() -> None:
    query = parse_received_query(
        inicio=START, fim=END, txid="abc", txid_present="false", refund_present="true"
    )
    assert (query.txid, query.txid_present, query.refund_present) == ("abc", False, True)
    with pytest.raises(InvalidQuery) as caught:
        parse_received_query(inicio=START, fim=END, txid="a" * 36, txid_present="no", refund_present="")
    assert _details(caught) == {"txid", "txIdPresente"}


async def test_post_cob_chooses_a_txid(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    made = [
        await create_charge(
            store.unit_of_work,
            clock,
            account_id=holder.account.id,
            txid=None,
            request=request(),
            location_prefix=PREFIX,
        )
        for _ in range(2)
    ]
    assert all(validate_txid(c.txid) for c in made)
    assert made[0].txid != made[1].txid


async def test_the_charge_list_filters_pages_and_never_shows_another_account(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, other: OpenedAccount
) -> None:
    uow = store.unit_of_work
    debtor = ChargeRequest.parse(
        ChargeFields(
            calendar=CalendarFields(60),
            value=ValueFields("5.00"),
            debtor=DebtorFields(cpf=OTHER_CPF, name="Fulano"),
        )
    )
    first = await create_charge(
        uow, clock, account_id=holder.account.id, txid=None, request=debtor, location_prefix=PREFIX
    )
    clock.advance(1)
    second = await create_charge(
        uow, clock, account_id=holder.account.id, txid=None, request=request(), location_prefix=PREFIX
    )
    await create_charge(
        uow, clock, account_id=other.account.id, txid=None, request=request(), location_prefix=PREFIX
    )

    async def txids(**params: str) -> list[str]:
        query = parse_charge_query(inicio=START, fim=END, **params)
        listing = await search_charges(uow, clock, account_id=holder.account.id, query=query)
        return [c.txid for c in listing.charges]

    assert await txids() == [first.txid, second.txid]
    assert await txids(cpf=OTHER_CPF) == [first.txid]
    assert await txids(size="1", page="1") == [second.txid]
    assert await txids(location_present="false") == []
    clock.advance(120)
    assert await txids(status="REMOVIDA_PELO_PSP") == [first.txid, second.txid]
    assert await txids(status="ATIVA") == []


async def test_a_revision_changes_the_fields_and_the_code_and_counts(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    uow = store.unit_of_work
    charge = await create_charge(
        uow, clock, account_id=holder.account.id, txid=None, request=request(), location_prefix=PREFIX
    )
    change = RevisionFields(value=ValueFields(original="12.00", modality=ABSENT), payer_request="again")
    revised = await revise_charge(
        uow, clock, account_id=holder.account.id, txid=charge.txid, location_prefix=PREFIX, fields=change
    )
    assert (revised.amount, revised.revision, revised.payer_request) == (1200, 1, "again")
    assert revised.br_code != charge.br_code
    assert revised.location == charge.location
    stored = await read_charge(uow, account_id=holder.account.id, txid=charge.txid)
    assert stored.charge == revised
    with pytest.raises(ValidationError) as caught:
        await revise_charge(
            uow,
            clock,
            account_id=holder.account.id,
            txid=charge.txid,
            location_prefix=PREFIX,
            fields=RevisionFields(status="REMOVIDA_PELO_USUARIO_RECEBEDOR", payer_request="x"),
        )
    assert _details(caught) == {"status"}
    with pytest.raises(ValidationError):
        await revise_charge(
            uow,
            clock,
            account_id=holder.account.id,
            txid=charge.txid,
            location_prefix=PREFIX,
            fields=RevisionFields(),
        )
    cancelled = await revise_charge(
        uow,
        clock,
        account_id=holder.account.id,
        txid=charge.txid,
        location_prefix=PREFIX,
        fields=RevisionFields(status="REMOVIDA_PELO_USUARIO_RECEBEDOR"),
    )
    assert (cancelled.status, cancelled.revision) == (ChargeStatus.REMOVIDA_PELO_USUARIO_RECEBEDOR, 2)
    with pytest.raises(InvalidTransition):
        await revise_charge(
            uow, clock, account_id=holder.account.id, txid=charge.txid, location_prefix=PREFIX, fields=change
        )


async def test_a_cash_in_is_only_cancelled(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount
) -> None:
    cash_in = await create_cash_in(
        store.unit_of_work,
        clock,
        account_id=holder.account.id,
        request=CashInRequest.parse(
            amount=10,
            description="d",
            external_id="e1",
            expiration=None,
            generate_qr_code=None,
            payer_name="Payer",
            payer_document=OTHER_CPF,
            additional_info=None,
        ),
        location_prefix=PREFIX,
    )
    with pytest.raises(InvalidTransition):
        await revise_charge(
            store.unit_of_work,
            clock,
            account_id=holder.account.id,
            txid=cash_in.txid,
            location_prefix=PREFIX,
            fields=RevisionFields(value=ValueFields(original="99.00", modality=ABSENT)),
        )


async def test_received_pix_are_listed_and_read_only_by_their_account(
    store: InMemoryStore, clock: ManualClock, holder: OpenedAccount, other: OpenedAccount
) -> None:
    uow = store.unit_of_work
    charge = await create_charge(
        uow, clock, account_id=holder.account.id, txid=None, request=request(), location_prefix=PREFIX
    )
    paid = await pay_charge(uow, clock, location_id=charge.location_id, payer=PAYER)
    query = parse_received_query(inicio=START, fim=END)
    listing = await search_received(uow, account_id=holder.account.id, query=query)
    assert listing.total == 1
    (pix,) = listing.pix
    assert (pix.end_to_end_id, pix.tx_id, pix.amount, pix.pix_key) == (
        paid.end_to_end_id,
        charge.txid,
        1000,
        "holder@example.com",
    )
    assert await read_received(uow, account_id=holder.account.id, end_to_end_id=paid.end_to_end_id) == pix
    assert (await search_received(uow, account_id=other.account.id, query=query)).pix == ()
    with pytest.raises(TransactionNotFound):
        await read_received(uow, account_id=other.account.id, end_to_end_id=paid.end_to_end_id)
    without = parse_received_query(inicio=START, fim=END, txid_present="false")
    assert (await search_received(uow, account_id=holder.account.id, query=without)).pix == ()
