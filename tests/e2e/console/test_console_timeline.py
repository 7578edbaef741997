"""A transaction's timeline, and the links between a transaction, its refunds and the webhook
notifications about it, both ways: created, settled, a refund asked for (linked), the cash_in
notification with its outcome and attempts (linked); the delivery's page links back to the PIX,
and the deliveries list narrows to one PIX."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from tests.e2e.conftest import running_api
from tests.e2e.console.test_console import csrf_of, receive, sign_in, transaction_of
from tests.e2e.console.test_console_webhooks import register
from tests.integration.receiver import running_receiver
from tests.support import new_client


def timeline(html: str) -> list[str]:
    """Each event's line without its time (written in the page's language), its markup stripped
    and its spaces collapsed."""
    section = html.split('<section class="card" id="timeline">', 1)[1].split("</section>", 1)[0]
    items = re.findall(r"<li[^>]*>(.*?)</li>", section, flags=re.DOTALL)
    untimed = [re.sub(r"<time[^>]*>.*?</time>", " ", item, flags=re.DOTALL) for item in items]
    return [" ".join(re.sub(r"<[^>]+>", " ", item).split()) for item in untimed]


async def test_a_transactions_timeline_links_its_refunds_and_its_notifications(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    settings = Settings(
        database_url=database.url, data_dir=tmp_path, run_workers=True, webhook_allow_private=True
    )
    async with running_receiver() as receiver, running_api(settings, SystemClock(), database) as api:
        client = await new_client(pg_uow)
        await sign_in(api.client, client)
        await register(api.client, receiver.url("/paid"))
        e2e = await receive(api.client, client, "30.00")
        other_e2e = await receive(api.client, client, "5.00")
        await receiver.wait_for(2, "/paid")
        transaction = "/console/transactions/" + await transaction_of(api.client, e2e)

        form = await api.client.get(f"/console/refunds?endToEndId={e2e}")
        asked = await api.client.post(
            "/console/refunds",
            data={"csrf": csrf_of(form), "end_to_end_id": e2e, "refund_id": "back1", "amount": "4.00"},
        )
        refund = asked.headers["location"]
        assert refund == f"/console/refunds/{e2e}/back1"

        page = await api.client.get(transaction)
        for _ in range(100):  # the notifier records the receiver's answer just after it has it
            if ">Delivered<" in page.text:
                break
            await asyncio.sleep(0.1)
            page = await api.client.get(transaction)
        lines = timeline(page.text)
        assert [line.split(" ")[0] for line in lines[:2]] == ["Created", "Settled"]
        assert any(line.endswith("Refund back1 asked for") for line in lines), lines
        assert any(
            re.search(r"Webhook notification cash_in : Delivered , 1 attempt$", line) for line in lines
        ), lines
        assert f'href="{refund}"' in page.text  # transaction -> its refund
        delivery = re.search(r'href="(/console/webhooks/deliveries/\d+)">cash_in<', page.text).group(1)  # type: ignore[union-attr]
        narrowed = f"/console/webhooks/deliveries?endToEndId={e2e}"
        assert f'href="{narrowed}"' in page.text  # transaction -> its deliveries

        shown = await api.client.get(narrowed)
        assert re.findall(r'href="(/console/webhooks/deliveries/\d+)"', shown.text) == [delivery]
        theirs = await api.client.get(f"/console/webhooks/deliveries?endToEndId={other_e2e}")
        assert delivery not in theirs.text
        assert len(re.findall(r'href="/console/webhooks/deliveries/\d+"', theirs.text)) == 1
        bad = await api.client.get("/console/webhooks/deliveries?endToEndId=nope")
        assert bad.status_code == 400
        assert 'id="e-endToEndId"' in bad.text

        detail = await api.client.get(delivery)  # delivery -> back to the PIX and its deliveries
        assert f'href="/console/search?q={e2e}"' in detail.text
        assert f'href="{narrowed}"' in detail.text
        back = await api.client.get(refund)  # refund -> its PIX and the deliveries about it
        assert f'href="/console/transactions?endToEndId={e2e}"' in back.text
        assert f'href="{narrowed}"' in back.text
        assert any(line.endswith("Refund back1 asked for") for line in timeline(back.text))
        assert "cash_in" not in timeline(back.text)[-1]  # its own notifications only: refunds'

        # A charge's timeline: created, then the PIX that paid it (linked) and its notification.
        charges = await api.client.get("/console/charges")
        made = await api.client.post("/console/charges", data={"csrf": csrf_of(charges), "amount": "3.00"})
        charge = made.headers["location"]
        assert timeline((await api.client.get(charge)).text) == ["Created"]
        await api.client.post(charge + "/pay", data={"csrf": csrf_of(charges)})
        await receiver.wait_for(3, "/paid")
        page = await api.client.get(charge)
        for _ in range(100):
            if "Delivered" in timeline(page.text)[-1]:
                break
            await asyncio.sleep(0.1)
            page = await api.client.get(charge)
        lines = timeline(page.text)
        paid_by = re.search(r"Paid by the PIX (E\w{31})$", lines[1])
        assert paid_by is not None, lines
        assert f'href="/console/search?q={paid_by.group(1)}"' in page.text  # charge -> its PIX
        assert lines[2].endswith("Webhook notification cash_in : Delivered , 1 attempt"), lines
