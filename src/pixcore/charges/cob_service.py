"""Charges and cash-in: create, read, cancel, expire, and pay.

Paying a charge is one unit of work: the charge row is locked, moved to
CONCLUIDA by its lifecycle, and the PAYMENT record, the ledger posting and the
RECEIVE event are written with it; a second payment waits for the lock, finds
the charge CONCLUIDA, and is refused. Nothing is credited twice.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pixcore import brcode
from pixcore.accounts.rules import Account, Counterpart
from pixcore.amount_parts import DueAmount, whole_amount
from pixcore.charges.cob import (
    CashInRequest,
    Charge,
    ChargeKind,
    ChargeLifecycle,
    ChargeLine,
    ChargeRequest,
    ChargeRevision,
    ChargeRevisionFields,
    ChargeStatus,
    NewCharge,
    amount_to_pay,
    cash_payment_parts,
    dynamic_code,
    new_location_id,
)
from pixcore.charges.cobv import DueTerms, amount_breakdown, amount_due, payer_day
from pixcore.charges.locations import Location, LocationField, location_type_of
from pixcore.charges.parts import ChargeField, KeptParticulars, Particulars, RevisionFields, location_taken
from pixcore.clock import Clock
from pixcore.errors import (
    AccountNotFound,
    AmountMismatch,
    ChargeNotFound,
    InvalidAmount,
    InvalidBrCode,
    InvalidPixKey,
    InvalidTransition,
    KeyNotInDirectory,
    TransactionNotFound,
    UnknownRevision,
    ValidationError,
)
from pixcore.identifiers import new_end_to_end_id, new_txid, validate_e2eid_path, validate_txid
from pixcore.keys import parse_pix_key
from pixcore.money import format_amount_string
from pixcore.problems import Problem
from pixcore.queries.standard import ChargeQuery, QueryField, ReceivedQuery
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.refunds.rules import Original, Refund
from pixcore.transfers.receipt_service import credit_receipt, receive_payment
from pixcore.unit_of_work import UnitOfWork, UnitOfWorkFactory

__all__ = [
    "ALL_KINDS",
    "DUE_KINDS",
    "DUE_LOCATION",
    "IMMEDIATE_KINDS",
    "ChargeListing",
    "ChargePayer",
    "ChargePayment",
    "ChargeView",
    "ReceivedListing",
    "ReceivedPix",
    "add_charge",
    "amount_due_now",
    "build_charge",
    "cancel_charge",
    "cancel_locked",
    "create_cash_in",
    "create_charge",
    "expire_charges",
    "get_charge",
    "get_charge_by_location",
    "list_charges",
    "load_account",
    "pay_charge",
    "pay_code",
    "payment_terms",
    "place_charge",
    "put_charge",
    "read_before_revising",
    "read_charge",
    "read_received",
    "receiving_key",
    "relocate",
    "revisable",
    "revise_charge",
    "revise_locked",
    "search_charges",
    "search_received",
    "sweep_expired_charges",
]


@dataclass(frozen=True, slots=True)
class ChargePayment:
    charge: Charge
    transaction_id: int
    end_to_end_id: str
    amount: int


DUE_LOCATION = "cobv/"
"""A ``cobv``'s location is ``{host}/qr/v2/cobv/{id}`` (the standard's ``/cobv/{pixUrlAccessToken}``)."""
DUE_KINDS = frozenset({ChargeKind.COBV})
"""The kinds ``/cobv`` shows; ``/cob`` shows the others (a txid is the account's across both)."""
IMMEDIATE_KINDS = frozenset(ChargeKind) - DUE_KINDS
ALL_KINDS = frozenset(ChargeKind)
"""What the console shows: every charge of the account, whichever route made it."""


def _of_kind(charge: Charge | None, kinds: frozenset[ChargeKind]) -> Charge:
    """``charge`` if it is one of ``kinds``: ``GET /cob/{txid}`` of a ``cobv`` is not found."""
    if charge is None or charge.kind not in kinds:
        raise ChargeNotFound()
    return charge


def amount_due_now(charge: Charge, now: datetime) -> int:
    """What the charge asks at ``now``: a ``cobv``'s amount due on the payer's day, else its amount.
    Raises ``DueChargeClosed`` past a ``cobv``'s last payable day."""
    return charge.amount if charge.due is None else amount_due(charge.due, payer_day(now))


def _payable(charge: Charge, offered: int | None, now: datetime) -> tuple[int, DueAmount | None]:
    """What a payment of ``offered`` credits, and what the payment keeps of its parts: a ``cobv``'s
    on the payer's day (:func:`~pixcore.charges.cobv.amount_breakdown`), a Pix Saque's or Troco's
    purchase and cash (:func:`~pixcore.charges.cob.cash_payment_parts`), None for any other."""
    if charge.due is None:
        credited = amount_to_pay(charge, offered)
        return credited, cash_payment_parts(charge, credited)
    parts = amount_breakdown(charge.due, payer_day(now))
    if offered is not None and offered != parts.final:
        raise AmountMismatch(f"this charge takes exactly {format_amount_string(parts.final)} today")
    return parts.final, parts


async def load_account(tx: UnitOfWork, account_id: int) -> Account:
    account = await tx.accounts.get(account_id)
    if account is None:
        raise AccountNotFound()
    return account


async def receiving_key(tx: UnitOfWork, account_id: int, requested: str | None) -> str:
    """The key a charge names: the requested one if it is the account's, else the first key."""
    if requested is None:
        keys = await tx.keys.list_for(account_id)
        if not keys:
            raise KeyNotInDirectory("The account has no PIX key to receive with.")
        return keys[0].value
    try:
        key = parse_pix_key(requested)
    except InvalidPixKey as exc:
        invalid = Problem.of(ChargeField.KEY, exc.message)
        raise InvalidPixKey(Problem.of(ChargeField.KEY, "not a valid PIX key"), problems=[invalid]) from None
    if await tx.keys.owner_of(key) != account_id:
        stranger = Problem.of(ChargeField.KEY, "not a key of your account")
        raise InvalidPixKey(stranger, problems=[stranger])
    return key.value


def build_charge(
    account: Account,
    *,
    txid: str,
    kind: ChargeKind,
    now: datetime,
    expiration: int,
    amount: int,
    modality: int,
    pix_key: str,
    location_prefix: str,
    kept: KeptParticulars,
    external_id: str | None = None,
    correlation_id: uuid.UUID | None = None,
    transaction_id: int | None = None,
    due: DueTerms | None = None,
    at: Location | None = None,
) -> NewCharge:
    """A new charge of ``account`` keeping its request's ``kept`` parts (the debtor, the payer's
    message, the extra items: whatever :class:`~pixcore.charges.parts.KeptParticulars` declares),
    at the location ``at`` (None: a new one, which the repository's ``add`` stores with it) under
    ``location_prefix`` (a ``cobv``'s under its ``cobv/``), with its BR Code (a ``cobv``'s carries
    no amount: the payload says it)."""
    location_id = new_location_id() if at is None else at.token
    location = location_prefix + (DUE_LOCATION if due is not None else "") + location_id
    code = dynamic_code(
        location=location,
        merchant_name=account.name,
        merchant_city=account.city,
        amount=0 if due is not None else amount,
        withdrawal=kept.withdrawal,
    )
    return NewCharge(
        account_id=account.id,
        txid=txid,
        kind=kind,
        created_at=now,
        expiration=expiration,
        amount=amount,
        modality=modality,
        pix_key=pix_key,
        location_id=location_id,
        location=location,
        br_code=code,
        loc_id=None if at is None else at.id,
        loc_created_at=None if at is None or at.created_at == now else at.created_at,
        external_id=external_id,
        correlation_id=correlation_id,
        transaction_id=transaction_id,
        due=due,
        **kept.kept(),
    )


async def place_charge(
    tx: UnitOfWork, account_id: int, kind: ChargeKind, loc_id: int | None
) -> Location | None:
    """Inside a unit of work: the location ``loc.id`` names for a charge of ``kind`` of the
    account, locked (None when ``loc_id`` is: a new one). It must be the account's (another
    account's reads as unknown), of the charge's type, and serve no charge; each refusal is a
    rule of ``loc_id`` (400 with the body's other rules)."""
    if loc_id is None:
        return None
    location = await tx.locations.lock(account_id, loc_id)
    if location is None:
        unknown = Problem.of(ChargeField.LOC_ID, "no location of your account has this id")
        raise ValidationError(unknown, problems=[unknown])
    wanted = location_type_of(kind)
    if location.type is not wanted:
        text = f"the location is of {{}} {location.type.value}, not {wanted.value}"
        other = Problem.of(ChargeField.LOC_ID, text, LocationField.TYPE)
        raise ValidationError(other, problems=[other])
    if location.txid is not None:
        raise location_taken(f"the location serves the charge {location.txid}")
    return location


async def add_charge(
    tx: UnitOfWork,
    *,
    account_id: int,
    txid: str,
    kind: ChargeKind,
    now: datetime,
    expiration: int,
    amount: int,
    parts: Particulars,
    location_prefix: str,
    modality: int = 0,
    due: DueTerms | None = None,
    batch_id: int | None = None,
) -> Charge:
    """Inside a unit of work: a new ATIVA charge of the account (``cob`` or ``cobv``) with the
    request's ``parts``: naming their key (None: the account's first), at their location
    ``loc_id`` (None: a new one), made in the batch of due-date charges ``batch_id`` (None: none)."""
    account = await load_account(tx, account_id)
    pix_key = await receiving_key(tx, account_id, parts.key)
    at = await place_charge(tx, account_id, kind, parts.loc_id)
    new = build_charge(
        account,
        txid=txid,
        kind=kind,
        now=now,
        expiration=expiration,
        amount=amount,
        modality=modality,
        pix_key=pix_key,
        location_prefix=location_prefix,
        kept=parts,
        due=due,
        at=at,
    )
    return await tx.charges.add(dataclasses.replace(new, batch_id=batch_id))


async def relocate(
    tx: UnitOfWork, charge: Charge, loc_id: int | None, *, location_prefix: str, amount: int
) -> Charge:
    """Inside a unit of work: the (locked) charge moved to the location ``loc_id`` of its
    account (None, or the one it is at: it stays), its BR Code made for the new URL."""
    if loc_id is None or loc_id == charge.loc_id:
        return charge
    at = await place_charge(tx, charge.account_id, charge.kind, loc_id)
    if at is None:
        return charge
    account = await load_account(tx, charge.account_id)
    url = at.url(location_prefix)
    code = dynamic_code(
        location=url,
        merchant_name=account.name,
        merchant_city=account.city,
        amount=amount,
        withdrawal=charge.withdrawal,
    )
    await tx.charges.locate(charge.id, at, url=url, br_code=code)
    return dataclasses.replace(
        charge,
        loc_id=at.id,
        location_id=at.token,
        location=url,
        br_code=code,
        loc_created_at=None if at.created_at == charge.created_at else at.created_at,
    )


async def _add_cob(  # noqa: PLR0917 - one charge's parts
    tx: UnitOfWork, account_id: int, txid: str, request: ChargeRequest, now: datetime, location_prefix: str
) -> Charge:
    """A new ATIVA ``cob`` of ``request`` in the unit of work (``PUT /cob`` of either face)."""
    return await add_charge(
        tx,
        account_id=account_id,
        txid=txid,
        kind=ChargeKind.COB,
        now=now,
        expiration=request.expiration,
        amount=request.amount,
        modality=request.modality,
        parts=request,
        location_prefix=location_prefix,
    )


async def create_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str | None,
    request: ChargeRequest,
    location_prefix: str,
) -> Charge:
    """``PUT /cob/{txid}``: a new ATIVA charge. ``location_prefix`` is ``{host}/qr/v2/``.
    ``txid`` None (``POST /cob``): the service chooses one, 32 letters and digits."""
    txid = new_txid() if txid is None else validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        charge = await _add_cob(tx, account_id, txid, request, now, location_prefix)
        await tx.commit()
    return charge


