"""The DICT's claims over mutual TLS (``pixnet.server.claims``) on the network's PostgreSQL
database: a key ported from A to B in the document's XML, every step signed by the participant
that takes it, the entry moved in the same transaction as the claim, and the document's refusals."""

from __future__ import annotations

import asyncio
import uuid

import httpx

from tests.integration.network.support import BANK_A, BANK_B, Network, answer, client, problem, signed
from tests.integration.network.test_dict_server import create_xml, lookup_headers
from tests.support import random_cpf


def claim_xml(key: str, cpf: str, type_: str = "PORTABILITY", participant: str = BANK_B) -> bytes:
    return f"""<CreateClaimRequest><Claim>
  <Type>{type_}</Type><Key>{key}</Key><KeyType>EMAIL</KeyType>
  <ClaimerAccount><Participant>{participant}</Participant><Branch>0001</Branch>
    <AccountNumber>777</AccountNumber><AccountType>CACC</AccountType>
    <OpeningDate>2025-03-01T12:00:00Z</OpeningDate></ClaimerAccount>
  <Claimer><Type>NATURAL_PERSON</Type><TaxIdNumber>{cpf}</TaxIdNumber><Name>Maria Silva</Name></Claimer>
</Claim></CreateClaimRequest>""".encode()


def step_xml(step: str, claim_id: str, participant: str, extra: str = "") -> bytes:
    tag = f"{step.capitalize()}ClaimRequest"
    parts = f"<ClaimId>{claim_id}</ClaimId><Participant>{participant}</Participant>{extra}"
    return f"<{tag}>{parts}</{tag}>".encode()


async def _registered(network: Network, a: httpx.AsyncClient, cpf: str) -> str:
    key = f"porta.{uuid.uuid4().hex[:8]}@example.com"
    created = await a.post("/api/v1/entries/", content=signed(network, BANK_A, create_xml(key, "EMAIL", cpf)))
    assert created.status_code == 201, created.text
    return key


async def _step(
    network: Network, who: httpx.AsyncClient, ispb: str, step: str, claim_id: str, *, extra: str = ""
) -> httpx.Response:
    body = signed(network, ispb, step_xml(step, claim_id, ispb, extra))
    return await who.post(f"/api/v1/claims/{claim_id}/{step}", content=body)


async def test_a_key_is_ported_from_a_to_b(network: Network) -> None:
    cpf = random_cpf()
    async with client(network, BANK_A) as a, client(network, BANK_B) as b:
        key = await _registered(network, a, cpf)
        opened = await b.post("/api/v1/claims/", content=signed(network, BANK_B, claim_xml(key, cpf)))
        assert opened.status_code == 201, opened.text
        claim = answer(network, opened).find("Claim")
        assert (claim.findtext("Status"), claim.findtext("DonorParticipant")) == ("OPEN", BANK_A)
        claim_id = claim.findtext("Id")

        listed = await a.get(
            "/api/v1/claims/", params={"Participant": BANK_A, "IsDonor": "true", "Limit": "200"}
        )
        assert listed.status_code == 200, listed.text
        assert claim_id in [found.findtext("Id") for found in answer(network, listed).findall("Claims/Claim")]

        acknowledged = await _step(network, a, BANK_A, "acknowledge", claim_id)
        assert answer(network, acknowledged).findtext("Claim/Status") == "WAITING_RESOLUTION"
        reason = "<Reason>USER_REQUESTED</Reason>"
        confirmed = await _step(network, a, BANK_A, "confirm", claim_id, extra=reason)
        assert answer(network, confirmed).findtext("Claim/Status") == "CONFIRMED"
        between = await b.get(f"/api/v1/entries/{key}", headers=lookup_headers(BANK_B))
        assert problem(network, between)[:2] == (404, "NotFound")  # gone from A, not yet at B

        request_id = f"<RequestId>{uuid.uuid4()}</RequestId>"
        completed = await _step(network, b, BANK_B, "complete", claim_id, extra=request_id)
        assert completed.status_code == 200, completed.text
        root = answer(network, completed)
        assert root.findtext("Claim/Status") == "COMPLETED"
        assert root.findtext("EntryCreationDate")
        assert root.findtext("KeyOwnershipDate")
        read = await a.get(f"/api/v1/entries/{key}", headers=lookup_headers(BANK_A))
        entry = answer(network, read).find("Entry")
        assert (entry.findtext("Account/Participant"), entry.findtext("Account/AccountNumber")) == (
            BANK_B,
            "777",
        )
        again = await _step(network, b, BANK_B, "complete", claim_id, extra=request_id)
        assert answer(network, again).findtext("Claim/Status") == "COMPLETED"  # idempotent


