"""Object-level authorization (BOLA): an account never reaches another account's objects.

Account A owns one object of every kind (receipts, a refund, a charge, a cash-in, a settled
transfer, MED cases, a webhook and a delivery). Account B tries every route that takes an id
with A's ids. B must get exactly what it gets for ids that exist nowhere: a 404 with the same
body (nothing says "exists, but not yours": never a 403, never A's data); on lists, the same
empty list. A then makes the same calls and succeeds, which proves the ids were real.

The table of routes is checked against the app's own routes: a new route with a path
parameter fails ``test_every_route_with_a_path_parameter_is_in_the_table`` until it is added
here (or, if it is public by design, to ``PUBLIC``).
"""

from __future__ import annotations

import secrets
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from pixcore import brcode
from pixcore.identifiers import new_end_to_end_id
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.app import create_app
from tests.e2e.conftest import Api
from tests.security.conftest import Signed, assert_error, signed_in
from tests.support import add_external_key, fetch_rows, random_cpf

ALPHANUMERIC = string.ascii_letters + string.digits
PUBLIC_HOOK = "https://93.184.216.34/hook"  # a public IP literal: registration asks no DNS


def alphanumeric(length: int) -> str:
    return "".join(secrets.choice(ALPHANUMERIC) for _ in range(length))


@dataclass(frozen=True)
class Ids:
    """One account's objects, as the API names them."""

    key: str  # the account's first PIX key
    receipt: str  # e2e of a confirmed receipt (refundable), with a refund on it
    receipt_id: str  # its transaction id
    refund: str  # the refund's id on `receipt`
    txid: str  # an active charge
    due_txid: str  # an active due-date charge (cobv)
    batch: int  # a batch of due-date charges (lotecobv)
    batch_txid: str  # the active due-date charge it created
    code: str  # the charge's BR Code
    cash_in_id: str  # the cash-in's transaction id
    external_id: str  # the cash-in's externalId
    external_key: str  # a key of another bank, the transfer's receiver
    transfer_e2e: str  # a settled transfer to `external_key`
    transfer_id: str
    case_accept: int  # an open MED case (accepted by the owner at the end)
    case_reject: int  # another open MED case (rejected by the owner at the end)
    webhook: int
    delivery: int  # a failed delivery (replayable)
    location: int  # the charge's location (loc.id)
    free_location: int  # a location serving no charge
    rec_id: str  # an APROVADA recurrence (Pix Automático), at a location
    rec_location: int  # its location (/locrec)
    cobr_txid: str  # a CRIADA recurring charge of it
    request_id: str  # a CRIADA request (/solicrec) of another, CRIADA recurrence
    rec_account: str  # the account's number (a recurring charge's recebedor.conta)


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: dict[str, Any] | None = None
    owner: int = 200  # the owner's status for the same call (made last)
    expect: str = "hidden"  # "hidden": 404 as for nobody's ids; "empty": the empty list nobody gets;
    # "refused": the 400 nobody's id gets (a key that is not the caller's, in a body's place)


CANCEL = {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}
REC_PAYER = {"document": "11144477735", "ispb": "12345678"}


def _cobr(rec_id: str, account: str = "0") -> dict[str, Any]:
    """A recurring charge of ``rec_id``, due in 30 days (cancellable until then)."""
    due = (datetime.now(UTC) + timedelta(days=30)).date().isoformat()
    return {
        "idRec": rec_id,
        "calendario": {"dataDeVencimento": due},
        "valor": {"original": "35.00"},
        "recebedor": {"conta": account, "tipoConta": "CORRENTE"},
    }


REFUND = {"valor": "1.00"}
B_REFUND_ID = alphanumeric(20)  # a refund id B tries to create on A's receipt