async def put_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str,
    request: ChargeRequest,
    location_prefix: str,
) -> Charge:
    """The standard's ``PUT /cob/{txid}``: a new ATIVA charge, as :func:`create_charge`; or, when
    the account has an immediate charge under ``txid``, its revision to ``request`` (``revisao``
    one more). A ``PUT`` states the whole charge: a part the request leaves out (the debtor, the
    payer's message, the extra items) is removed; its key and location stay unless it names
    others. ``InvalidTransition`` when that charge is not ATIVA (or is a cash-in); a txid of a
    ``cobv`` is ``DuplicateCharge``, as on creation."""
    txid = validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        existing = await tx.charges.lock(account_id, txid)
        if existing is None or existing.kind is ChargeKind.COBV:
            charge = await _add_cob(tx, account_id, txid, request, now, location_prefix)
        else:
            if existing.kind is ChargeKind.CASH_IN:
                raise InvalidTransition("a cash-in cannot be revised, only cancelled")
            charge = await revise_locked(
                tx,
                existing,
                now,
                parts=request,
                amount=request.amount,
                location_prefix=location_prefix,
                fields=lambda moved: dataclasses.replace(
                    moved, expiration=request.expiration, amount=request.amount, modality=request.modality
                ),
            )
        await tx.commit()
    return charge


