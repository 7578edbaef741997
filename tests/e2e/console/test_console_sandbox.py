"""The console's sandbox page over HTTP: directory keys with their behaviour, MED cases opened,
accepted and rejected, and the clock (its form for sandbox administrators only)."""

from __future__ import annotations

import re
import uuid

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.e2e.console.test_console_refunds import received
from tests.support import bearer, new_client

MED_CASE = re.compile(r"MED case (\d+) opened\.")


async def test_a_directory_key_is_added_and_a_transfer_to_it_follows_its_behaviour(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    await received(api.client, client, "30.00")
    await sign_in(api.client, client)
    page = await api.client.get("/console/sandbox")
    assert page.status_code == 200
    key = f"{uuid.uuid4()}"
    form = {
        "csrf": csrf_of(page),
        "pix_key": key,
        "behavior": "reject",
        "name": "Refusing Receiver",
        "document": "11144477735",
        "ispb": "12345678",
        "bank_name": "OTHER BANK",
        "branch": "0001",
        "account_number": "42",
    }
    auth = await bearer(api.client, client)
    unknown = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": 1.0, "currency": "BRL"}},
        headers=auth | {"X-Idempotency-Key": str(uuid.uuid4())},
    )
    assert unknown.status_code >= 400  # not in the directory yet
    added = await api.client.post("/console/sandbox/dict", data=form)
    assert added.status_code == 200
    assert f"The key {key} is in the directory: transfers to it reject." in added.text
    # The API's send finds it now.
    sent = await api.client.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": 1.0, "currency": "BRL"}},
        headers=auth | {"X-Idempotency-Key": str(uuid.uuid4())},
    )
    assert sent.status_code in (200, 201, 202), sent.text
    assert sent.json()["type"] == "PENDING"  # reject: the outside institution answers at settlement


