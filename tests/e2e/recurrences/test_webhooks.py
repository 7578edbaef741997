"""``/webhookrec`` and ``/webhookcobr``: one registration per account each; the changes of the
account's recurrences and recurring charges POSTed to ``{webhookUrl}/rec`` and
``{webhookUrl}/cobr`` as the standard's callbacks (``{"recs": [...]}``, ``{"cobsr": [...]}``, no
envelope), signed, to the real receiver of the integration tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from tests.e2e.conftest import running_api
from tests.e2e.recurrences.conftest import Receiver, new_receiver, problem
from tests.e2e.webhooks.test_webhook_deliveries import secret_of
from tests.integration.receiver import Receiver as Listener
from tests.integration.receiver import running_receiver


@pytest.fixture
async def delivering(
    migrated_database: str, tmp_path: Path, pg_uow: UnitOfWorkFactory
) -> AsyncIterator[Receiver]:
    """An account on an API with its loops (settlement, delivery), private receivers allowed."""
    settings = Settings(
        database_url=migrated_database, data_dir=tmp_path, run_workers=True, webhook_allow_private=True
    )
    async with running_api(settings, SystemClock()) as api:
        yield await new_receiver(api, pg_uow)


@pytest.fixture
async def listener() -> AsyncIterator[Listener]:
    async with running_receiver() as running:
        yield running


async def test_set_read_replace_and_delete(delivering: Receiver, listener: Listener) -> None:
    for name in ("webhookrec", "webhookcobr"):
        missing = await delivering.call("GET", f"/{name}")
        problem(missing, 404, "NaoEncontrado")
        put = await delivering.call("PUT", f"/{name}", json={"webhookUrl": listener.url("/first")})
        assert put.status_code == 200, put.text
        assert put.content == b""
        read = (await delivering.call("GET", f"/{name}")).json()
        assert read["webhookUrl"] == listener.url("/first")
        await delivering.call("PUT", f"/{name}", json={"webhookUrl": listener.url("/second")})
        assert (await delivering.call("GET", f"/{name}")).json()["webhookUrl"] == listener.url("/second")
        bad = await delivering.call("PUT", f"/{name}", json={"webhookUrl": "ftp://nowhere"})
        body = problem(
            bad, 400, "WebhookRecOperacaoInvalida" if name == "webhookrec" else "WebhookCobROperacaoInvalida"
        )
        assert body["violacoes"][0]["propriedade"] == "webhookUrl"
        deleted = await delivering.call("DELETE", f"/{name}")
        assert deleted.status_code == 204
        problem(await delivering.call("DELETE", f"/{name}"), 404, "NaoEncontrado")
    # Never among the registrations of our own API.
    assert (await delivering.http.get("/api/webhooks", headers=delivering.auth)).json()["webhooks"] == []


async def test_changes_are_posted_to_the_callbacks(delivering: Receiver, listener: Listener) -> None:
    for name in ("webhookrec", "webhookcobr"):
        put = await delivering.call("PUT", f"/{name}", json={"webhookUrl": listener.url("/hooks/")})
        assert put.status_code == 200, put.text
    rec = await delivering.located_recurrence()
    await delivering.authorize(rec["idRec"])
    await delivering.set_balance(100.0)
    charge = await delivering.charge(rec["idRec"], delivering.today())
    await listener.wait_for(1, "/hooks/rec", within=30)
    (approved,) = listener.at("/hooks/rec")
    secret = await secret_of(delivering.http, delivering.auth)
    approved.verify(secret)
    sent = json.loads(approved.body)
    assert list(sent) == ["recs"]
    (item,) = sent["recs"]
    assert (item["idRec"], item["status"]) == (rec["idRec"], "APROVADA")
    assert item["ativacao"] == {"tipoJornada": "JORNADA_2"}
    # The settlement loop schedules and debits the charge due today: COBR notifications follow.
    await listener.wait_for(2, "/hooks/cobr", within=30)
    statuses = [json.loads(r.body)["cobsr"][0]["status"] for r in listener.at("/hooks/cobr")]
    assert statuses[-1] in ("ATIVA", "CONCLUIDA")
    assert all(json.loads(r.body)["cobsr"][0]["txid"] == charge["txid"] for r in listener.at("/hooks/cobr"))