async def create_cash_in(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    request: CashInRequest,
    location_prefix: str,
) -> Charge:
    """``POST /api/pix/cash-in``: a charge with a generated txid and a PENDING PAYMENT record."""
    now = clock.now()
    async with uow() as tx:
        account = await load_account(tx, account_id)
        key = await receiving_key(tx, account_id, None)
        transaction_id = await tx.transactions.add(
            NewTransaction(
                account_id=account_id,
                type=TransactionType.PAYMENT,
                status=TransactionStatus.PENDING,
                amount=request.amount,
                created_at=now,
                external_id=request.external_id,
                pix_key=key,
                description=request.description,
            )
        )
        new = build_charge(
            account,
            txid=new_txid(),
            kind=ChargeKind.CASH_IN,
            now=now,
            expiration=request.expiration,
            amount=request.amount,
            modality=0,
            pix_key=key,
            location_prefix=location_prefix,
            kept=KeptParticulars(payer_request=request.description, info=request.additional_info),
            external_id=request.external_id,
            correlation_id=uuid.uuid4(),
            transaction_id=transaction_id,
        )
        charge = await tx.charges.add(new)
        await tx.commit()
    return charge


async def get_charge(uow: UnitOfWorkFactory, *, account_id: int, txid: str) -> Charge:
    validate_txid(txid)
    async with uow() as tx:
        charge = await tx.charges.get(account_id, txid)
    if charge is None:
        raise ChargeNotFound()
    return charge