async def test_a_bad_directory_key_shows_each_message_beside_its_field(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    await sign_in(api.client, await new_client(pg_uow))
    page = await api.client.get("/console/sandbox")
    refused = await api.client.post(
        "/console/sandbox/dict",
        data={
            "csrf": csrf_of(page),
            "pix_key": "not a key",
            "behavior": "explode",
            "name": "X",
            "document": "1",
            "ispb": "99999999",  # this service's own
            "branch": "1",
            "account_number": "1",
            "bank_name": "B",
        },
    )
    assert refused.status_code == 400
    assert 'id="e-pix_key">pixKey: ' in refused.text
    assert 'id="e-behavior">behavior: one of settle, reject' in refused.text
    assert 'id="e-branch">branch: 4 digits' in refused.text
    assert 'value="not a key"' in refused.text
    own = await api.client.post(
        "/console/sandbox/dict",
        data={
            "csrf": csrf_of(page),
            "pix_key": "someone@example.com",
            "behavior": "settle",
            "name": "X",
            "document": "11144477735",
            "ispb": api.settings.ispb,
            "branch": "0001",
            "account_number": "1",
            "bank_name": "B",
        },
    )
    assert own.status_code in (400, 422)
    assert f'id="e-ispb">ISPB {api.settings.ispb} is this service' in own.text


async def test_a_med_is_opened_then_accepted_or_rejected(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    first, second = await received(api.client, client, "10.00"), await received(api.client, client, "7.00")
    await sign_in(api.client, client)
    page = await api.client.get("/console/sandbox")
    opened = await api.client.post(
        "/console/sandbox/med", data={"csrf": csrf_of(page), "end_to_end_id": first, "reason": "MED_FRAUDE"}
    )
    assert opened.status_code == 201
    case = MED_CASE.search(opened.text)
    assert case is not None
    assert 'id="med-status">Open<' in opened.text
    assert "R$10.00" in opened.text
    balance = await api.client.get("/balance", headers=await bearer(api.client, client))
    assert balance.json()["blockedBalance"] == 10.0  # blocked until decided
    accepted = await api.client.post(
        f"/console/sandbox/med/{case.group(1)}/accept", data={"csrf": csrf_of(page)}
    )
    assert accepted.status_code == 200
    assert 'id="med-status">Accepted<' in accepted.text
    assert f'href="/console/refunds/{first}/' in accepted.text  # the refund it made
    twice = await api.client.post(
        "/console/sandbox/med", data={"csrf": csrf_of(page), "end_to_end_id": first, "reason": "MED_FRAUDE"}
    )
    assert twice.status_code == 400  # nothing of it is left to dispute: the use case's refusal
    assert "Invalid MED" in twice.text
    other = await api.client.post(
        "/console/sandbox/med",
        data={"csrf": csrf_of(page), "end_to_end_id": second, "reason": "MED_OPERACIONAL"},
    )
    other_case = MED_CASE.search(other.text)
    assert other_case is not None
    rejected = await api.client.post(
        f"/console/sandbox/med/{other_case.group(1)}/reject", data={"csrf": csrf_of(page)}
    )
    assert 'id="med-status">Rejected<' in rejected.text


async def test_another_accounts_receipt_and_med_case_are_not_found(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    owner, intruder = await new_client(pg_uow), await new_client(pg_uow)
    e2e = await received(api.client, owner)
    await sign_in(api.client, owner)
    page = await api.client.get("/console/sandbox")
    opened = await api.client.post(
        "/console/sandbox/med", data={"csrf": csrf_of(page), "end_to_end_id": e2e, "reason": "MED_FRAUDE"}
    )
    case = MED_CASE.search(opened.text)
    assert case is not None
    await api.client.post("/console/sign-out", data={"csrf": csrf_of(page)})
    await sign_in(api.client, intruder)
    page = await api.client.get("/console/sandbox")
    refused = await api.client.post(
        "/console/sandbox/med", data={"csrf": csrf_of(page), "end_to_end_id": e2e, "reason": "MED_FRAUDE"}
    )
    assert refused.status_code == 404
    assert 'id="e-end_to_end_id">No received PIX of your account has this endToEndId.' in refused.text
    for decision in ("accept", "reject"):
        answer = await api.client.post(
            f"/console/sandbox/med/{case.group(1)}/{decision}", data={"csrf": csrf_of(page)}
        )
        assert answer.status_code == 404, decision
    bad = await api.client.post(
        "/console/sandbox/med", data={"csrf": csrf_of(page), "end_to_end_id": "x", "reason": "MED_NONE"}
    )
    assert bad.status_code == 400
    missing_csrf = await api.client.post(f"/console/sandbox/med/{case.group(1)}/accept", data={})
    assert missing_csrf.status_code == 403


async def test_only_a_sandbox_admin_sees_and_uses_the_clock(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    plain = await new_client(pg_uow)
    await sign_in(api.client, plain)
    page = await api.client.get("/console/sandbox")
    assert 'id="clock-form"' not in page.text
    assert "Only a sandbox administrator" in page.text
    forged = await api.client.post(
        "/console/sandbox/clock", data={"csrf": csrf_of(page), "advance_seconds": "60"}
    )
    assert forged.status_code == 403
    api_answer = await api.client.post(
        "/sandbox/clock", json={"advanceSeconds": 60}, headers=await bearer(api.client, plain)
    )
    assert api_answer.status_code == 403  # the API answers the same
    await api.client.post("/console/sign-out", data={"csrf": csrf_of(page)})
    admin = await new_client(pg_uow, sandbox_admin=True)
    await sign_in(api.client, admin)
    page = await api.client.get("/console/sandbox")
    assert 'id="clock-form"' in page.text
    before = re.search(r'id="clock-now">([^<]+)<', page.text)
    assert before is not None
    bad = await api.client.post(
        "/console/sandbox/clock", data={"csrf": csrf_of(page), "advance_seconds": "soon"}
    )
    assert bad.status_code == 400
    assert 'id="e-advance_seconds">advanceSeconds: a whole number of seconds' in bad.text
    backwards = await api.client.post(
        "/console/sandbox/clock", data={"csrf": csrf_of(page), "advance_seconds": "-5"}
    )
    assert backwards.status_code == 400
    assert 'id="e-advance_seconds">The clock moves forward by 0 to' in backwards.text
    moved = await api.client.post(
        "/console/sandbox/clock", data={"csrf": csrf_of(page), "advance_seconds": "0"}
    )
    assert moved.status_code == 200
    assert "The clock moved: it is now" in moved.text
