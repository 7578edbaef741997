"""The console's refund and cash-in pages over HTTP: the same use cases as
``PUT/GET /pix/{e2eid}/devolucao/{id}`` and ``POST /api/pix/cash-in``."""

from __future__ import annotations

import re

import httpx

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.support import Client, bearer, new_client

REFUND_ID = re.compile(r'name="refund_id" type="text" value="([^"]+)"')


async def received(http: httpx.AsyncClient, client: Client, amount: str = "50.00") -> str:
    """An outside payer pays the client (the sandbox); the receipt's end-to-end id."""
    auth = await bearer(http, client)
    paid = await http.post(
        "/sandbox/payments", json={"pixKey": client.opened.keys[0].value, "amount": amount}, headers=auth
    )
    assert paid.status_code == 201, paid.text
    e2e: str = paid.json()["endToEndId"]
    return e2e


async def test_a_refund_is_requested_and_its_status_shown_as_the_api_reads_it(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    e2e = await received(api.client, client)
    await sign_in(api.client, client)
    form = await api.client.get(f"/console/refunds?endToEndId={e2e}")
    assert f'value="{e2e}"' in form.text  # filled in from the transaction's page link
    refund_id = REFUND_ID.search(form.text)
    assert refund_id is not None
    data = {
        "csrf": csrf_of(form),
        "end_to_end_id": e2e,
        "amount": "20.00",
        "nature": "ORIGINAL",
        "description": "sorry",
        "refund_id": refund_id.group(1),
    }
    made = await api.client.post("/console/refunds", data=data)
    assert (made.status_code, made.headers["location"]) == (
        303,
        f"/console/refunds/{e2e}/{refund_id.group(1)}",
    )
    again = await api.client.post("/console/refunds", data=data)  # a double submit: the same refund
    assert again.headers["location"] == made.headers["location"]
    page = await api.client.get(made.headers["location"])
    assert page.status_code == 200
    assert 'id="refund-status">Pending<' in page.text  # EM_PROCESSAMENTO, in the console's words
    assert "R$20.00" in page.text
    read = await api.client.get(
        f"/pix/{e2e}/devolucao/{refund_id.group(1)}", headers=await bearer(api.client, client)
    )
    assert (read.status_code, read.json()["valor"], read.json()["status"]) == (
        200,
        "20.00",
        "EM_PROCESSAMENTO",
    )


async def test_a_refund_above_the_remainder_shows_the_message_beside_the_amount(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    e2e = await received(api.client, client, "5.00")
    await sign_in(api.client, client)
    form = await api.client.get("/console/refunds")
    refused = await api.client.post(
        "/console/refunds",
        data={
            "csrf": csrf_of(form),
            "end_to_end_id": e2e,
            "amount": "9.00",
            "nature": "ORIGINAL",
            "refund_id": "r1",
        },
    )
    assert refused.status_code == 400
    assert 'id="e-amount">valor: at most 5.00 remains refundable' in refused.text
    assert 'value="9.00"' in refused.text
    bad = await api.client.post(
        "/console/refunds",
        data={
            "csrf": csrf_of(form),
            "end_to_end_id": "short",
            "amount": "1.00",
            "nature": "ORIGINAL",
            "refund_id": "r1",
        },
    )
    assert bad.status_code == 400
    assert 'id="e-end_to_end_id">e2eid must be 32 alphanumeric characters' in bad.text


async def test_another_accounts_receipt_and_refund_are_not_found(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    owner, other = await new_client(pg_uow), await new_client(pg_uow)
    e2e = await received(api.client, owner)
    await sign_in(api.client, other)
    form = await api.client.get("/console/refunds")
    refused = await api.client.post(
        "/console/refunds",
        data={
            "csrf": csrf_of(form),
            "end_to_end_id": e2e,
            "amount": "1.00",
            "nature": "ORIGINAL",
            "refund_id": "r1",
        },
    )
    assert refused.status_code == 404
    assert 'id="e-end_to_end_id">No received PIX of your account has this endToEndId.' in refused.text
    assert (await api.client.get(f"/console/refunds/{e2e}/r1")).status_code == 404
    missing_csrf = await api.client.post("/console/refunds", data={"end_to_end_id": e2e, "amount": "1.00"})
    assert missing_csrf.status_code == 403


async def test_a_cash_in_shows_its_code_and_qr_image(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    form = await api.client.get("/console/cash-in")
    made = await api.client.post(
        "/console/cash-in",
        data={
            "csrf": csrf_of(form),
            "amount": "15.50",
            "description": "Order 7",
            "external_id": "order-7",
            "expiration": "600",
            "payer_name": "Ana Payer",
            "payer_document": "11144477735",
        },
    )
    assert made.status_code == 201, made.text
    assert 'id="cash-in-result"' in made.text
    assert "R$15.50" in made.text
    code = re.search(r'<textarea id="copy-code" readonly rows="5">([^<]+)</textarea>', made.text)
    assert code is not None
    assert code.group(1).startswith("000201")
    txid = re.search(r'src="/console/charges/([^/]+)/qr.png"', made.text)
    assert txid is not None
    image = await api.client.get(f"/console/charges/{txid.group(1)}/qr.png")
    assert (image.status_code, image.headers["content-type"], image.content[:4]) == (
        200,
        "image/png",
        b"\x89PNG",
    )
    listed = await api.client.get("/console/transactions?externalId=order-7")
    assert ">Pending</span>" in listed.text
    # The same external id again: the API's conflict, beside the form.
    again = await api.client.post(
        "/console/cash-in",
        data={
            "csrf": csrf_of(form),
            "amount": "1.00",
            "description": "x",
            "external_id": "order-7",
            "payer_name": "Ana Payer",
            "payer_document": "11144477735",
        },
    )
    assert again.status_code == 409


async def test_a_bad_cash_in_shows_each_message_beside_its_field(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    await sign_in(api.client, await new_client(pg_uow))
    form = await api.client.get("/console/cash-in")
    bad = {
        "csrf": csrf_of(form),
        "amount": "1.234",
        "description": "",
        "external_id": "e1",
        "expiration": "²",
        "payer_name": "Ana",
        "payer_document": "123",
    }
    refused = await api.client.post("/console/cash-in", data=bad)
    # An empty required field is said so beside it before the rules are asked; what was typed stays.
    assert refused.status_code == 400
    assert '<p class="error" id="m-description" data-missing>Required' in refused.text
    assert 'value="1.234"' in refused.text
    assert 'value="²"' in refused.text
    refused = await api.client.post("/console/cash-in", data=bad | {"description": "Order"})
    assert refused.status_code == 400
    assert 'id="e-amount">At most two decimals (centavos), as 42.90.<' in refused.text  # 1.234 in English
    assert 'id="e-expiration">transaction.expirationTime: must be 300 to 604800 seconds' in refused.text
    assert 'id="e-payer_document">payer.document: ' in refused.text
    assert 'value="1.234"' in refused.text
    huge = await api.client.post(
        "/console/cash-in",
        data=bad
        | {
            "amount": "1.00",
            "description": "Order",
            "payer_document": "11144477735",
            "expiration": "9" * 5000,
        },
    )
    assert huge.status_code == 400
    charge = await api.client.post(
        "/console/charges", data={"csrf": csrf_of(form), "amount": "1.00", "expiration": "9" * 5000}
    )
    assert charge.status_code == 400  # the charge form's seconds were read with int() before: a 500
