"""Claims of PIX keys between institutions, as this service takes part in them.

A key moves between institutions by a claim in the network's DICT: its owner ports it to an
account at another institution (portability), or another person takes a phone or e-mail key
(ownership). The claimer's institution opens it; the donor's acknowledges it and confirms (gives
the key up: its entry leaves the DICT) or refuses it; the claimer's then completes it (the key's
entry is made for its account).

As donor, the service acknowledges the claims against its keys and answers them by its policy
(:class:`ClaimPolicy`: confirm, refuse, or leave them to an operator's command); confirming, it
removes the key from its account first (so that no payment of its own customers lands on an
account the key no longer names) and then confirms. As claimer, it opens a claim for one of its
accounts (an operator's command), and once the donor confirmed, adds the key to that account and
completes the claim. Every step is idempotent, at the DICT and here: a pass interrupted anywhere
is finished by the next.
"""

from __future__ import annotations

import enum
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pixcore.accounts.rules import Account
from pixcore.errors import AccountNotFound, DuplicatePixKey, InvalidPixKey, ValidationError
from pixcore.keys import PixKey, PixKeyType, parse_pix_key
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = [
    "ClaimKind",
    "ClaimPolicy",
    "ClaimState",
    "KeyClaim",
    "KeyClaims",
    "answer_claims",
    "claim_key",
    "complete_claims",
    "confirm_claim",
    "refuse_claim",
]

log = logging.getLogger(__name__)


class ClaimKind(enum.StrEnum):
    PORTABILITY = "PORTABILITY"
    OWNERSHIP = "OWNERSHIP"


class ClaimState(enum.StrEnum):
    OPEN = "OPEN"
    WAITING_RESOLUTION = "WAITING_RESOLUTION"
    CONFIRMED = "CONFIRMED"
    CANCELLED = "CANCELLED"
    COMPLETED = "COMPLETED"


class ClaimPolicy(enum.StrEnum):
    """How the service answers a claim against one of its keys (``PIX_NETWORK_CLAIMS``)."""

    CONFIRM = "confirm"
    """Give the key up at once (the sandbox's default: its users port keys freely)."""
    REFUSE = "refuse"
    """Cancel every claim (as the donor may, for a portability, as ``USER_REQUESTED``)."""
    OPERATOR = "operator"
    """Acknowledge it and wait for ``pixweb admin network claims confirm|refuse``."""


@dataclass(frozen=True, slots=True)
class KeyClaim:
    """A claim as this service sees it."""

    id: uuid.UUID
    kind: ClaimKind
    key: PixKey
    state: ClaimState
    donor: str
    """The ISPB of the institution that holds the key."""
    claimer: str
    """The ISPB of the claimer's institution."""
    claimer_branch: str | None
    claimer_account: str
    """The claimer's account number."""
    resolution_period_end: datetime
    last_modified: datetime


class KeyClaims(Protocol):
    """The network's DICT, for claims."""

    async def open(self, account: Account, key: PixKey, kind: ClaimKind) -> KeyClaim:
        """Open a claim of ``key`` for ``account``; ``ValidationError`` when the DICT refuses it
        (its reason in the message)."""
        ...

    async def as_donor(self) -> list[KeyClaim]:
        """The claims against this institution's keys still to be answered (OPEN or waiting)."""
        ...

    async def as_claimer(self) -> list[KeyClaim]:
        """This institution's claims the donor confirmed, still to be completed."""
        ...

    async def get(self, claim_id: uuid.UUID) -> KeyClaim | None: ...

    async def acknowledge(self, claim_id: uuid.UUID) -> KeyClaim: ...

    async def confirm(self, claim_id: uuid.UUID) -> KeyClaim: ...

    async def cancel(self, claim_id: uuid.UUID, *, as_donor: bool) -> KeyClaim: ...

    async def complete(self, claim_id: uuid.UUID) -> KeyClaim:
        """Complete it (idempotent: the same claim completed again answers the same)."""
        ...


