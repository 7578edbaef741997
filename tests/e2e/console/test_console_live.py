"""A record page follows its status: the changing part of a transaction's, a charge's and a
refund's page is a fragment of its own (``.../live``) that names its own URL (``data-poll``)
while the status can change, and no longer once it is final, which tells the page's script to
stop asking."""

from __future__ import annotations

import re

import httpx

from pixcore.refunds.refund_service import process_due_refunds
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, receive, sign_in
from tests.support import new_client

POLL = re.compile(r'<div id="live" class="live" data-poll="([^"]+)" aria-live="polite">')


async def fragment(http: httpx.AsyncClient, url: str) -> httpx.Response:
    answer = await http.get(url)
    assert answer.status_code == 200, answer.text
    assert answer.text.lstrip().startswith('<div id="live"')  # the fragment alone, no page around it
    assert "<html" not in answer.text
    assert answer.headers["cache-control"] == "no-store"
    return answer


async def test_a_pending_transaction_is_followed_until_it_settles(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    owner, payee = await new_client(pg_uow), await new_client(pg_uow)
    await sign_in(api.client, owner)
    await receive(api.client, owner, "50.00")
    form = await api.client.get("/console/send")
    sent = await api.client.post(
        "/console/send",
        data={
            "csrf": csrf_of(form),
            "idempotency_key": re.search(r'name="idempotency_key" value="([^"]+)"', form.text).group(1),  # type: ignore[union-attr]
            "pix_key": payee.opened.keys[0].value,
            "amount": "10.00",
        },
    )
    path = sent.headers["location"]
    shown = await api.client.get(path)
    polled = POLL.search(shown.text)
    assert polled is not None, shown.text
    assert polled.group(1) == path + "/live"
    assert "PENDING" in shown.text
    pending = await fragment(api.client, polled.group(1))
    assert POLL.search(pending.text) is not None  # ask again
    assert "PENDING" in pending.text

    api.clock.advance(api.settings.norm_delay_seconds)
    assert await settle_due(pg_uow, api.clock) >= 1
    settled = await fragment(api.client, polled.group(1))
    assert "CONFIRMED" in settled.text
    assert "data-poll" not in settled.text  # final: stop asking
    assert "data-poll" not in (await api.client.get(path)).text


async def test_a_charge_is_followed_while_active_and_a_refund_while_in_process(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    owner = await new_client(pg_uow)
    await sign_in(api.client, owner)
    charges = await api.client.get("/console/charges")
    made = await api.client.post("/console/charges", data={"csrf": csrf_of(charges), "amount": "3.00"})
    charge = made.headers["location"]
    active = await fragment(api.client, charge + "/live")
    assert POLL.search(active.text).group(1) == charge + "/live"  # type: ignore[union-attr]
    assert 'id="charge-status">Open<' in active.text  # ATIVA
    paid = await api.client.post(charge + "/pay", data={"csrf": csrf_of(charges)})
    assert paid.status_code == 303
    done = await fragment(api.client, charge + "/live")
    assert 'id="charge-status">Paid<' in done.text  # CONCLUIDA
    assert "data-poll" not in done.text

    e2e = await receive(api.client, owner, "20.00")
    form = await api.client.get(f"/console/refunds?endToEndId={e2e}")
    asked = await api.client.post(
        "/console/refunds",
        data={"csrf": csrf_of(form), "end_to_end_id": e2e, "refund_id": "live1", "amount": "5.00"},
    )
    refund = asked.headers["location"]
    processing = await fragment(api.client, refund + "/live")
    assert POLL.search(processing.text).group(1) == refund + "/live"  # type: ignore[union-attr]
    assert 'id="refund-status">Pending<' in processing.text  # EM_PROCESSAMENTO
    api.clock.advance(api.settings.norm_delay_seconds)
    await settle_due(pg_uow, api.clock)
    await process_due_refunds(pg_uow, api.clock)
    finished = await fragment(api.client, refund + "/live")
    assert 'id="refund-status">Confirmed<' in finished.text  # DEVOLVIDO
    assert "data-poll" not in finished.text


async def test_the_fragment_is_the_owners_only_and_the_signed_outs_get_a_redirect(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    owner, other = await new_client(pg_uow), await new_client(pg_uow)
    await sign_in(api.client, owner)
    charges = await api.client.get("/console/charges")
    made = await api.client.post("/console/charges", data={"csrf": csrf_of(charges), "amount": "3.00"})
    live = made.headers["location"] + "/live"
    assert api.app is not None
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=api.app), base_url="http://127.0.0.1:8000"
    ) as second:
        assert (await second.get(live)).status_code == 303  # signed out: the script stops there
        await sign_in(second, other)
        answer = await second.get(live)
        assert answer.status_code == 404
        assert "<h1>Não encontrado</h1>" in answer.text  # a client that says no language: Portuguese