ROUTES: dict[tuple[str, str], Callable[[Ids], list[Call]]] = {
    ("GET", "/cob/{txid:str}"): lambda i: [Call("GET", f"/cob/{i.txid}")],
    ("PATCH", "/cob/{txid:str}"): lambda i: [Call("PATCH", f"/cob/{i.txid}", CANCEL)],
    # PUT /cob/{txid}: txids are per account, so B's PUT creates B's own charge (checked apart);
    # naming A's location (loc.id) in it is the 400 of a location that exists nowhere.
    ("PUT", "/cob/{txid:str}"): lambda i: [
        Call(
            "PUT",
            f"/cob/{alphanumeric(30)}",
            {"calendario": {}, "valor": {"original": "1.00"}, "loc": {"id": i.free_location}},
            owner=201,
            expect="refused",
        )
    ],
    ("GET", "/pix/{e2eid:str}"): lambda i: [Call("GET", f"/pix/{i.receipt}")],  # the standard's received PIX
    ("GET", "/pix/{e2eid:str}/devolucao/{refund_id:str}"): lambda i: [
        Call("GET", f"/pix/{i.receipt}/devolucao/{i.refund}")
    ],
    ("PUT", "/pix/{e2eid:str}/devolucao/{refund_id:str}"): lambda i: [
        Call("PUT", f"/pix/{i.receipt}/devolucao/{i.refund}", REFUND),  # A's own refund, same body
        Call("PUT", f"/pix/{i.receipt}/devolucao/{B_REFUND_ID}", REFUND, owner=201),  # a new one
    ],
    ("GET", "/api/pix/transaction/{id:str}"): lambda i: [
        Call("GET", f"/api/pix/transaction/{i.cash_in_id}"),
        Call("GET", f"/api/pix/transaction/{i.external_id}"),
        Call("GET", f"/api/pix/transaction/{i.receipt_id}"),
        Call("GET", f"/api/pix/transaction/{i.transfer_id}"),
    ],
    ("GET", "/api/pix/transactions/pix-key/{pix_key:str}"): lambda i: [
        Call("GET", f"/api/pix/transactions/pix-key/{i.key}", expect="empty"),
        Call("GET", f"/api/pix/transactions/pix-key/{i.external_key}", expect="empty"),
    ],
    ("GET", "/api/pix/transactions/pix-key/{pix_key:str}/{identifier:str}"): lambda i: [
        Call("GET", f"/api/pix/transactions/pix-key/{i.key}/{i.receipt}"),
        Call("GET", f"/api/pix/transactions/pix-key/{i.key}/{i.receipt_id}"),
        Call("GET", f"/api/pix/transactions/pix-key/{i.external_key}/{i.transfer_e2e}"),
        Call("GET", f"/api/pix/transactions/pix-key/{i.external_key}/{i.transfer_id}"),
    ],
    ("POST", "/sandbox/med/{case_id:int}/accept"): lambda i: [
        Call("POST", f"/sandbox/med/{i.case_accept}/accept")
    ],
    ("POST", "/sandbox/med/{case_id:int}/reject"): lambda i: [
        Call("POST", f"/sandbox/med/{i.case_reject}/reject")
    ],
    # The replay comes before the deactivation: the owner cannot replay a deactivated one.
    ("POST", "/api/webhooks/deliveries/{delivery_id:int}/replay"): lambda i: [
        Call("POST", f"/api/webhooks/deliveries/{i.delivery}/replay")
    ],
    ("GET", "/api/webhooks/deliveries/{delivery_id:int}"): lambda i: [
        Call("GET", f"/api/webhooks/deliveries/{i.delivery}")
    ],
    # A test event to A's registration, asked by B: 404, and nothing is sent (A's own is a 200).
    ("POST", "/api/webhooks/{webhook_id:int}/test"): lambda i: [
        Call("POST", f"/api/webhooks/{i.webhook}/test")
    ],
    ("DELETE", "/api/webhooks/{webhook_id:int}"): lambda i: [Call("DELETE", f"/api/webhooks/{i.webhook}")],
    ("GET", "/cobv/{txid:str}"): lambda i: [Call("GET", f"/cobv/{i.due_txid}")],
    ("PATCH", "/cobv/{txid:str}"): lambda i: [Call("PATCH", f"/cobv/{i.due_txid}", CANCEL)],
    # PUT /cobv/{txid}: as PUT /cob, B's PUT creates B's own due-date charge.
    ("PUT", "/cobv/{txid:str}"): lambda _: [],
    ("GET", "/lotecobv/{batch_id:str}"): lambda i: [Call("GET", f"/lotecobv/{i.batch}")],
    ("PATCH", "/lotecobv/{batch_id:str}"): lambda i: [
        Call("PATCH", f"/lotecobv/{i.batch}", {"cobsv": [{"txid": i.batch_txid} | CANCEL]}, owner=202)
    ],
    # PUT /lotecobv/{id}: batch ids are per account, so B's PUT creates B's own batch
    # (tests/e2e/charges/test_lotecobv.py, test_a_batch_id_once_only_and_the_accounts_own).
    ("PUT", "/lotecobv/{batch_id:str}"): lambda _: [],
    # The standard's webhook of a key: B naming A's key is the 400 of a key that is not B's (as for
    # nobody's key); reading or deleting it is a 404. The owner's calls: read, set again, delete.
    ("GET", "/webhook/{chave:str}"): lambda i: [Call("GET", f"/webhook/{i.key}")],
    ("PUT", "/webhook/{chave:str}"): lambda i: [
        Call("PUT", f"/webhook/{i.key}", {"webhookUrl": PUBLIC_HOOK}, expect="refused")
    ],
    ("DELETE", "/webhook/{chave:str}"): lambda i: [Call("DELETE", f"/webhook/{i.key}", owner=204)],
    # The standard's locations: read, its BR Code, and (last, as the owner unlinks A's charge) unlink.
    ("GET", "/loc/{location_id:str}"): lambda i: [
        Call("GET", f"/loc/{i.location}"),
        Call("GET", f"/loc/{i.free_location}"),
    ],
    ("GET", "/loc/{location_id:str}/qrcode"): lambda i: [Call("GET", f"/loc/{i.location}/qrcode")],
    ("DELETE", "/loc/{location_id:str}/txid"): lambda i: [Call("DELETE", f"/loc/{i.location}/txid")],
    # Pix Automático (the standard's face only: STANDARD_ONLY). B naming A's recurrence in a new
    # recurring charge is the 404 of a recurrence that exists nowhere; B's PUT creates nothing.
    ("GET", "/rec/{id_rec:str}"): lambda i: [Call("GET", f"/rec/{i.rec_id}")],
    ("PATCH", "/rec/{id_rec:str}"): lambda i: [
        Call("PATCH", f"/rec/{i.rec_id}", {"vinculo": {"devedor": {"nome": "Outro Nome"}}})
    ],
    ("GET", "/solicrec/{id_solic_rec:str}"): lambda i: [Call("GET", f"/solicrec/{i.request_id}")],
    ("PATCH", "/solicrec/{id_solic_rec:str}"): lambda i: [
        Call("PATCH", f"/solicrec/{i.request_id}", {"status": "CANCELADA"}, owner=201)
    ],
    ("GET", "/cobr/{txid:str}"): lambda i: [Call("GET", f"/cobr/{i.cobr_txid}")],
    # PUT /cobr/{txid} naming A's recurrence is the 400 of an idRec that names no recurrence of
    # the caller's (the document gives the operation no 404), as for an idRec nobody has.
    ("PUT", "/cobr/{txid:str}"): lambda i: [
        Call("PUT", f"/cobr/{alphanumeric(30)}", _cobr(i.rec_id, i.rec_account), owner=400, expect="refused"),
    ],
    # The owner's retry of a charge that is not ATIVA is refused (400), B's is not found.
    ("POST", "/cobr/{txid:str}/retentativa/{data_:str}"): lambda i: [
        Call("POST", f"/cobr/{i.cobr_txid}/retentativa/2099-01-01", owner=400)
    ],
    ("PATCH", "/cobr/{txid:str}"): lambda i: [Call("PATCH", f"/cobr/{i.cobr_txid}", {"status": "CANCELADA"})],
    ("GET", "/locrec/{location_id:str}"): lambda i: [Call("GET", f"/locrec/{i.rec_location}")],
    # The payer's side in the sandbox acts on the caller's own recurrences only; the owner's
    # answer comes after the request's cancellation and its refusal after the approval (422).
    ("POST", "/sandbox/solicrec/{id_solic_rec:str}/answer"): lambda i: [
        Call("POST", f"/sandbox/solicrec/{i.request_id}/answer", {"accept": True}, owner=422)
    ],
    ("POST", "/sandbox/rec/{id_rec:str}/refuse"): lambda i: [
        Call("POST", f"/sandbox/rec/{i.rec_id}/refuse", owner=422)
    ],
    ("DELETE", "/locrec/{location_id:str}/idRec"): lambda i: [
        Call("DELETE", f"/locrec/{i.rec_location}/idRec")
    ],
    ("POST", "/sandbox/rec/{id_rec:str}/cancel"): lambda i: [
        Call("POST", f"/sandbox/rec/{i.rec_id}/cancel", {"payer": REC_PAYER})
    ],
}
STANDARD_ONLY = {
    route for route in ROUTES if route[1].startswith(("/rec/", "/solicrec/", "/cobr/", "/locrec/"))
}
"""Routes served on the standard's face only (Pix Automático): checked there."""

