"""The MED between institutions at the DICT (``pixnet.server.med``) over mutual TLS: a payment the
SPI settled from A to B is reported as a fraud by A, acknowledged and closed (agreed) by B, asked
back by A, returned by B through the SPI and the request closed naming that return; the fraud
counted in the look-ups' counters; and the document's refusals."""

from __future__ import annotations

import uuid
from datetime import timedelta

import asyncpg
import httpx
import pytest

from pixwire.spi.model import Payment, Status
from tests.integration.network.spi import answer_of, funded, payment, report, returning, send
from tests.integration.network.support import BANK_A, BANK_B, Network, answer, client, problem, signed


@pytest.fixture(scope="module")
def payee_timeout() -> timedelta:
    return timedelta(minutes=10)


async def _settled(network: Network, books: asyncpg.Connection, cents: int, key: str) -> Payment:
    await funded(books, BANK_A, cents)
    paid = payment(cents, key=key)
    report(network, await send(network, BANK_A, paid))
    assert report(network, await send(network, BANK_B, answer_of(paid, Status.ACSP))).status is Status.ACSC
    return paid


def report_xml(e2e: str, participant: str = BANK_A, type_: str = "FRAUD") -> bytes:
    return (
        f"<CreateInfractionReportRequest><Participant>{participant}</Participant><InfractionReport>"
        f"<TransactionId>{e2e}</TransactionId><InfractionType>{type_}</InfractionType>"
        "<ReportDetails>the payer was deceived</ReportDetails>"
        "</InfractionReport></CreateInfractionReportRequest>"
    ).encode()


def step_xml(step: str, report_id: str, participant: str, extra: str = "") -> bytes:
    tag = f"{step.capitalize()}InfractionReportRequest"
    inner = (
        f"<InfractionReportId>{report_id}</InfractionReportId><Participant>{participant}</Participant>{extra}"
    )
    return f"<{tag}>{inner}</{tag}>".encode()


def refund_xml(e2e: str, amount: str, reason: str = "FRAUD", participant: str = BANK_A) -> bytes:
    return (
        f"<CreateRefundRequest><Participant>{participant}</Participant><Refund><TransactionId>{e2e}</TransactionId>"
        f"<RefundReason>{reason}</RefundReason><RefundAmount>{amount}</RefundAmount></Refund></CreateRefundRequest>"
    ).encode()


def close_xml(refund_id: str, result: str, extra: str = "") -> bytes:
    return (
        f"<CloseRefundRequest><RefundId>{refund_id}</RefundId><Participant>{BANK_B}</Participant>"
        f"<RefundAnalysisResult>{result}</RefundAnalysisResult>{extra}</CloseRefundRequest>"
    ).encode()


async def _post(
    network: Network, who: httpx.AsyncClient, ispb: str, path: str, body: bytes
) -> httpx.Response:
    return await who.post(path, content=signed(network, ispb, body))