async def test_the_documents_refusals(network: Network) -> None:
    cpf = random_cpf()
    async with client(network, BANK_A) as a, client(network, BANK_B) as b:
        key = await _registered(network, a, cpf)
        for_a = await b.post(
            "/api/v1/claims/", content=signed(network, BANK_B, claim_xml(key, cpf, participant=BANK_A))
        )
        assert problem(network, for_a)[:2] == (403, "Forbidden")
        ownership = await b.post(
            "/api/v1/claims/", content=signed(network, BANK_B, claim_xml(key, cpf, "OWNERSHIP"))
        )
        assert problem(network, ownership)[:2] == (400, "ClaimTypeInconsistent")
        missing = await b.post(
            "/api/v1/claims/", content=signed(network, BANK_B, claim_xml("none@example.com", cpf))
        )
        assert problem(network, missing)[:2] == (400, "ClaimKeyNotFound")
        unsigned = await b.post("/api/v1/claims/", content=claim_xml(key, cpf))
        assert problem(network, unsigned)[:2] == (400, "RequestSignatureInvalid")

        opened = await b.post("/api/v1/claims/", content=signed(network, BANK_B, claim_xml(key, cpf)))
        claim_id = answer(network, opened).findtext("Claim/Id")
        second = await b.post("/api/v1/claims/", content=signed(network, BANK_B, claim_xml(key, cpf)))
        assert problem(network, second)[:2] == (400, "ClaimAlreadyExistsForKey")
        delete = (
            f"<DeleteEntryRequest><Key>{key}</Key><Participant>{BANK_A}</Participant>"
            "<Reason>USER_REQUESTED</Reason></DeleteEntryRequest>"
        )
        locked = await a.post(
            f"/api/v1/entries/{key}/delete", content=signed(network, BANK_A, delete.encode())
        )
        assert problem(network, locked)[:2] == (400, "EntryLockedByClaim")
        by_claimer = await _step(network, b, BANK_B, "acknowledge", claim_id)
        assert problem(network, by_claimer)[:2] == (403, "Forbidden")
        early = await _step(network, a, BANK_A, "confirm", claim_id, extra="<Reason>USER_REQUESTED</Reason>")
        assert problem(network, early)[:2] == (400, "ClaimOperationInvalid")
        other = signed(network, BANK_A, step_xml("acknowledge", str(uuid.uuid4()), BANK_A))
        bad_id = await a.post(f"/api/v1/claims/{claim_id}/acknowledge", content=other)
        assert problem(network, bad_id)[:2] == (400, "BadRequest")  # the document's ClaimId is not the path's
        unknown = await a.get(f"/api/v1/claims/{uuid.uuid4()}", headers={"PI-RequestingParticipant": BANK_A})
        assert problem(network, unknown)[:2] == (404, "NotFound")
        bad_filter = await a.get("/api/v1/claims/", params={"Participant": BANK_A, "Status": "LOST"})
        assert problem(network, bad_filter)[:2] == (400, "BadRequest")
        cancelled = await _step(
            network, b, BANK_B, "cancel", claim_id, extra="<Reason>USER_REQUESTED</Reason>"
        )
        assert answer(network, cancelled).findtext("Claim/CancelledBy") == "CLAIMER"
        read = await a.get(f"/api/v1/claims/{claim_id}", headers={"PI-RequestingParticipant": BANK_A})
        assert answer(network, read).findtext("Claim/Status") == "CANCELLED"


async def test_two_claims_of_one_key_at_once_open_one(network: Network) -> None:
    cpf = random_cpf()
    async with client(network, BANK_A) as a, client(network, BANK_B) as b:
        key = await _registered(network, a, cpf)
        body = signed(network, BANK_B, claim_xml(key, cpf))
        answers = await asyncio.gather(*(b.post("/api/v1/claims/", content=body) for _ in range(6)))
        assert sorted(r.status_code for r in answers) == [201, 400, 400, 400, 400, 400]
        refused = {problem(network, r)[1] for r in answers if r.status_code == 400}
        assert refused == {"ClaimAlreadyExistsForKey"}