PUBLIC = {
    # The payload a charge's BR Code points at: payers of any bank fetch it, without a token.
    # Its id is 128 random bits, and it carries only what the BR Code shows.
    ("GET", "/qr/v2/{pix_url_access_token:str}"),
    ("GET", "/qr/v2/cobv/{pix_url_access_token:str}"),  # a due-date charge's payload, the same way
    ("GET", "/qr/v2/rec/{pix_url_access_token:str}"),  # a recurrence's payload, the same way
    # A payer's balance at their own bank: the sandbox's outside world, no account's object.
    ("GET", "/sandbox/payers/{ispb:str}/{document:str}"),
    ("PUT", "/sandbox/payers/{ispb:str}/{document:str}"),
    ("GET", "/schema/{path:str}"),  # the OpenAPI document
    ("GET", "/schema/assets/{file_path:path}"),  # the reference page's files (Swagger UI's release)
}


# The web console's routes with ids: signed in by a session cookie, not a bearer token, so their
# BOLA checks (each route, with another account's id: the same 404) are in tests/e2e/console/test_console.py,
# test_another_accounts_charge_is_not_found and test_hostile_input_gets_the_error_shape_never_a_500;
# test_another_accounts_* of tests/e2e/console/test_console_webhooks.py, test_console_refunds.py and
# test_console_sandbox.py for the second slice's pages.
CONSOLE = {
    ("POST", "/console/webhooks/{webhook_id:int}/deactivate"),
    ("POST", "/console/webhooks/{webhook_id:int}/test"),
    ("GET", "/console/webhooks/deliveries/{delivery_id:int}"),
    ("POST", "/console/webhooks/deliveries/{delivery_id:int}/replay"),
    ("GET", "/console/refunds/{e2eid:str}/{refund_id:str}"),
    ("POST", "/console/sandbox/med/{case_id:int}/{decision:str}"),
    ("GET", "/console/charges/{txid:str}"),
    ("GET", "/console/charges/{txid:str}/qr.png"),
    ("POST", "/console/charges/{txid:str}/cancel"),
    ("POST", "/console/charges/{txid:str}/pay"),
    ("GET", "/console/transactions/{identifier:str}"),
    ("GET", "/console/static/{file_path:path}"),  # the console's CSS and script: public files
    # A record page's changing part (tests/e2e/console/test_console_not_found.py and
    # test_console_live.py: another account's is the same 404).
    ("GET", "/console/transactions/{identifier:str}/live"),
    ("GET", "/console/charges/{txid:str}/live"),
    ("GET", "/console/refunds/{e2eid:str}/{refund_id:str}/live"),
    # A recurrence's page (tests/e2e/console/test_console_recurrences.py: another account's is the 404).
    ("GET", "/console/recurrences/{rec_id:str}"),
    # Any other console path: the console's "not found" page, whatever the path holds.
    *((method, "/console/{rest:path}") for method in ("GET", "POST", "PUT", "PATCH", "DELETE")),
}


