"""Claims of keys (``KeyClaims``) when the service is a participant of a network: the network's
DICT (``createClaim``, ``listClaims``, ``getClaim`` and the steps), each write signed by this
institution; and the loop that answers the claims against our keys and completes ours
(``pixcore.network.claims``).

A refusal of the DICT when a claim is opened is a ``ValidationError`` naming its type and detail
(the operator's command prints it); any other refusal, or no answer, is ``NetworkUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from pixcore.accounts.rules import Account
from pixcore.keys import PixKey
from pixcore.network.claims import (
    ClaimKind,
    ClaimPolicy,
    ClaimState,
    KeyClaim,
    answer_claims,
    complete_claims,
)
from pixcore.network.ports import NetworkUnavailable
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.network.client import NetworkClient
from pixweb.network.registry import holder_of
from pixwire.dict.claim_documents import (
    ClaimStep,
    claim_step_request,
    create_claim_request,
    read_claim_response,
    read_claims_response,
)
from pixwire.dict.model import (
    AccountType,
    BrazilianAccount,
    Claim,
    ClaimAction,
    ClaimReason,
    ClaimStatus,
    ClaimType,
    DictProblem,
    ErrorType,
    NewClaim,
)

__all__ = ["CLAIMS_INTERVAL", "ClaimsLoop", "NetworkClaims"]

log = logging.getLogger(__name__)

CLAIMS_INTERVAL = 5.0
"""Seconds between two passes over the claims (two listings a pass: 24 a minute, within the
DICT's ``CLAIMS_LIST_WITH_ROLE`` policy of 40)."""
COMPLETION_IDS = uuid.UUID("8d3b7a52-53d5-4f63-9f3c-7f1d4b0c2a11")
"""The namespace of the RequestIds of completions: one per claim, the same on every try."""


def _seen(claim: Claim) -> KeyClaim:
    asked = claim.asked
    return KeyClaim(
        id=claim.id,
        kind=ClaimKind(asked.type.value),
        key=PixKey(asked.key_type, asked.key),
        state=ClaimState(claim.status.value),
        donor=claim.donor,
        claimer=asked.claimer_account.participant,
        claimer_branch=asked.claimer_account.branch,
        claimer_account=asked.claimer_account.number,
        resolution_period_end=claim.resolution_period_end,
        last_modified=claim.last_modified,
    )


class NetworkClaims:
    def __init__(self, client: NetworkClient, *, ispb: str) -> None:
        self._client = client
        self._ispb = ispb

    async def open(self, account: Account, key: PixKey, kind: ClaimKind) -> KeyClaim:
        asked = NewClaim(
            type=ClaimType(kind.value),
            key=key.value,
            key_type=key.type,
            claimer_account=BrazilianAccount(
                participant=account.ispb,
                branch=account.branch,
                number=account.number,
                type=AccountType.CACC,
                opened_at=account.created_at,
            ),
            claimer=holder_of(account),
        )
        root = await self._client.made("/api/v1/claims/", create_claim_request(asked))
        return _seen(read_claim_response(root))

    async def _listed(self, role: str, statuses: tuple[ClaimStatus, ...]) -> list[KeyClaim]:
        statuses_asked = ",".join(status.value for status in statuses)
        params = {"Participant": self._ispb, role: "true", "Status": statuses_asked, "Limit": "200"}
        root = await self._client.answer("GET", "/api/v1/claims/", params=params)
        claims, _ = read_claims_response(root)
        return [_seen(claim) for claim in claims]

    async def as_donor(self) -> list[KeyClaim]:
        return await self._listed("IsDonor", (ClaimStatus.OPEN, ClaimStatus.WAITING_RESOLUTION))

    async def as_claimer(self) -> list[KeyClaim]:
        return await self._listed("IsClaimer", (ClaimStatus.CONFIRMED,))

    async def get(self, claim_id: uuid.UUID) -> KeyClaim | None:
        headers = {"PI-RequestingParticipant": self._ispb}
        try:
            _, root = await self._client.call("GET", f"/api/v1/claims/{claim_id}", headers=headers)
        except DictProblem as problem:
            if problem.type is ErrorType.NOT_FOUND:
                return None
            raise NetworkUnavailable(f"the DICT did not answer a claim: {problem}") from problem
        return _seen(read_claim_response(root))

    async def _take(self, step: ClaimStep, action: ClaimAction) -> KeyClaim:
        body = self._client.signed(claim_step_request(step, action))
        root = await self._client.answer("POST", f"/api/v1/claims/{action.claim_id}/{step.value}", body=body)
        return _seen(read_claim_response(root))

    async def acknowledge(self, claim_id: uuid.UUID) -> KeyClaim:
        return await self._take(ClaimStep.ACKNOWLEDGE, ClaimAction(claim_id, self._ispb))

    async def confirm(self, claim_id: uuid.UUID) -> KeyClaim:
        action = ClaimAction(claim_id, self._ispb, ClaimReason.USER_REQUESTED)
        return await self._take(ClaimStep.CONFIRM, action)

    async def cancel(self, claim_id: uuid.UUID, *, as_donor: bool) -> KeyClaim:
        # The donor refuses a portability as its user's wish; an ownership claim it cancels
        # only for fraud (the document's table).
        claim = await self.get(claim_id)
        reason = ClaimReason.USER_REQUESTED
        if as_donor and claim is not None and claim.kind is ClaimKind.OWNERSHIP:
            reason = ClaimReason.FRAUD
        return await self._take(ClaimStep.CANCEL, ClaimAction(claim_id, self._ispb, reason))

    async def complete(self, claim_id: uuid.UUID) -> KeyClaim:
        request_id = uuid.uuid5(COMPLETION_IDS, str(claim_id))
        return await self._take(ClaimStep.COMPLETE, ClaimAction(claim_id, self._ispb, request_id=request_id))


class ClaimsLoop:
    """Every :data:`CLAIMS_INTERVAL` seconds: the claims against our keys answered by the policy,
    and ours the donors confirmed completed."""

    def __init__(
        self, claims: NetworkClaims, uow: UnitOfWorkFactory, *, ispb: str, policy: ClaimPolicy
    ) -> None:
        self._claims = claims
        self._uow = uow
        self._ispb = ispb
        self._policy = policy

    async def once(self) -> int:
        answered = await answer_claims(self._uow, self._claims, self._policy)
        return answered + await complete_claims(self._uow, self._claims, ispb=self._ispb)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.once()
            except NetworkUnavailable as exc:
                log.warning("the claims wait: %s", exc.reason)
            except Exception:  # logged; the next pass takes up what is still open
                log.exception("a pass over the claims failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), CLAIMS_INTERVAL)
