"""The console's recurrences (Pix Automático) over HTTP: the list, newest first, and a
recurrence's page with its terms, payer, history and recurring charges with their attempts, in
English and in Portuguese; an account without any; another account's is not found."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import httpx

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import sign_in
from tests.e2e.console.test_console_not_found import assert_console_not_found
from tests.e2e.recurrences.conftest import Receiver, later, new_receiver
from tests.support import new_client

ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
PORTUGUESE = {"Accept-Language": "pt-BR,pt;q=0.9"}


async def receiver_of(api: Api, uow: UnitOfWorkFactory, name: str) -> Receiver:
    return await new_receiver(api, uow, name)


async def approved_with_a_charge(receiver: Receiver) -> tuple[dict[str, Any], dict[str, Any]]:
    """A recurrence the sandbox's payer authorized, and its charge due in 3 days, scheduled by
    the payer's bank."""
    rec = await receiver.located_recurrence()
    answered = await receiver.authorize(rec["idRec"])
    assert answered.status_code == 200, answered.text
    await receiver.set_balance(100.0)
    charge = await receiver.charge(rec["idRec"], later(receiver.today(), 3))
    await receiver.bank_day()
    return rec, charge


def listed_ids(text: str) -> list[str]:
    return re.findall(r'href="/console/recurrences/([A-Za-z0-9]+)"', text)


def english_day(day: date) -> str:
    return f"{day:%b} {day.day}, {day.year}"


async def test_the_list_and_a_recurrences_page_in_english(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    receiver = await receiver_of(api, pg_uow, "Rita Recurring")
    rec, charge = await approved_with_a_charge(receiver)
    newer = await receiver.recurrence(valor={"valorMinimoRecebedor": "12.50"})
    await sign_in(api.client, receiver.client)
    listed = await api.client.get("/console/recurrences", headers=ENGLISH)
    assert listed.status_code == 200, listed.text
    assert "<h1>Recurrences</h1>" in listed.text
    assert '<a href="/console/recurrences" aria-current="page">Recurrences</a>' in listed.text
    assert listed_ids(listed.text) == [newer["idRec"], rec["idRec"]]  # newest first
    assert listed.text.count("Fulano de Tal") == 2
    assert listed.text.count("<td>Streaming</td>") == 2
    assert listed.text.count("<td>Monthly</td>") == 2
    assert ">R$35.00<" in listed.text
    assert ">at least R$12.50<" in listed.text
    assert ">Approved</span>" in listed.text
    assert ">Awaiting approval</span>" in listed.text

    shown = await api.client.get(f"/console/recurrences/{rec['idRec']}", headers=ENGLISH)
    assert shown.status_code == 200, shown.text
    assert f"<h1>Recurrence {rec['idRec']}</h1>" in shown.text
    assert 'id="recurrence-status">Approved</span>' in shown.text
    assert 'id="periodicity">Monthly<' in shown.text
    assert 'id="amount">R$35.00<' in shown.text
    assert (
        f'id="payer">{receiver.payer["document"]} at the institution {receiver.payer["ispb"]}<' in shown.text
    )
    history = shown.text.split('id="recurrence-history"')[1].split("</table>")[0]
    assert re.findall(r">(Awaiting approval|Approved)</span>", history) == ["Awaiting approval", "Approved"]
    charges = shown.text.split('id="recurring-charges"')[1].split("</table>")[0]
    assert f"<code>{charge['txid']}</code>" in charges
    assert english_day(later(receiver.today(), 3)) in charges
    assert ">R$35.00<" in charges
    assert f'id="charge-status-{charge["txid"]}">Open</span>' in charges
    assert ">Scheduled</span>" in charges  # its attempt, scheduled by the payer's bank

    waiting = await api.client.get(f"/console/recurrences/{newer['idRec']}", headers=ENGLISH)
    assert 'id="recurrence-status">Awaiting approval</span>' in waiting.text
    assert 'id="amount">R$12.50<' in waiting.text
    assert "Minimum amount" in waiting.text
    assert 'id="payer"' not in waiting.text  # no payer before the approval
    assert 'id="no-charges"' in waiting.text


async def test_the_list_and_a_recurrences_page_in_portuguese(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    receiver = await receiver_of(api, pg_uow, "Rui Recorrente")
    rec, charge = await approved_with_a_charge(receiver)
    await sign_in(api.client, receiver.client)
    listed = await api.client.get("/console/recurrences", headers=PORTUGUESE)
    assert '<html lang="pt-BR">' in listed.text
    assert "<h1>Recorrências</h1>" in listed.text
    assert '<a href="/console/recurrences" aria-current="page">Recorrências</a>' in listed.text
    assert listed_ids(listed.text) == [rec["idRec"]]
    assert "<td>Mensal</td>" in listed.text
    assert ">R$\xa035,00<" in listed.text
    assert ">Aprovada</span>" in listed.text

    shown = await api.client.get(f"/console/recurrences/{rec['idRec']}", headers=PORTUGUESE)
    assert f"<h1>Recorrência {rec['idRec']}</h1>" in shown.text
    assert 'id="recurrence-status">Aprovada</span>' in shown.text
    assert 'id="periodicity">Mensal<' in shown.text
    assert f'id="payer">{receiver.payer["document"]} na instituição {receiver.payer["ispb"]}<' in shown.text
    charges = shown.text.split('id="recurring-charges"')[1].split("</table>")[0]
    assert f"<code>{charge['txid']}</code>" in charges
    assert later(receiver.today(), 3).strftime("%d/%m/%Y") in charges
    assert f'id="charge-status-{charge["txid"]}">Aberta</span>' in charges
    assert ">Agendada</span>" in charges
    assert ">R$\xa035,00<" in charges


async def test_an_account_without_recurrences_sees_the_empty_state(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow, name="Nilo Nenhum")
    await sign_in(api.client, client)
    english = await api.client.get("/console/recurrences", headers=ENGLISH)
    assert english.status_code == 200, english.text
    assert listed_ids(english.text) == []
    assert 'id="no-recurrences">No recurrences yet' in english.text
    portuguese = await api.client.get("/console/recurrences", headers=PORTUGUESE)
    assert 'id="no-recurrences">Nenhuma recorrência ainda' in portuguese.text


async def test_another_accounts_recurrence_is_the_consoles_not_found(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    owner = await receiver_of(api, pg_uow, "Olga Owner")
    rec, charge = await approved_with_a_charge(owner)
    other = await new_client(pg_uow, name="Otto Other")
    assert api.app is not None
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=api.app), base_url="http://127.0.0.1:8000"
    ) as second:
        await sign_in(second, other)
        for headers, message in (
            (ENGLISH, "Recurrence not found."),
            (PORTUGUESE, "Recorrência não encontrada."),
        ):
            answer = await second.get(f"/console/recurrences/{rec['idRec']}", headers=headers)
            assert_console_not_found(answer, "Otto Other")
            assert message in answer.text
            assert charge["txid"] not in answer.text
            assert "Fulano de Tal" not in answer.text
        assert listed_ids((await second.get("/console/recurrences")).text) == []
