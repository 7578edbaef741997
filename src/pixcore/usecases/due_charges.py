"""Due-date charges (``cobv``): create, revise or cancel (docs/decisions.md, "Due-date charges (cobv)").

A ``cobv`` is a charge of kind ``cobv`` (:mod:`pixcore.usecases.charges` reads, lists, expires
and pays it as any charge, with its own kind filter): ATIVA until paid, cancelled, or until its
last payable day ends, when it reads REMOVIDA_PELO_PSP. Its payment credits the amount due on
the payer's day (``pay_charge``).
"""

from __future__ import annotations

import dataclasses

from pixcore.charges import Charge, ChargeKind, ChargeStatus, dynamic_code
from pixcore.clock import Clock
from pixcore.due_requests import DueChargeRequest, DueRevision, DueRevisionFields
from pixcore.errors import ChargeNotFound, InvalidTransition
from pixcore.identifiers import validate_txid
from pixcore.ports import UnitOfWorkFactory
from pixcore.usecases.charges import (
    DUE_KINDS,
    build_charge,
    cancel_locked,
    load_account,
    receiving_key,
)

__all__ = ["create_due_charge", "revise_due_charge"]


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
        key = await receiving_key(tx, account_id, request.key)
        new = build_charge(
            account,
            txid=txid,
            kind=ChargeKind.COBV,
            now=now,
            expiration=request.expiration,
            amount=request.terms.original,
            modality=0,
            pix_key=key,
            location_prefix=location_prefix,
            payer_request=request.payer_request,
            debtor=request.debtor,
            info=request.info,
            due=request.terms,
        )
        charge = await tx.charges.add(new)
        await tx.commit()
    return charge


async def revise_due_charge(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, txid: str, fields: DueRevisionFields
) -> Charge:
    """``PATCH /cobv/{txid}``: cancel an ATIVA ``cobv``, or revise it (``revisao`` one more; its
    terms judged as they would be after the change, a due date not before today)."""
    validate_txid(txid)
    fields.cancels()  # its status rules first, before any charge is looked up
    now = clock.now()
    async with uow() as tx:
        charge = await tx.charges.lock(account_id, txid)
        if charge is None or charge.kind not in DUE_KINDS:
            raise ChargeNotFound()
        revision = DueRevision.parse(fields, charge, now=now)
        if revision.cancel:
            cancelled = await cancel_locked(tx, charge, now)
            await tx.commit()
            return cancelled
        status = charge.status_at(now)
        if status is not ChargeStatus.ATIVA:
            raise InvalidTransition(f"a {status.value} charge cannot be revised")
        if revision.terms is None:
            raise InvalidTransition("a due-date charge keeps its terms")
        account = await load_account(tx, account_id)
        key = charge.pix_key if revision.key is None else await receiving_key(tx, account_id, revision.key)
        code = dynamic_code(
            location=charge.location, merchant_name=account.name, merchant_city=account.city, amount=0
        )
        revised = dataclasses.replace(
            charge,
            expiration=revision.expiration,
            amount=revision.terms.original,
            pix_key=key,
            payer_request=revision.payer_request,
            debtor=revision.debtor,
            info=revision.info,
            due=revision.terms,
            br_code=code,
            revision=charge.revision + 1,
            updated_at=now,
        )
        await tx.charges.revise(revised)
        await tx.commit()
    return revised
