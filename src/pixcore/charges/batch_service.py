"""Batches of due-date charges (``/lotecobv``): create, revise, read and list them
(docs/decisions/due-batches.md).

Every charge of a batch is decided inside the request, by the very judgement of ``PUT`` or
``PATCH /cobv/{txid}`` (:func:`~pixcore.charges.cobv_service.add_due_charge`,
:func:`~pixcore.charges.cobv_service.revise_locked_due_charge`), each on its own: a refused one
is an item with its :class:`~pixcore.charges.batches.Refusal`, the others go on. The whole batch is
one unit of work: a process killed midway leaves the whole batch or nothing of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pixcore.accounts.rules import Account
from pixcore.charges.batches import (
    INVALID_BATCH,
    BatchField,
    BatchItem,
    BatchItemStatus,
    BatchRequest,
    DueBatch,
    Refusal,
)
from pixcore.charges.cob_service import DUE_KINDS, load_account
from pixcore.charges.cobv_requests import DueChargeFields, DueChargeRequest, DueRevisionFields
from pixcore.charges.cobv_service import add_due_charge, restate_locked_due_charge, revise_locked_due_charge
from pixcore.charges.parts import DUE_REVISION, Text
from pixcore.clock import Clock
from pixcore.errors import (
    BatchNotFound,
    ChargeNotFound,
    Conflict,
    DuplicateBatch,
    NotFound,
    RuleViolation,
    ValidationError,
)
from pixcore.problems import Problem
from pixcore.queries.standard import BatchQuery
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "BatchChange",
    "BatchCharge",
    "BatchListing",
    "create_due_batch",
    "put_due_batch",
    "read_due_batch",
    "revise_due_batch",
    "search_due_batches",
]

_NOT_THE_SAME = Problem.of(
    BatchField.CHARGES, "a batch made already is revised with exactly its own charges, none added or left out"
)
_IN_USE = Problem.of(BatchField.ID, "a batch with this id exists already; revise its charges with PATCH")

# What judging one charge may raise: the charge's own refusal, never the batch's.
_REFUSALS = (ValidationError, NotFound, Conflict, RuleViolation)


@dataclass(frozen=True, slots=True)
class BatchCharge:
    """One charge of a ``PUT``: its ``txid`` and its body as the edge decoded it, or the
    ``ValidationError`` that keeps the body from decoding (a wrong type: the charge is refused)."""

    txid: Text
    fields: DueChargeFields | ValidationError


@dataclass(frozen=True, slots=True)
class BatchChange:
    """One charge of a ``PATCH``: its ``txid`` and its change, or why the change does not decode."""

    txid: Text
    fields: DueRevisionFields | ValidationError


async def create_due_batch(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    batch_id: int,
    description: Text,
    charges: Sequence[BatchCharge] | None,
    location_prefix: str,
) -> DueBatch:
    """``PUT /lotecobv/{id}``: a new batch whose charges are each created or refused (NEGADA,
    with what ``PUT /cobv/{txid}`` would have answered). An id the account has is refused
    (``DuplicateBatch``): its charges are revised with ``PATCH``."""
    put = _Put.of(account_id, batch_id, description, charges, location_prefix)
    return await _create(uow, clock.now(), put)


async def put_due_batch(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    batch_id: int,
    description: Text,
    charges: Sequence[BatchCharge] | None,
    location_prefix: str,
) -> DueBatch:
    """The standard's ``PUT /lotecobv/{id}``: a new batch, as :func:`create_due_batch`; or, for an id
    the account has, its description replaced and each of its charges created again (one refused
    before) or revised to its whole body (as the standard's ``PUT /cobv/{txid}`` revises), each
    refused alone as on creation. Such a ``PUT`` names exactly the batch's charges: once made, a
    batch gains and loses none (the standard's ``LoteCobVOperacaoInvalida``)."""
    put = _Put.of(account_id, batch_id, description, charges, location_prefix)
    while True:
        now = clock.now()
        async with uow() as tx:
            batch = await tx.batches.lock(account_id, batch_id)
            if batch is not None:
                restated = await _restate(tx, batch, put, now)
                await tx.commit()
                return restated
        try:
            return await _create(uow, clock.now(), put)
        except DuplicateBatch:  # made meanwhile by another request: this one revises it
            continue


@dataclass(frozen=True, slots=True)
class _Put:
    """A ``PUT /lotecobv/{id}``, its batch's own rules judged (``request``: the description and
    the txids): what creating or restating the batch needs."""

    account_id: int
    batch_id: int
    request: BatchRequest
    charges: Sequence[BatchCharge]
    location_prefix: str

    @classmethod
    def of(
        cls,
        account_id: int,
        batch_id: int,
        description: Text,
        charges: Sequence[BatchCharge] | None,
        location_prefix: str,
    ) -> _Put:
        txids = None if charges is None else [c.txid for c in charges]
        request = BatchRequest.parse(description=description, txids=txids, creating=True)
        return cls(account_id, batch_id, request, charges or (), location_prefix)


async def _create(uow: UnitOfWorkFactory, now: datetime, put: _Put) -> DueBatch:
    account_id, batch_id, description = put.account_id, put.batch_id, put.request.description or ""
    async with uow() as tx:
        account = await load_account(tx, account_id)
        if await tx.batches.get(account_id, batch_id) is not None:
            raise DuplicateBatch(problems=[_IN_USE])
        # The row first: a second writer of the same id waits here, then fails, before any charge.
        await tx.batches.add(DueBatch(account_id, batch_id, description, now))
        items = [
            await _create_one(tx, account, txid, charge.fields, now, put.location_prefix, batch_id)
            for txid, charge in zip(put.request.txids, put.charges, strict=True)
        ]
        batch = DueBatch(account_id, batch_id, description, now, tuple(items))
        await tx.batches.save(batch)
        await tx.commit()
    return batch


async def _restate(tx: UnitOfWork, batch: DueBatch, put: _Put, now: datetime) -> DueBatch:
    if set(put.request.txids) != {item.txid for item in batch.items}:
        raise ValidationError(problems=[_NOT_THE_SAME], summary=INVALID_BATCH)
    account = await load_account(tx, batch.account_id)
    items = {item.txid: item for item in batch.items}
    for txid, charge in zip(put.request.txids, put.charges, strict=True):
        item = items.get(txid)
        if item is None or item.status is BatchItemStatus.NEGADA:
            made = await _create_one(tx, account, txid, charge.fields, now, put.location_prefix, batch.id)
        else:
            made = await _restate_one(tx, batch, item, charge.fields, now, put.location_prefix)
        items[txid] = made
    description_now = put.request.description or ""
    restated = dataclasses.replace(batch, description=description_now, items=tuple(items.values()))
    await tx.batches.save(restated)
    return restated


async def _restate_one(  # noqa: PLR0917 - one charge of the batch
    tx: UnitOfWork,
    batch: DueBatch,
    item: BatchItem,
    fields: DueChargeFields | ValidationError,
    now: datetime,
    location_prefix: str,
) -> BatchItem:
    try:
        if isinstance(fields, ValidationError):
            raise fields
        request = DueChargeRequest.parse(fields, now=now)
        charge = await tx.charges.lock(batch.account_id, item.txid)
        if charge is None or charge.kind not in DUE_KINDS or charge.batch_id != batch.id:
            raise ChargeNotFound()
        await restate_locked_due_charge(tx, charge, request, now, location_prefix=location_prefix)
    except _REFUSALS as exc:
        return dataclasses.replace(item, refusal=Refusal.of(exc))
    return dataclasses.replace(item, refusal=None)


async def _create_one(  # noqa: PLR0917 - one charge of the batch
    tx: UnitOfWork,
    account: Account,
    txid: str,
    fields: DueChargeFields | ValidationError,
    now: datetime,
    location_prefix: str,
    batch_id: int,
) -> BatchItem:
    try:
        if isinstance(fields, ValidationError):
            raise fields
        request = DueChargeRequest.parse(fields, now=now)
        charge = await add_due_charge(
            tx,
            account,
            txid=txid,
            request=request,
            now=now,
            location_prefix=location_prefix,
            batch_id=batch_id,
        )
    except _REFUSALS as exc:
        return BatchItem(txid, BatchItemStatus.NEGADA, refusal=Refusal.of(exc))
    return BatchItem(txid, BatchItemStatus.CRIADA, created_at=charge.created_at)


async def revise_due_batch(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    batch_id: int,
    description: Text,
    changes: Sequence[BatchChange],
    location_prefix: str,
) -> DueBatch:
    """``PATCH /lotecobv/{id}``: revise (or cancel) charges of the batch, each judged as ``PATCH
    /cobv/{txid}`` judges it. A txid that is not one of the batch's refuses the whole request; a
    charge's refusal is its item's ``problema`` (a charge never created stays NEGADA, with the
    404 of a charge not found)."""
    request = BatchRequest.parse(
        description=description, txids=[c.txid for c in changes or ()], creating=False
    )
    now = clock.now()
    async with uow() as tx:
        batch = await tx.batches.lock(account_id, batch_id)
        if batch is None:
            raise BatchNotFound()
        items = {item.txid: item for item in batch.items}
        strangers = [
            Problem.of(BatchField.CHARGE_TXID, f"{txid} is not a charge of batch {batch_id}", at=(place,))
            for place, txid in enumerate(request.txids)
            if txid not in items
        ]
        if strangers:
            raise ValidationError(problems=strangers, summary=INVALID_BATCH)
        for txid, change in zip(request.txids, changes, strict=True):
            items[txid] = await _revise_one(tx, batch, items[txid], change.fields, now, location_prefix)
        description_now = batch.description if request.description is None else request.description
        revised = dataclasses.replace(
            batch, description=description_now, items=tuple(items[item.txid] for item in batch.items)
        )
        await tx.batches.save(revised)
        await tx.commit()
    return revised


async def _revise_one(  # noqa: PLR0917 - one charge of the batch
    tx: UnitOfWork,
    batch: DueBatch,
    item: BatchItem,
    fields: DueRevisionFields | ValidationError,
    now: datetime,
    location_prefix: str,
) -> BatchItem:
    try:
        if isinstance(fields, ValidationError):
            raise fields
        fields.cancels(DUE_REVISION)  # its status rules first, as PATCH /cobv/{txid} judges them
        charge = await tx.charges.lock(batch.account_id, item.txid)
        if charge is None or charge.kind not in DUE_KINDS or charge.batch_id != batch.id:
            raise ChargeNotFound()
        await revise_locked_due_charge(tx, charge, fields, now, location_prefix=location_prefix)
    except _REFUSALS as exc:
        return dataclasses.replace(item, refusal=Refusal.of(exc))
    return dataclasses.replace(item, refusal=None)


@dataclass(frozen=True, slots=True)
class BatchListing:
    """A page of ``GET /lotecobv``: ``total`` batches match in all."""

    total: int
    batches: tuple[DueBatch, ...]


async def read_due_batch(uow: UnitOfWorkFactory, *, account_id: int, batch_id: int) -> DueBatch:
    """``GET /lotecobv/{id}``: the account's batch (another account's is not found)."""
    async with uow() as tx:
        batch = await tx.batches.get(account_id, batch_id)
    if batch is None:
        raise BatchNotFound()
    return batch


async def search_due_batches(uow: UnitOfWorkFactory, *, account_id: int, query: BatchQuery) -> BatchListing:
    """``GET /lotecobv``: the account's batches created in the window, oldest first."""
    async with uow() as tx:
        total, batches = await tx.batches.search(account_id, query)
    return BatchListing(total, tuple(batches))