async def claim_key(
    uow: UnitOfWorkFactory, claims: KeyClaims, *, account_id: int, key: str, kind: ClaimKind
) -> KeyClaim:
    """Open a claim of ``key`` (held at another institution) for one of our accounts."""
    parsed = parse_pix_key(key)
    if parsed.type is PixKeyType.EVP:
        raise InvalidPixKey("a random (EVP) key is never claimed: the DICT makes a new one instead")
    async with uow() as tx:
        account = await tx.accounts.get(account_id)
        held_by = await tx.keys.owner_of(parsed)
    if account is None:
        raise AccountNotFound(f"account {account_id} does not exist")
    if held_by is not None:
        raise DuplicatePixKey(f"the key {parsed.value} is held by account {held_by} of this institution")
    if parsed.type in {PixKeyType.CPF, PixKeyType.CNPJ} and parsed.value != account.document:
        raise ValidationError(
            "a CPF or CNPJ key is its holder's own document: it ports to the same holder only"
        )
    return await claims.open(account, parsed, kind)


async def _give_up(uow: UnitOfWorkFactory, claim: KeyClaim) -> None:
    """The key taken off the account that holds it here (if one still does)."""
    async with uow() as tx:
        holder = await tx.keys.owner_of(claim.key)
        if holder is not None:
            await tx.keys.remove(holder, claim.key)
            await tx.commit()
            log.info("the key %s leaves account %d for a claim", claim.key.value, holder)


async def confirm_claim(uow: UnitOfWorkFactory, claims: KeyClaims, claim_id: uuid.UUID) -> KeyClaim:
    """Give the key of a claim against us up: off its account here, then confirmed at the DICT."""
    claim = await claims.get(claim_id)
    if claim is None:
        raise ValidationError(f"no claim {claim_id} against this institution is known to the DICT")
    if claim.state is ClaimState.OPEN:
        claim = await claims.acknowledge(claim_id)
    await _give_up(uow, claim)
    return await claims.confirm(claim_id)


async def refuse_claim(claims: KeyClaims, claim_id: uuid.UUID) -> KeyClaim:
    """Refuse a claim against us (cancelled as its donor)."""
    claim = await claims.get(claim_id)
    if claim is None:
        raise ValidationError(f"no claim {claim_id} against this institution is known to the DICT")
    if claim.state is ClaimState.OPEN:
        await claims.acknowledge(claim_id)
    return await claims.cancel(claim_id, as_donor=True)


async def answer_claims(uow: UnitOfWorkFactory, claims: KeyClaims, policy: ClaimPolicy) -> int:
    """One pass as donor: every claim against our keys acknowledged, and answered by ``policy``;
    how many were acknowledged or answered."""
    done = 0
    for claim in await claims.as_donor():
        if policy is ClaimPolicy.CONFIRM:
            await confirm_claim(uow, claims, claim.id)
        elif policy is ClaimPolicy.REFUSE:
            await refuse_claim(claims, claim.id)
        elif claim.state is ClaimState.OPEN:
            await claims.acknowledge(claim.id)
        else:
            continue
        done += 1
    return done


async def complete_claims(uow: UnitOfWorkFactory, claims: KeyClaims, *, ispb: str) -> int:
    """One pass as claimer: each claim of ours the donor confirmed, its key added to the account
    it names, then completed at the DICT; how many."""
    done = 0
    for claim in await claims.as_claimer():
        account_id = int(claim.claimer_account) if claim.claimer_account.isdigit() else 0
        async with uow() as tx:
            account = await tx.accounts.get(account_id)
            if account is None or account.number != claim.claimer_account or account.ispb != ispb:
                log.error("claim %s names no account of ours (%s): left", claim.id, claim.claimer_account)
                continue
            holder = await tx.keys.owner_of(claim.key)
            if holder is None:
                await tx.keys.add(account.id, claim.key)
                await tx.commit()
            elif holder != account.id:
                log.error("claim %s: the key is held here by account %d already: left", claim.id, holder)
                continue
        await claims.complete(claim.id)
        done += 1
    return done