async def list_charges(uow: UnitOfWorkFactory, *, account_id: int, limit: int = 50) -> list[ChargeLine]:
    """The lines of the account's newest charges and cash-ins, newest first (the console's list)."""
    async with uow() as tx:
        return await tx.charges.recent(account_id, limit)


@dataclass(frozen=True, slots=True)
class ReceivedPix:
    """A PIX the account received (the standard's ``pix`` item), with its refunds to the payer;
    ``tx_id`` is the charge it paid, if any."""

    end_to_end_id: str
    tx_id: str | None
    amount: int
    """What was credited: a charge whose amount the payer may change is paid what the payer chose."""
    received_at: datetime
    refunds: tuple[Refund, ...]
    pix_key: str | None = None
    amount_parts: DueAmount | None = None
    """What a ``cobv``'s payment was made of, as kept when it settled (:attr:`components`)."""

    @property
    def components(self) -> DueAmount:
        """What its amount is made of (the standard's ``componentesValor``): a ``cobv``'s parts,
        else the whole amount as its original (a ``cob``'s or a key's payment)."""
        return whole_amount(self.amount) if self.amount_parts is None else self.amount_parts


def _received(receipt: Original, refunds: tuple[Refund, ...]) -> ReceivedPix:
    return ReceivedPix(
        end_to_end_id=receipt.end_to_end_id,
        tx_id=receipt.tx_id,
        amount=receipt.amount,
        received_at=receipt.received_at,
        refunds=refunds,
        pix_key=receipt.pix_key,
        amount_parts=receipt.amount_parts,
    )


@dataclass(frozen=True, slots=True)
class ReceivedListing:
    """A page of ``GET /pix``: ``total`` matches in all."""

    total: int
    pix: tuple[ReceivedPix, ...]


