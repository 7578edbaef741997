"""The DICT over mutual TLS (``pixnet.server``) on the network's PostgreSQL database: participants
known by their client certificates, signed writes and signed answers, the document's refusals."""

from __future__ import annotations

import asyncio
import logging
import ssl
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import httpx
import pytest
import trustme

from pixnet.store.schema import migrations
from tests.integration.network.support import (
    BANK_A,
    BANK_B,
    CA,
    Network,
    answer,
    client,
    issue,
    problem,
    signed,
)
from tests.support import random_cpf


def create_xml(
    key: str | None, key_type: str, cpf: str, *, participant: str = BANK_A, request_id: str = ""
) -> bytes:
    key_line = f"<Key>{key}</Key>" if key else ""
    return f"""<CreateEntryRequest>
  <Entry>{key_line}<KeyType>{key_type}</KeyType>
    <Account><Participant>{participant}</Participant><Branch>0001</Branch><AccountNumber>12345</AccountNumber>
      <AccountType>CACC</AccountType><OpeningDate>2024-01-10T03:00:00Z</OpeningDate></Account>
    <Owner><Type>NATURAL_PERSON</Type><TaxIdNumber>{cpf}</TaxIdNumber><Name>Maria Silva</Name></Owner>
  </Entry>
  <Reason>USER_REQUESTED</Reason><RequestId>{request_id or uuid.uuid4()}</RequestId>
</CreateEntryRequest>""".encode()


def lookup_headers(ispb: str) -> dict[str, str]:
    return {"PI-RequestingParticipant": ispb, "PI-PayerId": random_cpf(), "PI-EndToEndId": "E" + "1" * 31}


async def test_an_entry_is_created_read_by_another_participant_and_deleted_by_its_own(
    network: Network,
) -> None:
    email = f"maria.{uuid.uuid4().hex[:8]}@example.com"
    cpf = random_cpf()
    async with client(network, BANK_A) as a, client(network, BANK_B) as b:
        created = await a.post(
            "/api/v1/entries/", content=signed(network, BANK_A, create_xml(email, "EMAIL", cpf))
        )
        assert created.status_code == 201, created.text
        entry = answer(network, created).find("Entry")
        assert (entry.findtext("Key"), entry.findtext("Account/Participant")) == (email, BANK_A)

        read = await b.get(f"/api/v1/entries/{email}", headers=lookup_headers(BANK_B))
        assert read.status_code == 200, read.text
        root = answer(network, read)
        assert root.findtext("Entry/Owner/TaxIdNumber") == cpf
        counters = root.findall("Statistics/Counters/Counter")
        assert {(c.get("type"), c.get("by")) for c in counters} == {
            (t, by)
            for t in ("SETTLEMENTS", "REPORTED_FRAUDS", "CONFIRMED_FRAUDS", "REJECTED")
            for by in ("KEY", "OWNER", "ACCOUNT")
        }
        assert {c.get("d30") for c in counters} == {"0"}

        delete = (
            f"<DeleteEntryRequest><Key>{email}</Key><Participant>{{}}</Participant>"
            "<Reason>USER_REQUESTED</Reason></DeleteEntryRequest>"
        )
        refused = await b.post(
            f"/api/v1/entries/{email}/delete", content=signed(network, BANK_B, delete.format(BANK_B).encode())
        )
        assert problem(network, refused)[:2] == (403, "Forbidden")
        deleted = await a.post(
            f"/api/v1/entries/{email}/delete", content=signed(network, BANK_A, delete.format(BANK_A).encode())
        )
        assert deleted.status_code == 200, deleted.text
        assert answer(network, deleted).findtext("Key") == email
        gone = await b.get(f"/api/v1/entries/{email}", headers=lookup_headers(BANK_B))
        assert problem(network, gone)[:2] == (404, "NotFound")


async def test_the_counters_count_the_networks_events_and_settlements_are_quantized(network: Network) -> None:
    email = f"busy.{uuid.uuid4().hex[:8]}@example.com"
    cpf = random_cpf()
    async with client(network, BANK_A) as a:
        created = await a.post(
            "/api/v1/entries/", content=signed(network, BANK_A, create_xml(email, "EMAIL", cpf))
        )
        assert created.status_code == 201, created.text
        now = datetime.now(UTC)
        conn = await asyncpg.connect(network.database)
        try:
            events = [("SETTLEMENTS", now - timedelta(hours=1))] * 3 + [
                ("SETTLEMENTS", now - timedelta(days=10))
            ]
            events += [("REPORTED_FRAUDS", now - timedelta(days=2))] * 2
            await conn.executemany(
                "INSERT INTO directory_events (kind, key, tax_id, participant, branch, account_number, at)"
                " VALUES ($1, $2, $3, $4, '0001', '12345', $5)",
                [(kind, email, cpf, BANK_A, at) for kind, at in events],
            )
        finally:
            await conn.close()
        read = await a.get(f"/api/v1/entries/{email}", headers=lookup_headers(BANK_A))
        counters = {
            (c.get("type"), c.get("by")): c
            for c in answer(network, read).findall("Statistics/Counters/Counter")
        }
        settled = counters["SETTLEMENTS", "KEY"]
        assert (settled.get("d3"), settled.get("d30")) == ("5", "5")  # 3 and 4, rounded up to 5
        reported = counters["REPORTED_FRAUDS", "OWNER"]
        assert (reported.get("d3"), reported.get("d30")) == (
            "2",
            "2",
        )  # exact: only settlements are quantized