async def test_a_fraud_reported_by_the_payer_is_agreed_and_its_money_asked_back_and_returned(
    network: Network, books: asyncpg.Connection
) -> None:
    key = f"golpe.{uuid.uuid4().hex[:8]}@example.com"
    paid = await _settled(network, books, 5_000, key)
    e2e = paid.end_to_end_id
    async with client(network, BANK_A) as a, client(network, BANK_B) as b:
        created = await _post(network, a, BANK_A, "/api/v1/infraction-reports/", report_xml(e2e))
        assert created.status_code == 201, created.text
        made = answer(network, created).find("InfractionReport")
        assert (made.findtext("Status"), made.findtext("ReportedBy")) == ("OPEN", "DEBITED_PARTICIPANT")
        assert (made.findtext("DebitedParticipant"), made.findtext("CreditedParticipant")) == (BANK_A, BANK_B)
        report_id = made.findtext("Id")
        reported = "SELECT count(*) FROM directory_events WHERE kind = $1 AND key = $2"
        assert await books.fetchval(reported, "REPORTED_FRAUDS", key) == 1

        listed = await b.get(
            "/api/v1/infraction-reports/",
            params={"Participant": BANK_B, "IsCredited": "true", "Status": "OPEN"},
        )
        ids = [
            found.findtext("Id")
            for found in answer(network, listed).findall("InfractionReports/InfractionReport")
        ]
        assert report_id in ids
        by_reporter = await _post(
            network,
            a,
            BANK_A,
            f"/api/v1/infraction-reports/{report_id}/acknowledge",
            step_xml("acknowledge", report_id, BANK_A),
        )
        assert problem(network, by_reporter)[:2] == (403, "Forbidden")
        acknowledged = await _post(
            network,
            b,
            BANK_B,
            f"/api/v1/infraction-reports/{report_id}/acknowledge",
            step_xml("acknowledge", report_id, BANK_B),
        )
        assert answer(network, acknowledged).findtext("InfractionReport/Status") == "ACKNOWLEDGED"
        agreed = "<AnalysisResult>AGREED</AnalysisResult><AnalysisDetails>confirmed</AnalysisDetails>"
        closed = await _post(
            network,
            b,
            BANK_B,
            f"/api/v1/infraction-reports/{report_id}/close",
            step_xml("close", report_id, BANK_B, agreed),
        )
        assert answer(network, closed).findtext("InfractionReport/AnalysisResult") == "AGREED"
        assert await books.fetchval(reported, "CONFIRMED_FRAUDS", key) == 1

        too_much = await _post(network, a, BANK_A, "/api/v1/refunds/", refund_xml(e2e, "50.01"))
        assert problem(network, too_much)[:2] == (400, "TransactionNotRefundable")
        by_payee = await _post(
            network, b, BANK_B, "/api/v1/refunds/", refund_xml(e2e, "10.00", participant=BANK_B)
        )
        assert problem(network, by_payee)[:2] == (403, "Forbidden")
        asked = await _post(network, a, BANK_A, "/api/v1/refunds/", refund_xml(e2e, "50.00"))
        assert asked.status_code == 201, asked.text
        refund = answer(network, asked).find("Refund")
        assert (refund.findtext("Status"), refund.findtext("InfractionReportId")) == ("OPEN", report_id)
        refund_id = refund.findtext("Id")
        again = await _post(network, a, BANK_A, "/api/v1/refunds/", refund_xml(e2e, "50.00"))
        assert problem(network, again)[:2] == (400, "RefundAlreadyBeingProcessedForTransaction")

        unsettled = f"<RefundTransactionId>D{BANK_B}{'0' * 23}</RefundTransactionId>"
        not_returned = await _post(
            network,
            b,
            BANK_B,
            f"/api/v1/refunds/{refund_id}/close",
            close_xml(refund_id, "TOTALLY_ACCEPTED", unsettled),
        )
        assert problem(network, not_returned)[:2] == (400, "RefundTransactionNotFound")
        returned = returning(paid, 5_000)
        assert report(network, await send(network, BANK_B, returned)).status is Status.ACSC
        naming = f"<RefundTransactionId>{returned.return_id}</RefundTransactionId>"
        closed_refund = await _post(
            network,
            b,
            BANK_B,
            f"/api/v1/refunds/{refund_id}/close",
            close_xml(refund_id, "TOTALLY_ACCEPTED", naming),
        )
        assert closed_refund.status_code == 200, closed_refund.text
        done = answer(network, closed_refund).find("Refund")
        assert (done.findtext("Status"), done.findtext("RefundTransactionId")) == (
            "CLOSED",
            returned.return_id,
        )
        read = await a.get(f"/api/v1/refunds/{refund_id}", headers={"PI-RequestingParticipant": BANK_A})
        assert answer(network, read).findtext("Refund/AnalysisResult") == "TOTALLY_ACCEPTED"
        as_requester = await a.get(
            "/api/v1/refunds/", params={"Participant": BANK_A, "ParticipantRole": "REQUESTING"}
        )
        assert refund_id in [
            r.findtext("Id") for r in answer(network, as_requester).findall("Refunds/Refund")
        ]


