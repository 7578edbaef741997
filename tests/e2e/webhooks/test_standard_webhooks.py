"""Webhooks per key, the standard's ``/webhook``, end to end on PostgreSQL: set,
read, list, replace and delete a key's webhook; another account's key; hostile requests answered
in the standard's problem+json; and a PIX received on the key POSTed to ``{webhookUrl}/pix`` as
``{"pix": [<Pix>]}``, signed, while a PIX on another key is not.

No test needs the network: URLs are IP literals (``PIX_WEBHOOK_ALLOW_PRIVATE`` on, as in
development) and the receiver listens on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from pixcore.clock import SystemClock
from pixcore.keys import parse_pix_key
from pixcore.testing import StaticResolver
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.key_webhook_service import parse_key_webhook, set_key_webhook
from pixinfra.settings import Settings
from tests.e2e.charges.test_charge_schemas import validator
from tests.e2e.charges.test_standard_api import _problem, cob, window
from tests.e2e.conftest import Api, fresh_client, running_api
from tests.e2e.refunds.test_internal_returns import _send
from tests.e2e.refunds.test_refunds import receive
from tests.e2e.standard.test_standard_face import STD
from tests.e2e.webhooks.test_webhook_deliveries import secret_of
from tests.e2e.webhooks.test_webhooks_api import signed_in
from tests.integration.receiver import Receiver, running_receiver
from tests.support import Client, bearer, fetch_rows, new_client

HOOK = "https://127.0.0.1:9/hooks/"
OTHER_HOOK = "https://127.0.0.1:9/elsewhere?token=abc"


@pytest.fixture(scope="module")
async def module_private_api(
    migrated_database: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Api]:
    """The API with PIX_WEBHOOK_ALLOW_PRIVATE on (development and tests), without its loops; one per
    module."""
    settings = Settings(
        database_url=migrated_database,
        data_dir=tmp_path_factory.mktemp("api"),
        run_workers=False,
        webhook_allow_private=True,
    )
    async with running_api(settings, SystemClock()) as running:
        yield running


@pytest.fixture
async def private_api(module_private_api: Api) -> AsyncIterator[Api]:
    async with fresh_client(module_private_api) as fresh:
        yield fresh


@pytest.fixture
async def delivering_api(migrated_database: str, tmp_path: Path) -> AsyncIterator[Api]:
    """The API with its loops (delivery in its process), private receivers allowed."""
    settings = Settings(
        database_url=migrated_database, data_dir=tmp_path, run_workers=True, webhook_allow_private=True
    )
    async with running_api(settings, SystemClock()) as running:
        yield running


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with running_receiver() as running:
        yield running


def key_of(client: Client) -> str:
    return client.opened.keys[0].value


async def put_hook(api: Api, auth: dict[str, str], chave: str, url: str = HOOK) -> Any:
    return await api.client.put(f"/webhook/{chave}", json={"webhookUrl": url}, headers=auth)


async def second_key(pg_uow: UnitOfWorkFactory, account_id: int) -> str:
    """Another key of the account, added as account opening adds them."""
    key = parse_pix_key(f"second-{uuid.uuid4().hex[:12]}@example.org")
    async with pg_uow() as tx:
        await tx.keys.add(account_id, key)
        await tx.commit()
    return key.value


# -- set, read, list, replace, delete --------------------------------------------------------------


async def test_a_key_webhook_is_set_read_listed_replaced_and_deleted(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    http = private_api.client
    client, auth = await signed_in(pg_uow, private_api)
    chave = key_of(client)

    put = await put_hook(private_api, auth, chave)
    assert put.status_code == 200, put.text
    assert put.json()["webhookUrl"] == HOOK
    assert put.json()["chave"] == chave
    read = await http.get(f"/webhook/{chave}", headers=auth)
    assert read.status_code == 200, read.text
    assert read.json() == put.json()
    # Where the notifier posts: the URL with /pix added to its path (one slash between).
    (row,) = await fetch_rows(
        private_api.settings.database_url or "",
        "SELECT url, event_type FROM webhooks WHERE account_id = $1 AND is_active AND pix_key = $2",
        client.account_id,
        chave,
    )
    assert (row["url"], row["event_type"]) == ("https://127.0.0.1:9/hooks/pix", "pix")

    # The same URL again changes nothing; another one replaces it.
    again = await put_hook(private_api, auth, chave)
    assert again.json() == put.json()
    replaced = await put_hook(private_api, auth, chave, OTHER_HOOK)
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["webhookUrl"] == OTHER_HOOK
    rows = await fetch_rows(
        private_api.settings.database_url or "",
        "SELECT url, is_active FROM webhooks WHERE account_id = $1 ORDER BY id",
        client.account_id,
    )
    assert [(r["url"], r["is_active"]) for r in rows] == [
        ("https://127.0.0.1:9/hooks/pix", False),
        ("https://127.0.0.1:9/elsewhere/pix?token=abc", True),
    ]

    listed = await http.get("/webhook", headers=auth)
    assert listed.status_code == 200, listed.text
    body = listed.json()
    validator("ParametrosConsultaWebhooks").validate(body["parametros"])
    assert body["webhooks"] == [replaced.json()]
    assert body["parametros"]["paginacao"] == {
        "paginaAtual": 0,
        "itensPorPagina": 100,
        "quantidadeDePaginas": 1,
        "quantidadeTotalDeItens": 1,
    }
    # /api/webhooks does not list them: it keeps its own registrations.
    ours = await http.get("/api/webhooks", headers=auth)
    assert ours.json()["webhooks"] == []

    deleted = await http.delete(f"/webhook/{chave}", headers=auth)
    assert deleted.status_code == 204, deleted.text
    _problem(await http.get(f"/webhook/{chave}", headers=auth), 404, "WebhookNaoEncontrado")
    _problem(await http.delete(f"/webhook/{chave}", headers=auth), 404, "WebhookNaoEncontrado")
    assert (await http.get("/webhook", headers=auth)).json()["webhooks"] == []


async def test_the_list_pages_and_filters_by_creation(pg_uow: UnitOfWorkFactory, private_api: Api) -> None:
    http = private_api.client
    client, auth = await signed_in(pg_uow, private_api)
    keys = [
        key_of(client),
        await second_key(pg_uow, client.account_id),
        await second_key(pg_uow, client.account_id),
    ]
    for chave in keys:
        assert (await put_hook(private_api, auth, chave)).status_code == 200
    page = await http.get(
        "/webhook", params={"paginacao.paginaAtual": "1", "paginacao.itensPorPagina": "2"}, headers=auth
    )
    assert page.status_code == 200, page.text
    assert [w["chave"] for w in page.json()["webhooks"]] == keys[2:]
    assert page.json()["parametros"]["paginacao"]["quantidadeDePaginas"] == 2
    now = private_api.clock.now()
    before = await http.get("/webhook", params={"fim": (now - timedelta(hours=1)).isoformat()}, headers=auth)
    assert before.json()["webhooks"] == []
    inside = await http.get("/webhook", params=window(private_api), headers=auth)
    assert [w["chave"] for w in inside.json()["webhooks"]] == keys
    assert set(inside.json()["parametros"]) == {"inicio", "fim", "paginacao"}


async def test_another_accounts_key_is_refused_and_its_webhook_not_found(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    http = private_api.client
    owner, owner_auth = await signed_in(pg_uow, private_api)
    _, stranger_auth = await signed_in(pg_uow, private_api)
    chave = key_of(owner)

    refused = _problem(await put_hook(private_api, stranger_auth, chave), 400, "WebhookOperacaoInvalida")
    assert refused["violacoes"] == [{"razao": "not a key of this account", "propriedade": "chave"}]
    assert (await put_hook(private_api, owner_auth, chave)).status_code == 200
    _problem(await http.get(f"/webhook/{chave}", headers=stranger_auth), 404, "WebhookNaoEncontrado")
    _problem(await http.delete(f"/webhook/{chave}", headers=stranger_auth), 404, "WebhookNaoEncontrado")
    assert (await http.get("/webhook", headers=stranger_auth)).json()["webhooks"] == []
    assert (await http.get(f"/webhook/{chave}", headers=owner_auth)).status_code == 200


# -- hostile requests ------------------------------------------------------------------------------


async def test_every_broken_rule_of_a_put_is_listed_at_once(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    body = _problem(await put_hook(private_api, auth, "not-a-key", "ftp://x"), 400, "WebhookOperacaoInvalida")
    assert {v["propriedade"] for v in body["violacoes"]} == {"chave", "webhookUrl"}


async def test_a_wrong_type_and_a_bad_key_are_listed_together(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    response = await private_api.client.put("/webhook/not-a-key", json={"webhookUrl": 5}, headers=auth)
    body = _problem(response, 400, "WebhookOperacaoInvalida")
    assert [v["propriedade"] for v in body["violacoes"]] == ["webhookUrl", "chave"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"webhookUrl": None},
        {"webhookUrl": 7},
        {"webhookUrl": "https://127.0.0.1/\x00"},
        {"webhookUrl": "https://" + "a" * 3000 + ".com/"},
        {"webhookUrl": "https://user:pw@127.0.0.1/"},
        {"webhookUrl": "javascript:alert(1)"},
        [],
        "x",
    ],
)
async def test_hostile_bodies_are_a_400_problem(
    pg_uow: UnitOfWorkFactory, private_api: Api, body: Any
) -> None:
    client, auth = await signed_in(pg_uow, private_api)
    response = await private_api.client.put(f"/webhook/{key_of(client)}", json=body, headers=auth)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"].endswith("/WebhookOperacaoInvalida")


@pytest.mark.parametrize("chave", ["a%00b", "x" * 78, "%00", "ção@example.org", "%C3%A7"])
async def test_hostile_keys_are_refused_or_not_found(
    pg_uow: UnitOfWorkFactory, private_api: Api, chave: str
) -> None:
    http = private_api.client
    _, auth = await signed_in(pg_uow, private_api)
    put = await http.put(f"/webhook/{chave}", json={"webhookUrl": HOOK}, headers=auth)
    assert put.status_code in {400, 404}, put.text
    assert put.headers["content-type"].startswith("application/problem+json")
    got = await http.get(f"/webhook/{chave}", headers=auth)
    assert got.status_code in {400, 404}, got.text
    assert got.headers["content-type"].startswith("application/problem+json")


async def test_an_encoded_slash_stays_in_the_key_and_reaches_no_other_route(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    put = await private_api.client.put(
        "/webhook/..%2F..%2Fapi%2Fwebhooks", json={"webhookUrl": HOOK}, headers=auth
    )
    assert put.status_code == 400, put.text  # the key "../../api/webhooks", judged as a key
    assert put.json()["type"].endswith("/WebhookOperacaoInvalida")
    assert (await private_api.client.get("/api/webhooks", headers=auth)).json()["webhooks"] == []


async def test_an_e_mail_key_with_a_slash_has_its_webhook(
    pg_uow: UnitOfWorkFactory, private_api: Api
) -> None:
    """A ``/`` may be in an e-mail key's local part; escaped (``%2F``) it stays in its segment."""
    key = "billing/pix@example.com"
    client = await new_client(pg_uow, keys=(key,))
    auth = await bearer(private_api.client, client)
    path = "/webhook/" + quote(key, safe="@")
    assert path == "/webhook/billing%2Fpix@example.com"
    put = await private_api.client.put(path, json={"webhookUrl": HOOK}, headers=auth)
    assert put.status_code == 200, put.text
    assert put.json()["chave"] == key
    read = await private_api.client.get(path, headers=auth)
    assert read.status_code == 200, read.text
    assert read.json()["chave"] == key
    assert (await private_api.client.delete(path, headers=auth)).status_code == 204
    assert (await private_api.client.get(path, headers=auth)).status_code == 404