async def test_a_repeated_request_id_answers_the_same_evp_even_when_both_race(network: Network) -> None:
    body = signed(network, BANK_A, create_xml(None, "EVP", random_cpf(), request_id=str(uuid.uuid4())))
    async with client(network, BANK_A) as a:
        first, second = await asyncio.gather(
            a.post("/api/v1/entries/", content=body), a.post("/api/v1/entries/", content=body)
        )
    assert (first.status_code, second.status_code) == (201, 201), (first.text, second.text)
    keys = {answer(network, r).findtext("Entry/Key") for r in (first, second)}
    assert len(keys) == 1


async def test_a_participant_registers_keys_of_its_own_accounts_only(network: Network) -> None:
    body = create_xml(f"x.{uuid.uuid4().hex[:8]}@example.com", "EMAIL", random_cpf(), participant=BANK_A)
    async with client(network, BANK_B) as b:
        refused = await b.post("/api/v1/entries/", content=signed(network, BANK_B, body))
    assert problem(network, refused)[:2] == (403, "Forbidden")


async def test_a_write_signed_by_someone_else_is_refused_and_logged(
    network: Network, caplog: pytest.LogCaptureFixture
) -> None:
    body = create_xml(f"y.{uuid.uuid4().hex[:8]}@example.com", "EMAIL", random_cpf())
    async with client(network, BANK_A) as a:
        with caplog.at_level(logging.WARNING, logger="pixnet.server.common"):
            forged = await a.post("/api/v1/entries/", content=signed(network, BANK_B, body))
            unsigned = await a.post("/api/v1/entries/", content=body)
    assert problem(network, forged)[:2] == (400, "RequestSignatureInvalid")
    assert problem(network, unsigned)[:2] == (400, "RequestSignatureInvalid")
    refusals = [r for r in caplog.records if r.getMessage().startswith("request signature refused")]
    assert len(refusals) == 2
    assert {getattr(r, "participant", None) for r in refusals} == {BANK_A}


async def test_a_certificate_no_participant_registered_is_forbidden(network: Network) -> None:
    async with client(network, "stranger") as stranger:
        refused = await stranger.get("/api/v1/entries/someone@example.com", headers=lookup_headers(BANK_A))
    assert problem(network, refused)[:2] == (403, "Forbidden")


async def test_a_client_without_the_networks_certificate_is_refused_at_the_handshake(
    network: Network, tmp_path: Path
) -> None:
    other_ca = trustme.CA(key_type=trustme.KeyType.RSA)
    (tmp_path / "forger").mkdir()
    network.parties["forger"] = issue(other_ca, "11111111.participants.pix.example", tmp_path / "forger")
    # TLS 1.3: the client finishes its side of the handshake first, so the server's refusal of its
    # certificate arrives as the connection breaks on the first read.
    with pytest.raises((httpx.ConnectError, httpx.ReadError)):
        async with client(network, "forger") as forger:
            await forger.get("/api/v1/entries/someone@example.com", headers=lookup_headers(BANK_A))
    context = ssl.create_default_context()
    CA.configure_trust(context)
    async with httpx.AsyncClient(base_url=network.url, verify=context) as anonymous:
        with pytest.raises((httpx.ConnectError, httpx.ReadError)):
            await anonymous.get("/api/v1/entries/someone@example.com")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"<CreateEntryRequest>\x00</CreateEntryRequest>", "not well-formed"),
        (
            b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><CreateEntryRequest>&e;</CreateEntryRequest>',
            "document type",
        ),
        (b"<" + b"a><" * 40_000, "over"),
        (b"", "not well-formed"),
    ],
    ids=["nul", "external-entity", "huge", "empty"],
)
async def test_a_body_that_is_no_acceptable_xml_is_bad_request(
    network: Network, body: bytes, why: str
) -> None:
    async with client(network, BANK_A) as a:
        refused = await a.post("/api/v1/entries/", content=body)
    status, type_, detail = problem(network, refused)
    assert (status, type_) == (400, "BadRequest")
    assert why in detail