def test_every_route_with_a_path_parameter_is_in_the_table(tmp_path: Any) -> None:
    app = create_app(Settings(data_dir=tmp_path, run_workers=False, sandbox=True))
    with_ids = {
        (method, route.path.removeprefix(STANDARD_PREFIX))  # the standard's face: the same checks
        for route in app.routes
        if route.path_parameters
        for method in route.methods
        if method not in {"OPTIONS", "HEAD"}
    }
    missing = with_ids - set(ROUTES) - PUBLIC - CONSOLE
    assert not missing, f"routes with ids that no BOLA check covers: {sorted(missing)}"
    stale = (set(ROUTES) | PUBLIC | CONSOLE) - with_ids
    assert not stale, f"the table names routes the app does not have: {sorted(stale)}"


# -- A's world --------------------------------------------------------------------------------------


async def _ok(response: httpx.Response, status: int = 201) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


async def _receive(http: httpx.AsyncClient, owner: Signed, reais: int) -> dict[str, Any]:
    payer = {"name": "Pagador Externo", "document": random_cpf(), "ispb": "12345678"}
    body = {"pixKey": owner.key, "amount": reais, "payer": payer}
    return await _ok(await http.post("/sandbox/payments", json=body, headers=owner.auth))


async def _transaction_id(http: httpx.AsyncClient, owner: Signed, e2e: str) -> str:
    listed = await _ok(
        await http.get("/api/transactions", params={"endToEndId": e2e}, headers=owner.auth), 200
    )
    (record,) = listed["data"]
    transaction_id: str = record["transactionId"]
    return transaction_id