async def search_received(
    uow: UnitOfWorkFactory, *, account_id: int, query: ReceivedQuery
) -> ReceivedListing:
    """``GET /pix``: the account's received PIX in the window, each with its refunds."""
    async with uow() as tx:
        total, receipts = await tx.refunds.search_received(account_id, query)
        refunds = await tx.refunds.list_sent_of([r.transaction_id for r in receipts]) if receipts else []
    by_receipt: dict[int, list[Refund]] = {}
    for refund in refunds:
        by_receipt.setdefault(refund.original_transaction_id, []).append(refund)
    pix = tuple(_received(r, tuple(by_receipt.get(r.transaction_id, ()))) for r in receipts)
    return ReceivedListing(total, pix)


async def read_received(uow: UnitOfWorkFactory, *, account_id: int, end_to_end_id: str) -> ReceivedPix:
    """``GET /pix/{e2eid}``: a PIX the account received, with its refunds; another account's is
    not found."""
    validate_e2eid_path(end_to_end_id)
    async with uow() as tx:
        receipt = await tx.refunds.find_received(account_id, end_to_end_id)
        if receipt is None:
            raise TransactionNotFound("No PIX received with this end-to-end id.")
        refunds = await tx.refunds.list_sent(receipt.transaction_id)
    return _received(receipt, tuple(refunds))


@dataclass(frozen=True, slots=True)
class ChargeListing:
    """A page of ``GET /cob``: ``total`` matches in all, each charge with the status read at ``now``."""

    total: int
    charges: tuple[Charge, ...]
    now: datetime


async def search_charges(
    uow: UnitOfWorkFactory, clock: Clock, *, account_id: int, query: ChargeQuery, due: bool = False
) -> ChargeListing:
    """``GET /cob``: the account's charges created in the window (``due``: ``GET /cobv``, its
    due-date charges)."""
    now = clock.now()
    if query.other_status is not None:  # a status no charge has: nothing to look up
        return ChargeListing(0, (), now)
    async with uow() as tx:
        total, charges = await tx.charges.search(account_id, query, now, due=due)
    return ChargeListing(total, tuple(charges), now)


@dataclass(frozen=True, slots=True)
class ChargeView:
    """A charge as ``GET /cob/{txid}`` shows it: a CONCLUIDA one with the PIX that paid it."""

    charge: Charge
    pix: tuple[ReceivedPix, ...]
    past: bool = False
    """A revision before the charge's current one (``?revisao=``): history, shown as written."""

    def status_at(self, now: datetime) -> ChargeStatus:
        """The status a reader sees: the current revision's at ``now`` (an expired charge reads
        REMOVIDA_PELO_PSP), a past revision's as it was written."""
        return self.charge.status if self.past else self.charge.status_at(now)


async def read_charge(
    uow: UnitOfWorkFactory,
    *,
    account_id: int,
    txid: str,
    kinds: frozenset[ChargeKind] = IMMEDIATE_KINDS,
    revision: int | None = None,
) -> ChargeView:
    """The charge and, once paid, its receipt and that receipt's refunds, read in one unit;
    ``kinds``: those the route shows (``/cobv``: :data:`DUE_KINDS`). ``revision`` (the standard's
    ``revisao``): the charge as it was at that revision; its current one is the charge as it is
    now (a payment or an expiry is no revision); a revision it never had, or one not kept, is an
    ``InvalidQuery`` naming ``revisao``."""
    validate_txid(txid)
    async with uow() as tx:
        charge = _of_kind(await tx.charges.get(account_id, txid), kinds)
        if revision is not None and revision != charge.revision:
            return ChargeView(await _past_revision(tx, charge, revision), (), past=True)
        receipt = None
        if charge.status is ChargeStatus.CONCLUIDA and charge.transaction_id is not None:
            receipt = await tx.refunds.original_of(charge.transaction_id)
        if receipt is None:
            return ChargeView(charge, ())
        refunds = await tx.refunds.list_sent(receipt.transaction_id)
    paid = ReceivedPix(
        end_to_end_id=receipt.end_to_end_id,
        tx_id=charge.txid,
        amount=receipt.amount,
        received_at=charge.paid_at or receipt.received_at,
        refunds=tuple(refunds),
        pix_key=receipt.pix_key,
        amount_parts=charge.paid_parts,
    )
    return ChargeView(charge, (paid,))