async def test_lookups_need_the_documents_headers_and_the_callers_own_ispb(network: Network) -> None:
    async with client(network, BANK_A) as a:
        bare = await a.get("/api/v1/entries/someone@example.com")
        as_other = await a.get("/api/v1/entries/someone@example.com", headers=lookup_headers(BANK_B))
        unknown_path = await a.get("/api/v1/nothing-here")
    assert problem(network, bare)[:2] == (400, "BadRequest")
    assert problem(network, as_other)[:2] == (403, "Forbidden")
    assert problem(network, unknown_path)[:2] == (404, "NotFound")


async def test_check_keys_says_which_keys_have_an_entry(network: Network) -> None:
    email = f"check.{uuid.uuid4().hex[:8]}@example.com"
    async with client(network, BANK_A) as a:
        created = await a.post(
            "/api/v1/entries/", content=signed(network, BANK_A, create_xml(email, "EMAIL", random_cpf()))
        )
        assert created.status_code == 201
        keys = f"<Key>{email}</Key><Key>nobody@example.com</Key><Key>not a key</Key>"
        asked = f"<CheckKeysRequest><Keys>{keys}</Keys></CheckKeysRequest>"
        checked = await a.post("/api-np/v1/keys/check", content=asked.encode())
        assert checked.status_code == 200, checked.text
        found = {k.text: k.get("hasEntry") for k in answer(network, checked).findall("Keys/Key")}
        assert found == {email: "true", "nobody@example.com": "false", "not a key": "false"}
        too_many = "<CheckKeysRequest><Keys>" + "<Key>a@b.co</Key>" * 201 + "</Keys></CheckKeysRequest>"
        refused = await a.post("/api-np/v1/keys/check", content=too_many.encode())
        assert problem(network, refused)[:2] == (400, "BadRequest")


def test_the_migrations_have_distinct_names() -> None:
    names = [name for name, _ in migrations()]
    assert len(names) == len(set(names))


async def test_look_ups_of_keys_that_are_not_there_empty_the_users_bucket(network: Network) -> None:
    """A natural person's anti-scan bucket holds 100 and a look-up that finds nothing takes 20: the
    sixth is refused (429, RateLimited), another user's is not; the policies say where each stands."""
    payer, other = random_cpf(), random_cpf()
    async with client(network, BANK_A) as a:
        headers = lookup_headers(BANK_A) | {"PI-PayerId": payer}
        answers = [
            (await a.get(f"/api/v1/entries/nobody.{n}@example.com", headers=headers)).status_code
            for n in range(6)
        ]
        assert answers == [404] * 5 + [429]
        refused = await a.get("/api/v1/entries/nobody@example.com", headers=headers)
        assert problem(network, refused)[:2] == (429, "RateLimited")
        another = await a.get("/api/v1/entries/nobody@example.com", headers=headers | {"PI-PayerId": other})
        assert another.status_code == 404

        listed = await a.get("/api/v1/policies/", headers={"PI-RequestingParticipant": BANK_A})
        root = answer(network, listed)
        assert root.findtext("Category") == "A"
        names = {p.findtext("Name"): p for p in root.findall("Policies/Policy")}
        assert set(names) == {
            "ENTRIES_READ_PARTICIPANT_ANTISCAN",
            "ENTRIES_WRITE",
            "KEYS_CHECK",
            "POLICIES_READ",
            "POLICIES_LIST",
            "CLAIMS_READ",
            "CLAIMS_WRITE",
            "CLAIMS_LIST_WITH_ROLE",
            "CLAIMS_LIST_WITHOUT_ROLE",
            "INFRACTION_REPORTS_READ",
            "INFRACTION_REPORTS_WRITE",
            "INFRACTION_REPORTS_LIST_WITH_ROLE",
            "INFRACTION_REPORTS_LIST_WITHOUT_ROLE",
            "REFUNDS_READ",
            "REFUNDS_WRITE",
            "REFUND_LIST_WITH_ROLE",
        }
        antiscan = names["ENTRIES_READ_PARTICIPANT_ANTISCAN"]  # category A: 12,000 a minute, 20,000 at most
        # (it refills 200 tokens a second: what it holds now is not a figure a test can pin)
        assert (antiscan.findtext("Capacity"), antiscan.findtext("RefillTokens")) == ("20000", "12000")
        assert antiscan.findtext("RefillPeriodSec") == "60"
        one = await a.get("/api/v1/policies/KEYS_CHECK", headers={"PI-RequestingParticipant": BANK_A})
        assert answer(network, one).findtext("Policy/Capacity") == "70"
        unknown = await a.get("/api/v1/policies/NOPE", headers={"PI-RequestingParticipant": BANK_A})
        assert problem(network, unknown)[:2] == (404, "NotFound")
        as_other = await a.get("/api/v1/policies/", headers={"PI-RequestingParticipant": BANK_B})
        assert problem(network, as_other)[:2] == (403, "Forbidden")