async def test_the_reports_refusals(network: Network, books: asyncpg.Connection) -> None:
    key = f"erro.{uuid.uuid4().hex[:8]}@example.com"
    paid = await _settled(network, books, 1_000, key)
    e2e = paid.end_to_end_id
    async with client(network, BANK_A) as a, client(network, BANK_B) as b:
        unknown = await _post(network, a, BANK_A, "/api/v1/infraction-reports/", report_xml("E" + "9" * 31))
        assert problem(network, unknown)[:2] == (400, "InfractionReportTransactionNotFound")
        pretending = await _post(network, a, BANK_A, "/api/v1/infraction-reports/", report_xml(e2e, BANK_B))
        assert problem(network, pretending)[:2] == (403, "Forbidden")
        unsigned = await a.post("/api/v1/infraction-reports/", content=report_xml(e2e))
        assert problem(network, unsigned)[:2] == (400, "RequestSignatureInvalid")
        created = await _post(network, b, BANK_B, "/api/v1/infraction-reports/", report_xml(e2e, BANK_B))
        made = answer(network, created).find("InfractionReport")
        assert made.findtext("ReportedBy") == "CREDITED_PARTICIPANT"
        report_id = made.findtext("Id")
        second = await _post(network, a, BANK_A, "/api/v1/infraction-reports/", report_xml(e2e))
        assert problem(network, second)[:2] == (400, "InfractionReportAlreadyBeingProcessedForTransaction")
        no_fraud_report = await _post(
            network, a, BANK_A, "/api/v1/refunds/", refund_xml(e2e, "1.00", "OPERATIONAL_FLAW")
        )
        assert no_fraud_report.status_code == 201, no_fraud_report.text  # an operational flaw needs no report

        cancelled = await _post(
            network,
            b,
            BANK_B,
            f"/api/v1/infraction-reports/{report_id}/cancel",
            step_xml("cancel", report_id, BANK_B),
        )
        assert answer(network, cancelled).findtext("InfractionReport/Status") == "CANCELLED"
        counted = "SELECT count(*) FROM directory_events WHERE kind = 'REPORTED_FRAUDS' AND key = $1"
        assert await books.fetchval(counted, key) == 0  # a cancelled report stops counting
        late = await _post(
            network,
            a,
            BANK_A,
            f"/api/v1/infraction-reports/{report_id}/close",
            step_xml("close", report_id, BANK_A, "<AnalysisResult>AGREED</AnalysisResult>"),
        )
        assert problem(network, late)[:2] == (400, "InfractionReportOperationInvalid")
        stranger = await a.get(
            f"/api/v1/infraction-reports/{uuid.uuid4()}", headers={"PI-RequestingParticipant": BANK_A}
        )
        assert problem(network, stranger)[:2] == (404, "NotFound")
        no_role = await a.get("/api/v1/refunds/", params={"Participant": BANK_A})
        assert problem(network, no_role)[:2] == (400, "BadRequest")


HOSTILE = [
    b"<CreateRefundRequest>\x00</CreateRefundRequest>",
    b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><CreateClaimRequest>&e;</CreateClaimRequest>',
    b"<a>" * 8_000 + b"</a>" * 8_000,
    b"<CreateInfractionReportRequest><InfractionReport/></CreateInfractionReportRequest>",
]
SOME_ID = "0b8d6f3e-1c1e-4a57-9f0e-5d1f2b3c4d5e"  # fixed: the parameters' ids are the same in every worker
WRITES = [
    "/api/v1/claims/",
    f"/api/v1/claims/{SOME_ID}/confirm",
    "/api/v1/infraction-reports/",
    f"/api/v1/infraction-reports/{SOME_ID}/close",
    "/api/v1/refunds/",
    f"/api/v1/refunds/{SOME_ID}/close",
]


@pytest.mark.parametrize("path", WRITES)
async def test_hostile_bodies_at_the_claims_and_the_med_are_refused_in_the_dicts_terms(
    network: Network, path: str
) -> None:
    async with client(network, BANK_A) as a:
        for body in HOSTILE:
            refused = await a.post(path, content=body)
            status, type_, _ = problem(network, refused)
            assert status == 400, (path, body[:40], type_)
            assert type_ in {"BadRequest", "RequestSignatureInvalid"}


@pytest.mark.parametrize(
    "params",
    [
        {"Participant": BANK_A, "Limit": "abc"},
        {"Participant": BANK_A, "Limit": "9" * 40},
        {"Participant": BANK_A, "Limit": "-1"},
        {"Participant": BANK_A, "Status": "OPEN\x00"},
        {"Participant": BANK_A, "ModifiedAfter": "yesterday"},
        {"Participant": BANK_A, "ModifiedAfter": "2026-11-29T10:00:00"},
        {"Participant": BANK_A, "IsDonor": "maybe", "IsDebited": "maybe"},
    ],
)
async def test_hostile_filters_of_the_lists_are_bad_requests(
    network: Network, params: dict[str, str]
) -> None:
    async with client(network, BANK_A) as a:
        for path in ("/api/v1/claims/", "/api/v1/infraction-reports/", "/api/v1/refunds/"):
            asked = params | ({"ParticipantRole": "REQUESTING"} if path.endswith("refunds/") else {})
            refused = await a.get(path, params=asked)
            assert problem(network, refused)[:2] == (400, "BadRequest"), (path, params)
