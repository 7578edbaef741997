"""The console's language: Brazilian Portuguese and Brazil's money format by default, English for
a browser that prefers it, the header's switch over both; amounts typed as Brazilians write them."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import httpx

from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.console.language import COOKIE
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.e2e.console.test_console_refunds import received
from tests.support import new_client

PORTUGUESE = {"Accept-Language": "pt-BR,pt;q=0.9"}
DAY_PT = re.compile(r"\b\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2}\b")  # dd/mm/aaaa hh:mm:ss


def nobody(api: Api) -> None:
    """The browser says no language (the e2e client asks for English otherwise)."""
    del api.client.headers["Accept-Language"]


async def overview_of_a_payee(pg_uow: UnitOfWorkFactory, api: Api) -> httpx.Response:
    """The overview of a new account that received R$ 1.234,56, in the client's language."""
    client = await new_client(pg_uow)
    await received(api.client, client, amount="1234.56")
    await sign_in(api.client, client)
    return await api.client.get("/console")


async def test_a_browser_that_says_nothing_gets_portuguese_and_brazils_money(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    nobody(api)
    page = await overview_of_a_payee(pg_uow, api)
    assert '<html lang="pt-BR">' in page.text
    assert "<h1>Visão geral</h1>" in page.text
    assert 'id="balance-available">R$\xa01.234,56<' in page.text  # R$ 1.234,56, a no-break space
    today = datetime.now(UTC).strftime("%d/%m/%Y")
    assert today in page.text  # the record's date, dd/mm/aaaa
    assert DAY_PT.search(page.text)
    assert ">Confirmada</span>" in page.text  # CONFIRMED, in the console's word
    assert "+R$\xa01.234,56" in page.text
    listed = await api.client.get("/console/transactions")
    assert "1 registro" in listed.text
    assert ">Pix recebido<" in listed.text


async def test_a_browser_that_prefers_english_gets_english(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    api.client.headers["Accept-Language"] = "en-US,en;q=0.9,pt;q=0.5"
    page = await overview_of_a_payee(pg_uow, api)
    assert '<html lang="en">' in page.text
    assert "<h1>Overview</h1>" in page.text
    assert 'id="balance-available">R$1,234.56<' in page.text
    assert datetime.now(UTC).strftime("%b %-d, %Y") in page.text
    assert ">Confirmed</span>" in page.text


async def test_the_switch_overrides_the_browser_for_the_session(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)  # the client asks for English
    page = await api.client.get("/console/transactions?status=CONFIRMED")
    assert 'action="/console/language"' in page.text
    assert 'name="next" value="/console/transactions?status=CONFIRMED"' in page.text
    switched = await api.client.post(
        "/console/language",
        data={"csrf": csrf_of(page), "lang": "pt_BR", "next": "/console/transactions?status=CONFIRMED"},
    )
    assert (switched.status_code, switched.headers["location"]) == (
        303,
        "/console/transactions?status=CONFIRMED",
    )
    cookie = switched.headers["set-cookie"]
    assert f"{COOKIE}=pt_BR" in cookie
    assert "HttpOnly" in cookie
    assert "Path=/console" in cookie
    again = await api.client.get("/console/transactions")
    assert "<h1>Transações</h1>" in again.text  # Portuguese, though the browser asks for English
    back = await api.client.post(
        "/console/language", data={"csrf": csrf_of(again), "lang": "en", "next": "/console"}
    )
    assert back.status_code == 303
    nobody(api)  # and English now, though the browser says nothing
    assert "<h1>Overview</h1>" in (await api.client.get("/console")).text


async def test_the_switch_carries_the_csrf_token_and_goes_back_to_this_site_only(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    nobody(api)
    signed_out = await api.client.get("/console/sign-in")
    assert "<h1>Entrar</h1>" in signed_out.text
    token = csrf_of(signed_out)  # before sign-in: the sign-in form's token
    forged = await api.client.post("/console/language", data={"lang": "en", "next": "/console"})
    assert forged.status_code == 403
    assert COOKIE not in forged.headers.get("set-cookie", "")
    elsewhere = await api.client.post(
        "/console/language", data={"csrf": token, "lang": "en", "next": "//evil.example/console"}
    )
    assert (elsewhere.status_code, elsewhere.headers["location"]) == (303, "/console")
    assert "<h1>Sign in</h1>" in (await api.client.get("/console/sign-in")).text
    unknown = await api.client.post(
        "/console/language", data={"csrf": token, "lang": "xx", "next": "/console"}
    )
    assert unknown.status_code == 400
    assert "Unknown language" in unknown.text
    assert "Traceback" not in unknown.text


async def _cash_in(api: Api, amount: str, external_id: str) -> httpx.Response:
    form = await api.client.get("/console/cash-in")
    return await api.client.post(
        "/console/cash-in",
        data={
            "csrf": csrf_of(form),
            "amount": amount,
            "description": "pedido",
            "external_id": external_id,
            "payer_name": "Ana Pagadora",
            "payer_document": "11144477735",
        },
    )


async def test_cash_in_takes_amounts_as_brazilians_write_them(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    nobody(api)
    await sign_in(api.client, await new_client(pg_uow))
    for n, (typed, shown) in enumerate(
        [("42,90", "R$\xa042,90"), ("42.90", "R$\xa042,90"), ("1.234,56", "R$\xa01.234,56")]
    ):
        made = await _cash_in(api, typed, f"pedido-{n}")
        assert made.status_code == 201, made.text
        assert f"<dd>{shown}</dd>" in made.text
    for typed, message in [
        ("42,901", "No máximo duas casas decimais (centavos), como 42,90."),
        ("abc", "Digite um valor em reais, como 42,90 ou 1.234,56."),
    ]:
        refused = await _cash_in(api, typed, "pedido-x")
        assert refused.status_code == 400
        assert f'id="e-amount">{message}<' in refused.text  # the field's own message, in Portuguese
        assert f'name="amount" type="text" value="{typed}"' in refused.text  # what was typed, kept
        assert 'id="cash-in-result"' not in refused.text  # nothing made
        assert "Alguns campos precisam de correção" in refused.text


async def _send(api: Api, key: str, amount: str) -> httpx.Response:
    form = await api.client.get("/console/send")
    idempotency = re.search(r'name="idempotency_key" value="([^"]+)"', form.text)
    assert idempotency is not None
    return await api.client.post(
        "/console/send",
        data={
            "csrf": csrf_of(form),
            "idempotency_key": idempotency.group(1),
            "pix_key": key,
            "amount": amount,
        },
    )


async def test_send_takes_amounts_as_brazilians_write_them(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    nobody(api)
    sender, receiver = await new_client(pg_uow), await new_client(pg_uow)
    await received(api.client, sender, amount="5000.00")
    await sign_in(api.client, sender)
    key = receiver.opened.keys[0].value
    for typed, shown in [("42,90", "R$\xa042,90"), ("42.90", "R$\xa042,90"), ("1.234,56", "R$\xa01.234,56")]:
        sent = await _send(api, key, typed)
        assert sent.status_code == 303, sent.text
        page = await api.client.get(sent.headers["location"])
        assert f"<dd>{shown}</dd>" in page.text
    balance = await api.client.get("/console")
    # 42,90 + 42,90 + 1.234,56 = 1.320,36 on its way (blocked until settled), to the centavo
    assert 'id="balance-available">R$\xa03.679,64<' in balance.text
    assert 'id="balance-blocked">R$\xa01.320,36<' in balance.text
    for typed, message in [
        ("42,901", "No máximo duas casas decimais (centavos), como 42,90."),
        ("abc", "Digite um valor em reais, como 42,90 ou 1.234,56."),
    ]:
        refused = await _send(api, key, typed)
        assert refused.status_code == 400
        assert f'id="e-amount">{message}<' in refused.text
        assert f'name="amount" type="text" value="{typed}"' in refused.text
    after = await api.client.get("/console")
    assert 'id="balance-available">R$\xa03.679,64<' in after.text  # nothing more moved


async def test_the_domains_common_messages_are_translated_the_apis_are_not(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    nobody(api)
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    refused = await _cash_in(api, "10,00", "")
    assert refused.status_code == 400
    assert 'id="m-external_id" data-missing>Obrigatório: preencha este campo.<' in refused.text
    too_short = await _cash_in(api, "10,00", "pedido-1")
    assert too_short.status_code == 201  # and the domain's own words, where the console has none:
    expired = await _cash_in(api, "10,00", "pedido-1")  # the same external id again
    assert expired.status_code == 409
    assert "já existe um cash-in com externalId pedido-1" in expired.text
    wrong_key = await _send(api, "not a key", "10,00")
    assert wrong_key.status_code == 400
    assert 'id="e-pix_key">' in wrong_key.text
    pix_key_error = re.search(r'id="e-pix_key">([^<]+)<', wrong_key.text)
    assert pix_key_error is not None
    assert "chave" in pix_key_error.group(1).lower(), pix_key_error.group(1)
    missing = await api.client.get("/console/charges/" + "a" * 30)
    assert missing.status_code == 404
    assert "Cobrança não encontrada." in missing.text
    # The API answers in its own (the standard's) English, whatever the browser asks for.
    from tests.support import bearer

    answer = await api.client.get("/cob/" + "a" * 30, headers=(await bearer(api.client, client)) | PORTUGUESE)
    assert answer.status_code == 404
    assert "Charge not found." in answer.text