async def test_a_private_host_needs_the_setting(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client, auth = await signed_in(pg_uow, api)
    body = _problem(await put_hook(api, auth, key_of(client)), 400, "WebhookOperacaoInvalida")
    assert "PIX_WEBHOOK_ALLOW_PRIVATE" in body["detail"]


@pytest.mark.parametrize(
    "params",
    [
        {"inicio": "yesterday"},
        {"fim": "2026-13-01T00:00:00Z"},
        {"inicio": "2026-03-02T00:00:00Z", "fim": "2026-03-01T00:00:00Z"},
        {"paginacao.paginaAtual": "-1"},
        {"paginacao.itensPorPagina": "0"},
        {"paginacao.itensPorPagina": "99999999999999999999999"},
    ],
)
async def test_bad_list_queries_are_a_400_problem(
    pg_uow: UnitOfWorkFactory, private_api: Api, params: dict[str, str]
) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    response = await private_api.client.get("/webhook", params=params, headers=auth)
    body = _problem(response, 400, "WebhookConsultaInvalida")
    assert body["violacoes"]


async def test_every_broken_query_rule_is_listed(pg_uow: UnitOfWorkFactory, private_api: Api) -> None:
    _, auth = await signed_in(pg_uow, private_api)
    params = {"inicio": "x", "fim": "y", "paginacao.paginaAtual": "-1"}
    body = _problem(
        await private_api.client.get("/webhook", params=params, headers=auth), 400, "WebhookConsultaInvalida"
    )
    assert {v["propriedade"] for v in body["violacoes"]} == {"inicio", "fim", "paginacao.paginaAtual"}


# -- delivery --------------------------------------------------------------------------------------


async def _pay_key(api: Api, auth: dict[str, str], chave: str, amount: str) -> str:
    response = await api.client.post(
        "/sandbox/payments", json={"pixKey": chave, "amount": amount}, headers=auth
    )
    assert response.status_code in {200, 201}, response.text
    e2e: str = response.json()["endToEndId"]
    return e2e


async def test_a_pix_received_on_the_key_is_posted_as_the_standard_says(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    api = delivering_api
    http = api.client
    client, auth = await signed_in(pg_uow, api)
    chave, other = key_of(client), await second_key(pg_uow, client.account_id)
    hook = receiver.url("/standard/")
    assert (await put_hook(api, auth, chave, hook)).status_code == 200
    secret = await secret_of(http, auth)

    by_key = await _pay_key(api, auth, chave, "12.34")
    await _pay_key(api, auth, other, "1.00")  # another key of the account: not sent
    charge = await http.post("/cob", json=cob("20.00", chave=chave), headers=auth)
    assert charge.status_code == 201, charge.text
    paid = await http.post(
        "/sandbox/payments",
        json={
            "pixCopiaECola": charge.json()["pixCopiaECola"],
            "payer": {"name": "P", "document": "11144477735"},
        },
        headers=auth,
    )
    assert paid.status_code in {200, 201}, paid.text
    by_charge = paid.json()["endToEndId"]

    await receiver.wait_for(2, "/standard/pix", within=30)
    await asyncio.sleep(0.5)  # time for a wrong third one to arrive
    sent = receiver.at("/standard/pix")
    bodies = [got.verify(secret) for got in sent]
    assert len(bodies) == 2
    by_e2e = {body["pix"][0]["endToEndId"]: body for body in bodies}  # type: ignore[index]
    assert set(by_e2e) == {by_key, by_charge}
    for e2e, body in by_e2e.items():
        assert set(body) == {"pix"}
        (item,) = body["pix"]
        validator("Pix").validate(item)
        # The same item GET /pix/{e2eid} shows.
        assert item == (await http.get(f"/pix/{e2e}", headers=auth)).json()
    assert by_e2e[by_key]["pix"][0]["valor"] == "12.34"
    assert by_e2e[by_charge]["pix"][0]["txid"] == charge.json()["txid"]
    assert receiver.at("/standard/") == []

    # The deliveries are the account's, with their attempt log, as /api/webhooks shows them.
    listed = (await http.get("/api/webhooks/deliveries", params={"eventType": "pix"}, headers=auth)).json()
    assert {d["status"] for d in listed["deliveries"]} == {"delivered"}
    assert len(listed["deliveries"]) == 2


async def test_a_due_charge_paid_on_the_key_is_posted_with_the_amount_due(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    api = delivering_api
    http = api.client
    client, auth = await signed_in(pg_uow, api)
    chave = key_of(client)
    assert (await put_hook(api, auth, chave, receiver.url("/due"))).status_code == 200
    secret = await secret_of(http, auth)
    due_date = (api.clock.now() + timedelta(days=10)).date().isoformat()
    body = {
        "calendario": {"dataDeVencimento": due_date},
        "devedor": {"cpf": "11144477735", "nome": "Debtor"},
        "valor": {
            "original": "50.00",
            "desconto": {"modalidade": 1, "descontoDataFixa": [{"data": due_date, "valorPerc": "5.00"}]},
        },
        "chave": chave,
    }
    charge = await http.put(f"/cobv/{'d' * 30}", json=body, headers=auth)
    assert charge.status_code == 201, charge.text
    paid = await http.post(
        "/sandbox/payments", json={"pixCopiaECola": charge.json()["pixCopiaECola"]}, headers=auth
    )
    assert paid.status_code in {200, 201}, paid.text
    await receiver.wait_for(1, "/due/pix", within=30)
    (sent,) = receiver.at("/due/pix")
    (item,) = sent.verify(secret)["pix"]  # type: ignore[index]
    assert item["endToEndId"] == paid.json()["endToEndId"]
    assert item["txid"] == "d" * 30
    assert item["valor"] == "45.00"  # paid before its due date: the fixed discount taken off
    assert item == (await http.get(f"/pix/{item['endToEndId']}", headers=auth)).json()


async def test_only_pix_after_the_registration_and_before_its_deletion_are_sent(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    api = delivering_api
    http = api.client
    client, auth = await signed_in(pg_uow, api)
    chave = key_of(client)
    await _pay_key(api, auth, chave, "1.00")  # before: not sent
    assert (await put_hook(api, auth, chave, receiver.url("/late"))).status_code == 200
    secret = await secret_of(http, auth)
    during = await _pay_key(api, auth, chave, "2.00")
    await receiver.wait_for(1, "/late/pix", within=30)
    assert (await http.delete(f"/webhook/{chave}", headers=auth)).status_code == 204
    await _pay_key(api, auth, chave, "3.00")  # after: not sent
    await asyncio.sleep(1.0)
    (only,) = receiver.at("/late/pix")
    assert only.verify(secret) == {"pix": [(await http.get(f"/pix/{during}", headers=auth)).json()]}


async def test_a_pix_from_another_account_of_the_service_is_queued_for_the_key_webhook(
    pg_uow: UnitOfWorkFactory, api: Api, migrated_database: str
) -> None:
    payer, payer_auth = await signed_in(pg_uow, api)
    receiver_client, receiver_auth = await signed_in(pg_uow, api)
    chave = key_of(receiver_client)
    await set_key_webhook(
        pg_uow,
        api.clock,
        StaticResolver(),
        account_id=receiver_client.account_id,
        request=parse_key_webhook(key=chave, webhook_url=HOOK),
        allow_private=True,  # the IP literal of HOOK; this API refuses it (no PIX_WEBHOOK_ALLOW_PRIVATE)
    )
    await receive(api, payer, payer_auth, 100)
    e2e = await _send(pg_uow, api, payer_auth, chave, 10)

    rows = await fetch_rows(
        migrated_database,
        "SELECT account_id, event_type, pix_key, payload::text AS payload FROM outbox"
        " WHERE webhook_type = 'pix' AND account_id = ANY($1::bigint[])",
        [payer.account_id, receiver_client.account_id],
    )
    assert [(r["account_id"], r["event_type"], r["pix_key"]) for r in rows] == [
        (receiver_client.account_id, "PIX", chave)
    ]
    item = (await api.client.get(f"/pix/{e2e}", headers=receiver_auth)).json()
    assert json.loads(rows[0]["payload"]) == {"type": "PIX", "data": {"pix": [item]}}


async def test_a_pix_saque_and_troco_paid_on_the_key_are_posted_with_their_cash(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    api = delivering_api
    http = api.client
    client, auth = await signed_in(pg_uow, api)
    chave = key_of(client)
    hooked = await http.put(
        f"{STD}/webhook/{chave}", json={"webhookUrl": receiver.url("/cash")}, headers=auth
    )
    assert hooked.status_code == 200, hooked.text
    secret = await secret_of(http, auth)
    agent = {"prestadorDoServicoDeSaque": "12345678"}
    saque = {"valor": "7.00", "modalidadeAgente": "AGPSS"} | agent
    troco = {"valor": "3.00", "modalidadeAgente": "AGTEC"} | agent
    paid: dict[str, str] = {}
    for original, retirada in (("0.00", {"saque": saque}), ("12.00", {"troco": troco})):
        body = {"calendario": {"expiracao": 3600}, "valor": {"original": original, "retirada": retirada}}
        charge = await http.post(f"{STD}/cob", json=body | {"chave": chave}, headers=auth)
        assert charge.status_code == 201, charge.text
        payment = await http.post(
            "/sandbox/payments", json={"pixCopiaECola": charge.json()["pixCopiaECola"]}, headers=auth
        )
        assert payment.status_code in {200, 201}, payment.text
        paid[next(iter(retirada))] = payment.json()["endToEndId"]

    await receiver.wait_for(2, "/cash/pix", within=30)
    items = {
        item["endToEndId"]: item for got in receiver.at("/cash/pix") for item in got.verify(secret)["pix"]
    }  # type: ignore[index]
    assert set(items) == set(paid.values())
    saque_pix, troco_pix = items[paid["saque"]], items[paid["troco"]]
    assert (saque_pix["valor"], saque_pix["componentesValor"]) == (
        "7.00",
        {"original": {"valor": "0.00"}, "saque": saque},
    )
    assert (troco_pix["valor"], troco_pix["componentesValor"]) == (
        "15.00",
        {"original": {"valor": "12.00"}, "troco": troco},
    )
    for e2e, item in items.items():
        validator("Pix").validate(item)
        assert item == (await http.get(f"{STD}/pix/{e2e}", headers=auth)).json()