async def build_world(pg_uow: UnitOfWorkFactory, api: Api, owner: Signed) -> Ids:
    http, auth = api.client, owner.auth
    receipt = (await _receive(http, owner, 300))["endToEndId"]
    receipt_id = await _transaction_id(http, owner, receipt)
    refund = alphanumeric(20)
    await _ok(await http.put(f"/pix/{receipt}/devolucao/{refund}", json=REFUND, headers=auth))
    cases = []
    for _ in range(2):
        disputed = (await _receive(http, owner, 10))["endToEndId"]
        med = {"endToEndId": disputed, "reason": "MED_FRAUDE"}
        cases.append((await _ok(await http.post("/sandbox/med", json=med, headers=auth)))["id"])
    txid = alphanumeric(30)
    cob = {"calendario": {"expiracao": 3600}, "valor": {"original": "10.00"}}
    charge = await _ok(await http.put(f"/cob/{txid}", json=cob, headers=auth))
    code = charge["pixCopiaECola"]
    free_location = (await _ok(await http.post("/loc", json={"tipoCob": "cob"}, headers=auth)))["id"]
    due_txid = alphanumeric(30)
    due = {
        "calendario": {"dataDeVencimento": (api.clock.now() + timedelta(days=30)).date().isoformat()},
        "devedor": {"cpf": random_cpf(), "nome": "Joao da Silva"},
        "valor": {"original": "10.00"},
    }
    await _ok(await http.put(f"/cobv/{due_txid}", json=due, headers=auth))
    batch, batch_txid = secrets.randbelow(2**31), alphanumeric(30)
    lot = {"descricao": "Lote", "cobsv": [due | {"txid": batch_txid}]}
    assert (await _ok(await http.put(f"/lotecobv/{batch}", json=lot, headers=auth), 202))["cobsv"][0][
        "status"
    ] == "CRIADA"
    await _ok(await http.put(f"/webhook/{owner.key}", json={"webhookUrl": PUBLIC_HOOK}, headers=auth), 200)
    external_id = str(uuid.uuid4())
    cash_in = {
        "transaction": {"value": 12.5, "description": "Pedido 1", "externalId": external_id},
        "payer": {"fullName": "Joao da Silva", "document": random_cpf()},
    }
    cash_in_id = (await _ok(await http.post("/api/pix/cash-in", json=cash_in, headers=auth)))["transactionId"]
    external_key, _ = await add_external_key(http, auth)
    sent = await _ok(
        await http.post(
            "/dict/pix",
            json={"pixKey": external_key, "payment": {"amount": 20}},
            headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
        )
    )
    api.clock.advance(api.settings.norm_delay_seconds)
    await settle_due(pg_uow, api.clock)
    hook = {"url": PUBLIC_HOOK, "eventType": "med_created"}
    await _ok(await http.post("/api/webhooks", json=hook, headers=auth), 200)
    webhook = (await _ok(await http.get("/api/webhooks", headers=auth), 200))["webhooks"][0]["id"]
    (row,) = await fetch_rows(
        api.settings.database_url or "",
        """
        WITH event AS (
            INSERT INTO outbox (account_id, event_type, webhook_type, payload, created_at, dispatched_at)
            VALUES ($1, 'MED', 'med_created', '{"type": "MED", "data": {"status": "CREATED"}}', now(), now())
            RETURNING id
        )
        INSERT INTO webhook_deliveries (message_id, outbox_id, webhook_id, account_id, status, attempts,
            next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, finished_at)
        SELECT 'msg_bola_' || event.id, event.id, $2, $1, 'failed', 8, NULL, now(), 500, 'HTTP 500',
            now(), now()
        FROM event RETURNING id
        """,
        owner.account_id,
        webhook,
    )
    return Ids(
        key=owner.key,
        receipt=receipt,
        receipt_id=receipt_id,
        refund=refund,
        txid=txid,
        due_txid=due_txid,
        batch=batch,
        batch_txid=batch_txid,
        code=code,
        cash_in_id=cash_in_id,
        external_id=external_id,
        external_key=external_key,
        transfer_e2e=sent["endToEndId"],
        transfer_id=str(sent["id"]),
        case_accept=cases[0],
        case_reject=cases[1],
        webhook=webhook,
        delivery=row["id"],
        location=charge["loc"]["id"],
        free_location=free_location,
        **await _recurrences(api, owner),
    )


