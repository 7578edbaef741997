"""Webhooks per key, the standard's ``/webhook``, for refunds, end to end on PostgreSQL with a real
receiver: a refund of a PIX received on the key is POSTed to ``{webhookUrl}/pix`` when it reaches DEVOLVIDO
or NAO_REALIZADO, as ``{"pix": [<Pix>]}`` with the item ``GET /pix/{e2eid}`` shows then (its
``devolucoes``), signed, once each; a refund of a PIX on a key without a webhook is not."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from pixcore.refunds.refund_service import process_due_refunds
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.charges.test_charge_schemas import validator
from tests.e2e.conftest import Api
from tests.e2e.refunds.test_refunds import put_refund, receive, refund_id
from tests.e2e.webhooks.test_standard_webhooks import delivering_api, key_of, put_hook, receiver, second_key
from tests.e2e.webhooks.test_webhook_deliveries import secret_of
from tests.e2e.webhooks.test_webhooks_api import signed_in
from tests.integration.receiver import Receiver
from tests.support import add_external_key

__all__ = ["delivering_api", "receiver"]  # the fixtures, used here by name


async def _finish_refunds(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    """The refunds asked for come due and are finished (by this call or the app's own loop:
    either way once)."""
    api.clock.advance(api.settings.norm_delay_seconds)
    await process_due_refunds(pg_uow, api.clock)


async def test_a_refund_of_a_pix_on_the_key_is_posted_at_each_final_status(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    api = delivering_api
    http = api.client
    client, auth = await signed_in(pg_uow, api)
    chave = key_of(client)
    assert (await put_hook(api, auth, chave, receiver.url("/refunds/"))).status_code == 200
    secret = await secret_of(http, auth)

    e2e = await receive(api, client, auth, 40)
    await receiver.wait_for(1, "/refunds/pix", within=30)

    made = refund_id()
    asked = await put_refund(api, auth, e2e, made, valor="10.00", descricao="Desculpe")
    assert asked.status_code == 201, asked.text
    await asyncio.sleep(0.5)  # asked for is no final status: nothing is sent yet
    assert len(receiver.at("/refunds/pix")) == 1
    await _finish_refunds(pg_uow, api)
    await receiver.wait_for(2, "/refunds/pix", within=30)
    returned = receiver.at("/refunds/pix")[1].verify(secret)
    assert set(returned) == {"pix"}
    (item,) = returned["pix"]  # type: ignore[index]
    validator("Pix").validate(item)
    assert item == (await http.get(f"/pix/{e2e}", headers=auth)).json()
    (refund,) = item["devolucoes"]
    assert (refund["id"], refund["valor"], refund["status"], refund["descricao"]) == (
        made,
        "10.00",
        "DEVOLVIDO",
        "Desculpe",
    )

    # The rest of the money leaves: the next refund cannot be reserved and ends NAO_REALIZADO.
    key, _ = await add_external_key(http, auth)
    spent = await http.post(
        "/dict/pix",
        json={"pixKey": key, "payment": {"amount": 30}},
        headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
    )
    assert spent.status_code == 201, spent.text
    short = refund_id()
    assert (await put_refund(api, auth, e2e, short, valor="5.00")).status_code == 201
    api.clock.advance(api.settings.norm_delay_seconds)
    await settle_due(pg_uow, api.clock)
    await _finish_refunds(pg_uow, api)
    await receiver.wait_for(3, "/refunds/pix", within=30)
    await asyncio.sleep(0.5)  # time for a wrong fourth one to arrive
    sent = receiver.at("/refunds/pix")
    assert len(sent) == 3
    failed: Any = sent[2].verify(secret)
    (item,) = failed["pix"]
    validator("Pix").validate(item)
    assert item == (await http.get(f"/pix/{e2e}", headers=auth)).json()
    assert [(r["id"], r["status"]) for r in item["devolucoes"]] == [
        (made, "DEVOLVIDO"),
        (short, "NAO_REALIZADO"),
    ]
    assert item["devolucoes"][1]["motivo"]
    # Three deliveries, each its own webhook-id: the receipt and two final statuses.
    assert len({got.headers["webhook-id"] for got in sent}) == 3


async def test_a_refund_of_a_pix_on_a_key_without_a_webhook_is_not_posted(
    pg_uow: UnitOfWorkFactory, delivering_api: Api, receiver: Receiver
) -> None:
    api = delivering_api
    client, auth = await signed_in(pg_uow, api)
    other = await second_key(pg_uow, client.account_id)
    assert (await put_hook(api, auth, other, receiver.url("/other/"))).status_code == 200
    e2e = await receive(api, client, auth, 20)  # on the first key, which has no webhook
    assert (await put_refund(api, auth, e2e, refund_id(), valor="1.00")).status_code == 201
    await _finish_refunds(pg_uow, api)
    await asyncio.sleep(1.0)
    assert receiver.received == []
