"""The contract of ``DueBatchRepository``: batches of due-date charges by (account, id), their
items, the list by creation, and ``GET /cobv?loteCobVId=`` through ``ChargeRepository.search``."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import timedelta

import pytest

from pixcore.charges.batches import BatchItem, BatchItemStatus, DueBatch, Refusal
from pixcore.charges.cob import ChargeKind
from pixcore.charges.cobv import DueField
from pixcore.charges.parts import ChargeField, location_taken
from pixcore.errors import DuplicateBatch, ValidationError
from pixcore.problems import Member, Problem
from pixcore.queries.standard import parse_batch_query, parse_charge_query
from tests.contract.conftest import Backend
from tests.contract.rows import T0, add_account
from tests.contract.test_charges import _due_terms, _new_charge

REFUSED = Refusal(
    "ValidationError", "Invalid due-date charge", ("devedor: required, a cpf or cnpj with nome",)
)


# A refusal whose problems name their fields by reference: a member named in a text, an item's
# place, a summary; and one whose message is its one problem.
TYPED = Refusal.of(
    ValidationError(
        problems=[
            Problem.of(
                ChargeField.DEBTOR,
                "{} and {} cannot both be given",
                Member(ChargeField.DEBTOR_CPF),
                Member(ChargeField.DEBTOR_CNPJ),
            ),
            Problem.of(DueField.DISCOUNT_DATE_UNTIL, "must not be after {}", DueField.DUE_DATE, at=(2,)),
        ],
        summary="Invalid due-date charge: {}",
    )
)
LED = Refusal.of(location_taken("the location serves the charge x"))


def _batch(account_id: int, batch_id: int = 7, **changes: object) -> DueBatch:
    batch = DueBatch(account_id, batch_id, "Turno vespertino", T0)
    return dataclasses.replace(batch, **changes)  # type: ignore[arg-type]


async def test_a_batch_reads_back_with_its_items_in_order(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.batches.add(_batch(account.id))
        assert await tx.batches.get(account.id, 7) == _batch(account.id)
        items = (
            BatchItem(uuid.uuid4().hex, BatchItemStatus.CRIADA, created_at=T0),
            BatchItem(uuid.uuid4().hex, BatchItemStatus.NEGADA, refusal=REFUSED),
            BatchItem(uuid.uuid4().hex, BatchItemStatus.CRIADA, created_at=T0, refusal=REFUSED),
            BatchItem(uuid.uuid4().hex, BatchItemStatus.NEGADA, refusal=TYPED),
            BatchItem(uuid.uuid4().hex, BatchItemStatus.NEGADA, refusal=LED),
        )
        saved = _batch(account.id, description="Renamed", items=items)
        await tx.batches.save(saved)
        assert await tx.batches.get(account.id, 7) == saved
        assert await tx.batches.lock(account.id, 7) == saved
        assert await tx.batches.get(account.id, 8) is None


async def test_a_batch_id_is_the_accounts_own(backend: Backend) -> None:
    async with backend.uow() as tx:
        mine, theirs = await add_account(tx), await add_account(tx)
        await tx.batches.add(_batch(mine.id))
        await tx.batches.add(_batch(theirs.id, description="Theirs"))
        with pytest.raises(DuplicateBatch):
            await tx.batches.add(_batch(mine.id, description="Again"))
        found = await tx.batches.get(mine.id, 7)
        assert found is not None
        assert found.description == "Turno vespertino"
        other = await tx.batches.get(theirs.id, 7)
        assert other is not None
        assert other.description == "Theirs"


async def test_a_second_unit_adding_the_same_id_fails(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.commit()
    async with backend.uow() as first:
        await first.batches.add(_batch(account.id))
        await first.commit()
    async with backend.uow() as second:
        with pytest.raises(DuplicateBatch):
            await second.batches.add(_batch(account.id))


async def test_batches_are_listed_by_creation_and_paged(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        for batch_id, minutes in ((3, 2), (1, 1), (2, 1), (9, 30)):
            await tx.batches.add(_batch(account.id, batch_id, created_at=T0 + timedelta(minutes=minutes)))
        window = {
            "inicio": (T0 + timedelta(minutes=1)).isoformat(),
            "fim": (T0 + timedelta(minutes=2)).isoformat(),
        }
        total, page = await tx.batches.search(account.id, parse_batch_query(**window))
        assert (total, [b.id for b in page]) == (3, [1, 2, 3])
        total, page = await tx.batches.search(account.id, parse_batch_query(**window, page="1", size="2"))
        assert (total, [b.id for b in page]) == (3, [3])
        total, page = await tx.batches.search(account.id, parse_batch_query(**window, page="2", size="2"))
        assert (total, page) == (3, [])


async def test_cobv_lists_a_batchs_charges(backend: Backend) -> None:
    async with backend.uow() as tx:
        account = await add_account(tx)
        await tx.batches.add(_batch(account.id, 5))
        await tx.batches.add(_batch(account.id, 6))
        terms = _due_terms(T0)
        cobv = {"kind": ChargeKind.COBV, "due": terms, "amount": terms.original, "created_at": T0}
        in_five = await tx.charges.add(_new_charge(account.id, batch_id=5, **cobv))
        in_six = await tx.charges.add(_new_charge(account.id, batch_id=6, **cobv))
        alone = await tx.charges.add(_new_charge(account.id, **cobv))
        assert in_five.batch_id == 5
        assert (await tx.charges.get(account.id, in_six.txid)) == in_six

        window = {"inicio": T0.isoformat(), "fim": (T0 + timedelta(minutes=1)).isoformat()}
        for batch, expected in (("5", [in_five.id]), ("6", [in_six.id]), ("4", []), (None, None)):
            query = parse_charge_query(**window, batch=batch)
            total, found = await tx.charges.search(account.id, query, T0, due=True)
            ids = [c.id for c in found]
            if expected is None:
                assert sorted(ids) == sorted([in_five.id, in_six.id, alone.id])
            else:
                assert (total, ids) == (len(expected), expected)