async def _recurrences(api: Api, owner: Signed) -> dict[str, Any]:
    """A's Pix Automático: an APROVADA recurrence at a location with a recurring charge, and a
    request of another recurrence."""
    http, auth, std = api.client, owner.auth, STANDARD_PREFIX
    loc = await _ok(await http.post(f"{std}/locrec", headers=auth))
    today = (datetime.now(UTC) - timedelta(hours=3)).date().isoformat()
    rec_body = {
        "vinculo": {"contrato": "1", "devedor": {"cpf": REC_PAYER["document"], "nome": "Fulano"}},
        "calendario": {"dataInicial": today, "periodicidade": "MENSAL"},
        "politicaRetentativa": "NAO_PERMITE",
    }
    rec = await _ok(await http.post(f"{std}/rec", json=rec_body | {"loc": loc["id"]}, headers=auth))
    code = (await _ok(await http.get(f"{std}/rec/{rec['idRec']}", headers=auth), 200))["dadosQR"]
    authorize = {"pixCopiaECola": code["pixCopiaECola"], "payer": REC_PAYER}
    await _ok(await http.post("/sandbox/rec/authorize", json=authorize, headers=auth), 200)
    charge_body = _cobr(rec["idRec"])
    charge_body["recebedor"]["conta"] = owner.client.opened.account.number
    charge = await _ok(await http.post(f"{std}/cobr", json=charge_body, headers=auth))
    other = await _ok(await http.post(f"{std}/rec", json=rec_body, headers=auth))
    expires = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    request = {
        "idRec": other["idRec"],
        "calendario": {"dataExpiracaoSolicitacao": expires},
        "destinatario": {"cpf": REC_PAYER["document"], "conta": "1", "ispbParticipante": REC_PAYER["ispb"]},
    }
    solic = await _ok(await http.post(f"{std}/solicrec", json=request, headers=auth))
    return {
        "rec_id": rec["idRec"],
        "rec_location": loc["id"],
        "cobr_txid": charge["txid"],
        "request_id": solic["idSolicRec"],
        "rec_account": owner.client.opened.account.number,
    }


def nobodys(ids: Ids, location_prefix: str) -> Ids:
    """Ids of the same shapes as ``ids`` that name nothing at all."""
    unknown = 9_000_000_000_000 + secrets.randbelow(10**9)
    code = brcode.encode(replace(brcode.decode(ids.code), location=location_prefix + secrets.token_hex(16)))
    return Ids(
        key=f"{uuid.uuid4().hex[:12]}@nobody.example",
        receipt=new_end_to_end_id("12345678", datetime.now(UTC)),
        receipt_id=str(unknown),
        refund=alphanumeric(20),
        txid=alphanumeric(30),
        due_txid=alphanumeric(30),
        batch=secrets.randbelow(2**31),
        batch_txid=alphanumeric(30),
        code=code,
        cash_in_id=str(unknown + 1),
        external_id=str(uuid.uuid4()),
        external_key=f"{uuid.uuid4().hex[:12]}@external.example",
        transfer_e2e=new_end_to_end_id("99999999", datetime.now(UTC)),
        transfer_id=str(unknown + 2),
        case_accept=unknown + 3,
        case_reject=unknown + 4,
        webhook=unknown + 5,
        delivery=unknown + 6,
        location=unknown + 7,
        free_location=unknown + 8,
        rec_id="RN" + alphanumeric(27),
        rec_location=unknown + 9,
        cobr_txid=alphanumeric(30),
        request_id="SC" + alphanumeric(27),
        rec_account=ids.rec_account,
    )


STANDARD_PREFIX = Settings().standard_prefix


def standard_routes(api: Api) -> set[tuple[str, str]]:
    """The routes also served on the standard's face, by their path at the root."""
    assert api.app is not None
    return {
        (method, route.path.removeprefix(STANDARD_PREFIX))
        for route in api.app.routes
        if route.path.startswith(STANDARD_PREFIX + "/")
        for method in route.methods
    }


def on_its_face(route: tuple[str, str], call: Call) -> Call:
    """``call`` on the standard's face when its route is served only there."""
    return replace(call, path=STANDARD_PREFIX + call.path) if route in STANDARD_ONLY else call


async def send(http: httpx.AsyncClient, call: Call, auth: dict[str, str]) -> httpx.Response:
    return await http.request(call.method, call.path, json=call.body, headers=auth)


# -- the checks ---------------------------------------------------------------------------------------


