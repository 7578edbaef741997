"""Due-date charges (``cobv``): create, revise or cancel (docs/decisions/due-charges.md).

A ``cobv`` is a charge of kind ``cobv`` (:mod:`pixcore.charges.cob_service` reads, lists, expires
and pays it as any charge, with its own kind filter): ATIVA until paid, cancelled, or until its
last payable day ends, when it reads REMOVIDA_PELO_PSP. Its payment credits the amount due on
the payer's day (``pay_charge``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from pixcore.accounts.rules import Account
from pixcore.charges.cob import Charge, ChargeKind
from pixcore.charges.cob_service import (
    DUE_KINDS,
    ChargeView,
    add_charge,
    cancel_locked,
    load_account,
    read_before_revising,
    revisable,
    revise_locked,
)
from pixcore.charges.cobv_requests import DueChargeRequest, DueRevision, DueRevisionFields
from pixcore.charges.parts import DUE_REVISION
from pixcore.clock import Clock
from pixcore.errors import ChargeNotFound, InvalidTransition
from pixcore.identifiers import validate_txid
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "add_due_charge",
    "create_due_charge",
    "put_due_charge",
    "restate_locked_due_charge",
    "revise_due_charge",
    "revise_locked_due_charge",
]


async def create_due_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str,
    request: DueChargeRequest,
    location_prefix: str,
) -> Charge:
    """``PUT /cobv/{txid}``: a new ATIVA ``cobv`` (its txid unique among all the account's charges).

    ``request`` was judged at ``clock.now()`` (its ``expiration`` counts from then)."""
    txid = validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        account = await load_account(tx, account_id)
        charge = await add_due_charge(
            tx, account, txid=txid, request=request, now=now, location_prefix=location_prefix
        )
        await tx.commit()
    return charge


async def put_due_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str,
    request: DueChargeRequest,
    location_prefix: str,
) -> Charge:
    """The standard's ``PUT /cobv/{txid}``: a new ATIVA ``cobv``, as :func:`create_due_charge`; or,
    when the account has a ``cobv`` under ``txid``, its revision to ``request``'s whole terms and
    parts (``revisao`` one more; a part left out is removed). ``InvalidTransition`` when that
    ``cobv`` is not ATIVA; a txid of another kind is ``DuplicateCharge``, as on creation."""
    txid = validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        existing = await tx.charges.lock(account_id, txid)
        account = await load_account(tx, account_id)
        if existing is None or existing.kind not in DUE_KINDS:
            charge = await add_due_charge(
                tx, account, txid=txid, request=request, now=now, location_prefix=location_prefix
            )
        else:
            charge = await restate_locked_due_charge(
                tx, existing, request, now, location_prefix=location_prefix
            )
        await tx.commit()
    return charge


async def restate_locked_due_charge(
    tx: UnitOfWork, charge: Charge, request: DueChargeRequest, now: datetime, *, location_prefix: str
) -> Charge:
    """Revise ``charge`` (a ``cobv`` the unit of work has locked, ATIVA at ``now``) to the whole of
    ``request``, as the standard's ``PUT`` of an existing ``cobv`` does; the caller commits."""
    terms = request.terms
    return await revise_locked(
        tx,
        charge,
        now,
        parts=request,
        amount=0,
        location_prefix=location_prefix,
        fields=lambda moved: dataclasses.replace(
            moved, expiration=request.expiration, amount=terms.original, due=terms
        ),
    )


async def add_due_charge(
    tx: UnitOfWork,
    account: Account,
    *,
    txid: str,
    request: DueChargeRequest,
    now: datetime,
    location_prefix: str,
    batch_id: int | None = None,
) -> Charge:
    """Add the ``cobv`` of a judged request to the unit of work (``batch_id``: the batch it is
    created in). Raises ``DuplicateCharge`` (the unit stays usable) or ``InvalidPixKey``."""
    return await add_charge(
        tx,
        account_id=account.id,
        txid=txid,
        kind=ChargeKind.COBV,
        now=now,
        expiration=request.expiration,
        amount=request.terms.original,
        parts=request,
        location_prefix=location_prefix,
        due=request.terms,
        batch_id=batch_id,
    )


async def revise_due_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str,
    fields: DueRevisionFields,
    location_prefix: str,
    found_first: bool = False,
) -> Charge | ChargeView:
    """``PATCH /cobv/{txid}``: cancel an ATIVA ``cobv``, or revise it (``revisao`` one more; its
    terms judged as they would be after the change, a due date not before today; ``loc.id``
    moves it to another ``cobv`` location of the account, under ``location_prefix``).
    ``found_first``: the standard's order, as :func:`~pixcore.charges.cob_service.revise_charge`'s."""
    if found_first:
        view = await read_before_revising(uow, fields, account_id=account_id, txid=txid, kinds=DUE_KINDS)
        if view is not None:
            return view
    validate_txid(txid)
    fields.cancels(DUE_REVISION)  # its status rules first, before any charge is looked up
    now = clock.now()
    async with uow() as tx:
        charge = await tx.charges.lock(account_id, txid)
        if charge is None or charge.kind not in DUE_KINDS:
            raise ChargeNotFound()
        revised = await revise_locked_due_charge(tx, charge, fields, now, location_prefix=location_prefix)
        await tx.commit()
    return revised


async def revise_locked_due_charge(
    tx: UnitOfWork, charge: Charge, fields: DueRevisionFields, now: datetime, *, location_prefix: str
) -> Charge:
    """Cancel or revise ``charge`` (a ``cobv`` the unit of work has locked), as ``PATCH
    /cobv/{txid}`` does (``loc.id`` moves it first, so the revision kept has its new code); the
    caller commits."""
    revision = DueRevision.parse(fields, charge, now=now)
    if revision.cancel:
        return await cancel_locked(tx, charge, now)
    revisable(charge, now)
    terms = revision.terms
    if terms is None:
        raise InvalidTransition("a due-date charge keeps its terms")
    return await revise_locked(
        tx,
        charge,
        now,
        parts=revision,
        amount=0,
        location_prefix=location_prefix,
        fields=lambda moved: dataclasses.replace(
            moved, expiration=revision.expiration, amount=terms.original, due=terms
        ),
    )