_INVALID_QUERY = "Invalid query parameters: {}."


async def _past_revision(tx: UnitOfWork, charge: Charge, revision: int) -> Charge:
    if not 0 <= revision < charge.revision:
        reason = f"the charge has no revision {revision} (its revisions are 0 to {charge.revision})"
        raise UnknownRevision(problems=[Problem.of(QueryField.REVISION, reason)], summary=_INVALID_QUERY)
    kept = await tx.charges.revision(charge.id, revision)
    if kept is None:
        reason = f"revision {revision} of the charge was not kept (made before revisions were kept)"
        raise UnknownRevision(problems=[Problem.of(QueryField.REVISION, reason)], summary=_INVALID_QUERY)
    return kept


async def get_charge_by_location(
    uow: UnitOfWorkFactory, location_id: str, kinds: frozenset[ChargeKind] = IMMEDIATE_KINDS
) -> Charge:
    async with uow() as tx:
        charge = await tx.charges.get_by_location(location_id)
    return _of_kind(charge, kinds)


async def cancel_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str,
    kinds: frozenset[ChargeKind] = IMMEDIATE_KINDS,
) -> Charge:
    """``PATCH /cob/{txid}`` with status REMOVIDA_PELO_USUARIO_RECEBEDOR: only an ATIVA charge
    (of ``kinds``)."""
    validate_txid(txid)
    now = clock.now()
    async with uow() as tx:
        charge = _of_kind(await tx.charges.lock(account_id, txid), kinds)
        cancelled = await cancel_locked(tx, charge, now)
        await tx.commit()
    return cancelled


async def cancel_locked(tx: UnitOfWork, charge: Charge, now: datetime) -> Charge:
    """Inside a unit of work: the locked charge cancelled (only an ATIVA one), its revision one more."""
    status = ChargeLifecycle(charge.status_at(now)).cancel()
    await tx.charges.update(charge.id, status=status, revision=charge.revision + 1, at=now)
    await _settle_cash_in_record(tx, charge, now)
    return dataclasses.replace(charge, status=status, revision=charge.revision + 1, updated_at=now)


async def revise_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    account_id: int,
    txid: str,
    fields: ChargeRevisionFields,
    location_prefix: str,
    found_first: bool = False,
) -> Charge | ChargeView:
    """``PATCH /cob/{txid}``: cancel an ATIVA charge, or revise its fields (its ``revisao`` grows
    by one; the BR Code is made again for the new amount, at the same location, so the payload
    there shows the revision; ``loc.id`` moves it to another location of the account, under
    ``location_prefix``). A cash-in is only cancelled: its PENDING record holds its amount.
    ``found_first``: the standard's order, :func:`read_before_revising` (the charge as it is, a
    :class:`ChargeView`, for a body that changes nothing)."""
    if found_first:
        view = await read_before_revising(
            uow, fields, account_id=account_id, txid=txid, kinds=IMMEDIATE_KINDS
        )
        if view is not None:
            return view
    validate_txid(txid)
    fields.cancels()  # its status rules first, as before any charge is looked up
    now = clock.now()
    async with uow() as tx:
        charge = _of_kind(await tx.charges.lock(account_id, txid), IMMEDIATE_KINDS)
        revision = ChargeRevision.parse(fields, charge)
        if revision.cancel:
            cancelled = await cancel_locked(tx, charge, now)
            await tx.commit()
            return cancelled
        revisable(charge, now)
        if charge.kind is ChargeKind.CASH_IN:
            raise InvalidTransition("a cash-in cannot be revised, only cancelled")
        revised = await revise_locked(
            tx,
            charge,
            now,
            parts=revision,
            amount=revision.amount,
            location_prefix=location_prefix,
            fields=lambda moved: dataclasses.replace(
                moved, expiration=revision.expiration, amount=revision.amount, modality=revision.modality
            ),
        )
        await tx.commit()
    return revised


async def read_before_revising(
    uow: UnitOfWorkFactory,
    fields: RevisionFields[Any, Any],
    *,
    account_id: int,
    txid: str,
    kinds: frozenset[ChargeKind],
) -> ChargeView | None:
    """The standard's order for a ``PATCH``: the charge is read before its body is judged, so no
    charge is ``ChargeNotFound`` whatever the body; a body that changes nothing (``{}``, which the
    standard allows) answers the charge as it is. None: the revision goes on."""
    view = await read_charge(uow, account_id=account_id, txid=txid, kinds=kinds)
    return view if fields.changes_nothing else None