async def test_another_accounts_ids_are_not_found_on_every_route(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    http = api.client
    a, b = await signed_in(pg_uow, http, company=True), await signed_in(pg_uow, http, company=True)
    ids = await build_world(pg_uow, api, a)
    none = nobodys(ids, api.settings.location_prefix)
    problems: list[str] = []

    for route, calls_of in ROUTES.items():
        for call, unknown in zip(calls_of(ids), calls_of(none), strict=True):
            attempt = await send(http, on_its_face(route, call), b.auth)
            baseline = await send(http, on_its_face(route, unknown), b.auth)
            if call.expect == "hidden" and attempt.status_code != 404:
                problems.append(f"{route}: B got {attempt.status_code} on {call.path}: {attempt.text}")
            if call.expect == "refused" and attempt.status_code != 400:
                problems.append(f"{route}: B got {attempt.status_code} on {call.path}: {attempt.text}")
            if call.expect == "empty" and (attempt.status_code != 200 or attempt.json()["data"]):
                problems.append(f"{route}: B listed {attempt.text} on {call.path}")
            if (attempt.status_code, attempt.json()) != (baseline.status_code, baseline.json()):
                problems.append(
                    f"{route}: A's ids and nobody's differ for B: {attempt.status_code} {attempt.text}"
                    f" vs {baseline.status_code} {baseline.text}"
                )
    for route, calls_of in ROUTES.items():  # the ids were real: the owner succeeds with them
        for call in calls_of(ids):
            done = await send(http, on_its_face(route, call), a.auth)
            if done.status_code != call.owner:
                problems.append(f"{route}: the owner got {done.status_code} on {call.path}: {done.text}")
            elif call.expect == "empty" and not done.json()["data"]:
                problems.append(f"{route}: the owner's list is empty on {call.path}")
    assert not problems, "\n".join(problems)
    await fetch_rows(  # nothing of A's may ever be sent anywhere by a later notifier
        api.settings.database_url or "",
        "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE account_id = $1",
        a.account_id,
    )


async def test_another_accounts_ids_are_not_found_on_the_standards_face(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    http = api.client
    a, b = await signed_in(pg_uow, http, company=True), await signed_in(pg_uow, http, company=True)
    ids = await build_world(pg_uow, api, a)
    none = nobodys(ids, api.settings.location_prefix)
    problems: list[str] = []
    standard = standard_routes(api)
    for route, calls_of in ROUTES.items():  # the same on the standard's face, in its 404s
        if route not in standard:
            continue
        for call, unknown in zip(calls_of(ids), calls_of(none), strict=True):
            attempt = await send(http, replace(call, path=STANDARD_PREFIX + call.path), b.auth)
            baseline = await send(http, replace(unknown, path=STANDARD_PREFIX + unknown.path), b.auth)
            if call.expect == "hidden" and attempt.status_code != 404:
                problems.append(f"{route}: B got {attempt.status_code} on the standard's {call.path}")
            if (attempt.status_code, attempt.json()) != (baseline.status_code, baseline.json()):
                problems.append(f"{route}: on the standard's face A's ids and nobody's differ for B")
    assert not problems, "\n".join(problems)
    await fetch_rows(  # nothing of A's may ever be sent anywhere by a later notifier
        api.settings.database_url or "",
        "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE account_id = $1",
        a.account_id,
    )


async def test_a_charge_id_of_another_account_is_free_and_stays_apart(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    http = api.client
    a, b = await signed_in(pg_uow, http, company=True), await signed_in(pg_uow, http, company=True)
    txid = alphanumeric(30)
    cob = {"calendario": {"expiracao": 3600}, "valor": {"original": "10.00"}}
    await _ok(await http.put(f"/cob/{txid}", json=cob, headers=a.auth))
    theirs = await _ok(
        await http.put(f"/cob/{txid}", json=cob | {"valor": {"original": "99.00"}}, headers=b.auth)
    )
    assert theirs["chave"] == b.key
    mine = await _ok(await http.get(f"/cob/{txid}", headers=a.auth), 200)
    assert (mine["chave"], mine["valor"]["original"], mine["revisao"]) == (a.key, "10.00", 0)
    again = await http.put(f"/cob/{txid}", json=cob, headers=a.auth)
    assert_error(again, 409)


async def test_ids_in_bodies_and_queries_reach_only_the_callers_objects(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    """Sandbox payments, sandbox refunds and MED name their object in the body; the transaction
    list filters by externalId and endToEndId; transfers carry an idempotency key."""
    http = api.client
    a, b = await signed_in(pg_uow, http, company=True), await signed_in(pg_uow, http, company=True)
    ids = await build_world(pg_uow, api, a)
    none = nobodys(ids, api.settings.location_prefix)
    before = (await _ok(await http.get("/balance", headers=a.auth), 200))["netBalance"]

    async def same_as_nobody(path: str, mine: dict[str, Any], nobody: dict[str, Any], status: int) -> None:
        attempt = await http.post(path, json=mine, headers=b.auth)
        baseline = await http.post(path, json=nobody, headers=b.auth)
        assert_error(attempt, status)
        assert attempt.json() == baseline.json()

    # Paying A's charge, or A's key, through the sandbox (only one's own may be paid there). A key
    # is public in PIX (anyone may send to it), so that one is a 422 "not a key of your account",
    # the same as for a key that exists nowhere (docs/decisions/transfers.md, ``/sandbox/payments``).
    await same_as_nobody("/sandbox/payments", {"pixCopiaECola": ids.code}, {"pixCopiaECola": none.code}, 404)
    await same_as_nobody(
        "/sandbox/payments", {"pixKey": ids.key, "amount": 5}, {"pixKey": none.key, "amount": 5}, 422
    )
    # The receiver of A's transfer "refunds" it to B; B opens a MED against A's receipt.
    await same_as_nobody(
        "/sandbox/refunds",
        {"endToEndId": ids.transfer_e2e, "amount": 1},
        {"endToEndId": none.transfer_e2e, "amount": 1},
        404,
    )
    await same_as_nobody(
        "/sandbox/med",
        {"endToEndId": ids.receipt, "reason": "MED_FRAUDE"},
        {"endToEndId": none.receipt, "reason": "MED_FRAUDE"},
        404,
    )
    after = (await _ok(await http.get("/balance", headers=a.auth), 200))["netBalance"]
    assert after == before  # nothing credited, refunded or blocked on A's side

    for params in (
        {"externalId": ids.external_id},
        {"endToEndId": ids.receipt},
        {"endToEndId": ids.transfer_e2e},
    ):
        theirs = await _ok(await http.get("/api/transactions", params=params, headers=b.auth), 200)
        assert (theirs["data"], theirs["metadata"]["total"]) == ([], 0), params
        mine = await _ok(await http.get("/api/transactions", params=params, headers=a.auth), 200)
        assert mine["metadata"]["total"] == 1, params

    # The same idempotency key in two accounts names two transfers: B never gets A's back.
    await _ok(await http.post("/sandbox/payments", json={"pixKey": b.key, "amount": 50}, headers=b.auth))
    key = str(uuid.uuid4())
    transfer = {"pixKey": ids.external_key, "payment": {"amount": 3}}
    first = await _ok(
        await http.post("/dict/pix", json=transfer, headers=a.auth | {"x-idempotency-key": key})
    )
    second = await _ok(
        await http.post("/dict/pix", json=transfer, headers=b.auth | {"x-idempotency-key": key})
    )
    assert second["id"] != first["id"]
    assert second["endToEndId"] != first["endToEndId"]

    # B's lists hold nothing of A's.
    for path in ("/api/webhooks", "/api/webhooks/deliveries"):
        listed = await _ok(await http.get(path, headers=b.auth), 200)
        assert (listed["accountId"], listed["total"]) == (b.account_id, 0), path
    secret_a = (await _ok(await http.get("/api/webhooks/secret", headers=a.auth), 200))["secret"]
    secret_b = (await _ok(await http.get("/api/webhooks/secret", headers=b.auth), 200))["secret"]
    assert secret_a != secret_b
    await fetch_rows(
        api.settings.database_url or "",
        "UPDATE webhooks SET is_active = false WHERE account_id = $1",
        a.account_id,
    )


async def test_balances_are_the_callers_own(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    http = api.client
    a, b = await signed_in(pg_uow, http, company=True), await signed_in(pg_uow, http, company=True)
    await _ok(await http.post("/sandbox/payments", json={"pixKey": a.key, "amount": 77}, headers=a.auth))
    for who, expected in ((a, 77), (b, 0)):
        standard = await _ok(await http.get("/balance", headers=who.auth), 200)
        central = await _ok(await http.get("/accounts/balances", headers=who.auth), 200)
        assert standard["netBalance"] == expected
        assert central["data"][0]["balanceAmount"]["available"] == expected