def revisable(charge: Charge, now: datetime) -> None:
    """``InvalidTransition`` unless ``charge`` is ATIVA at ``now`` (expired is REMOVIDA_PELO_PSP)."""
    status = charge.status_at(now)
    if status is not ChargeStatus.ATIVA:
        raise InvalidTransition(f"a {status.value} charge cannot be revised")


async def revise_locked(
    tx: UnitOfWork,
    charge: Charge,
    now: datetime,
    *,
    parts: Particulars,
    amount: int,
    location_prefix: str,
    fields: Callable[[Charge], Charge],
) -> Charge:
    """Revise ``charge``, locked by the unit of work and ATIVA at ``now`` (``PATCH /cob`` and
    ``PATCH /cobv``) to the revision's ``parts``: on their key (the account's; None keeps it), at
    their location ``loc_id`` (moved first, so that the revision kept has its new code), with
    the parts a charge keeps (``parts.kept()``), the BR Code made again for ``amount`` (0: none in the code),
    ``fields`` giving the kind's own changes, its revision grown by one. The caller commits."""
    revisable(charge, now)
    account = await load_account(tx, charge.account_id)
    key = parts.key
    pix_key = charge.pix_key if key is None else await receiving_key(tx, charge.account_id, key)
    moved = await relocate(tx, charge, parts.loc_id, location_prefix=location_prefix, amount=amount)
    code = dynamic_code(
        location=moved.location,
        merchant_name=account.name,
        merchant_city=account.city,
        amount=amount,
        withdrawal=parts.withdrawal,
    )
    revised = dataclasses.replace(
        fields(moved),
        **parts.kept(),
        pix_key=pix_key,
        br_code=code,
        revision=charge.revision + 1,
        updated_at=now,
    )
    await tx.charges.revise(revised)
    return revised


async def _settle_cash_in_record(tx: UnitOfWork, charge: Charge, now: datetime) -> None:
    """A cash-in that will never be paid: its PENDING record becomes ERROR."""
    if charge.kind is ChargeKind.CASH_IN and charge.transaction_id is not None:
        await tx.transactions.set_status(charge.transaction_id, TransactionStatus.ERROR, now)


async def expire_charges(uow: UnitOfWorkFactory, clock: Clock, *, limit: int = 500) -> int:
    """The sweep: persist REMOVIDA_PELO_PSP on ATIVA charges past their expiry. Returns how many."""
    now = clock.now()
    async with uow() as tx:
        expired = await tx.charges.lock_expired(now, limit)
        for charge in expired:
            status = ChargeLifecycle(charge.status).expire()
            await tx.charges.update(charge.id, status=status, revision=charge.revision, at=now)
            await _settle_cash_in_record(tx, charge, now)
        await tx.commit()
    return len(expired)


async def sweep_expired_charges(uow: UnitOfWorkFactory, clock: Clock, *, limit: int = 500) -> int:
    """The whole sweep: :func:`expire_charges` one transaction of ``limit`` at a time until a
    batch comes back short, so a backlog larger than one batch is cleared in one round (the
    oldest first). Returns how many it expired in all."""
    swept = 0
    while True:
        expired = await expire_charges(uow, clock, limit=limit)
        swept += expired
        if expired < limit:
            return swept


def payment_terms(
    charge: Charge | None,
    amount: int | None,
    now: datetime,
    *,
    only_for: int | None = None,
    kinds: frozenset[ChargeKind] | None = None,
) -> tuple[Charge, ChargeStatus, int, DueAmount | None]:
    """The rules a payment of the (locked) ``charge`` at ``now`` must pass, offering ``amount``:
    the charge, its status once paid, the amount credited and, for a ``cobv``, its parts (what the
    payment keeps: :attr:`Charge.paid_parts`). ``ChargeNotFound`` when there is no such charge, it
    is not ``only_for``'s or not one of ``kinds``; the lifecycle's refusal when it cannot be
    concluded; the amount's when ``amount`` is not what it takes."""
    if charge is None or (only_for is not None and charge.account_id != only_for):
        raise ChargeNotFound()
    if kinds is not None:
        _of_kind(charge, kinds)
    status = ChargeLifecycle(charge.status_at(now)).conclude()
    credited, parts = _payable(charge, amount, now)
    return charge, status, credited, parts


async def pay_charge(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    location_id: str,
    payer: Counterpart,
    amount: int | None = None,
    only_for: int | None = None,
    kinds: frozenset[ChargeKind] | None = None,
) -> ChargePayment:
    """An outside payer pays the charge at ``location_id``: CONCLUIDA, credited, recorded and
    notified in one unit of work. ``only_for``: the charge must be this account's; ``kinds``:
    one of these (a ``cobv``'s location names only a ``cobv``). A ``cobv`` is paid its amount due
    on the payer's day."""
    now = clock.now()
    e2e = new_end_to_end_id(payer.ispb, now)
    async with uow() as tx:
        charge, status, credited, parts = payment_terms(
            await tx.charges.lock_by_location(location_id), amount, now, only_for=only_for, kinds=kinds
        )
        transaction_id = await credit_receipt(
            tx,
            account_id=charge.account_id,
            amount=credited,
            payer=payer,
            end_to_end_id=e2e,
            at=now,
            pix_key=charge.pix_key,
            tx_id=charge.txid,
            description=charge.payer_request,
            pending_record=charge.transaction_id,  # a cash-in's PENDING record
            amount_parts=parts,
        )
        await tx.charges.update(
            charge.id,
            status=status,
            revision=charge.revision,
            at=now,
            transaction_id=transaction_id,
            paid_end_to_end_id=e2e,
            paid_parts=parts,
        )
        await tx.commit()
    paid = dataclasses.replace(
        charge,
        status=status,
        transaction_id=transaction_id,
        paid_end_to_end_id=e2e,
        paid_at=now,
        paid_parts=parts,
    )
    return ChargePayment(paid, transaction_id, e2e, credited)


class ChargePayer(Protocol):
    """What pays a charge as :func:`pay_charge` does (``ChargePaymentGroupCommit``)."""

    async def pay(
        self,
        *,
        location_id: str,
        payer: Counterpart,
        amount: int | None = None,
        only_for: int | None = None,
        kinds: frozenset[ChargeKind] | None = None,
    ) -> ChargePayment: ...


async def pay_code(
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    code: str,
    location_prefix: str,
    payer: Counterpart,
    amount: int | None = None,
    only_for: int | None = None,
    payments: ChargePayer | None = None,
) -> str:
    """An outside payer pays a BR Code ("Pix Copia e Cola"); returns the end-to-end id.

    A dynamic code pays the charge at its location, which must be one of this service's
    (``location_prefix``: another PSP's payload names no charge of ours), through ``payments``
    if given (``ChargePaymentGroupCommit``), else :func:`pay_charge`; a static code pays
    its key, with its own amount unless ``amount`` is given.
    """
    decoded = brcode.decode(code)
    if decoded.location is not None:
        if not decoded.location.startswith(location_prefix):
            raise ChargeNotFound("The code points at another PSP's payload, not at a charge of this service.")
        location_id = decoded.location.removeprefix(location_prefix)
        kinds = IMMEDIATE_KINDS
        if location_id.startswith(DUE_LOCATION):
            location_id, kinds = location_id.removeprefix(DUE_LOCATION), DUE_KINDS
        if payments is None:
            paid = await pay_charge(
                uow,
                clock,
                location_id=location_id,
                payer=payer,
                amount=amount,
                only_for=only_for,
                kinds=kinds,
            )
        else:
            paid = await payments.pay(
                location_id=location_id, payer=payer, amount=amount, only_for=only_for, kinds=kinds
            )
        return paid.end_to_end_id
    if decoded.key is None:
        raise InvalidBrCode("the code names neither a key nor a charge")
    paying = amount if amount is not None else decoded.amount
    if paying is None:
        raise InvalidAmount("the code leaves the amount to the payer: give one")
    receipt = await receive_payment(
        uow, clock, key=parse_pix_key(decoded.key), amount=paying, payer=payer, tx_id=None, only_for=only_for
    )
    return receipt.end_to_end_id
