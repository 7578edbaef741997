"""The console in headless chromium against ``pixweb serve`` as a process: the money scenario (sign in,
receive, charge and its QR code, pay it, send, sign out), then what a browser must not be able to do
(a form without its CSRF token, another account's charge) and what it must see (the CSP, an expired
session going back to the page asked for); then the second slice (webhooks to a local receiver, a
delivery's payload, a test event, a refund, a cash-in, the sandbox). Each page's screenshot lands in
docs/console/."""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
from collections.abc import Callable
from decimal import Decimal

import httpx
import pytest
import zxingcpp
from PIL import Image
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from pixcore.accounts.sessions import session_id
from pixweb.console.session import COOKIE
from tests.browser.conftest import SCREENSHOTS, Console
from tests.integration.receiver import running_receiver
from tests.support import fetch_rows

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def shot(driver: webdriver.Chrome, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def fill(driver: webdriver.Chrome, values: dict[str, str]) -> None:
    """Type into fields found by their label's ``for`` (labelled fields are what a person uses)."""
    for name, value in values.items():
        field = driver.find_element(By.ID, f"f-{name}")
        field.clear()
        field.send_keys(value)


def navigate(driver: webdriver.Chrome, element: WebElement, *keys: str) -> None:
    """Click (or type ``keys`` into) ``element`` and wait for the next page to replace this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    if keys:
        element.send_keys(*keys)
    else:
        element.click()
    WebDriverWait(driver, 10).until(_replaced(page))


def _replaced(page: WebElement) -> Callable[[webdriver.Chrome], bool]:
    """``staleness_of(page)``, also when chromedriver asks about the old page while the new one is
    being put in (it then answers "Node with given id does not belong to the document" instead of
    a stale element: seen in CI, a page that had in fact been replaced)."""

    def gone(_: webdriver.Chrome) -> bool:
        try:
            page.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" not in (exc.msg or ""):
                raise
            return True
        return False

    return gone


def sign_in(driver: webdriver.Chrome, console: Console, account: dict[str, object]) -> None:
    fill(driver, {"client_id": str(account["clientId"]), "client_secret": str(account["clientSecret"])})
    navigate(driver, driver.find_element(By.ID, "f-client_secret"), Keys.ENTER)  # the keyboard submits


def heading(driver: webdriver.Chrome) -> str:
    return driver.find_element(By.TAG_NAME, "h1").text


def balance(driver: webdriver.Chrome, which: str) -> Decimal:
    text = driver.find_element(By.ID, f"balance-{which}").text.replace("\xa0", " ")
    assert text.startswith("R$ "), text  # R$ 1.234,56
    return Decimal(text.removeprefix("R$ ").replace(".", "").replace(",", "."))


def cookie_header(driver: webdriver.Chrome) -> dict[str, str]:
    value = driver.get_cookie(COOKIE)
    assert value is not None
    return {"Cookie": f"{COOKIE}={value['value']}"}


async def age_session(driver: webdriver.Chrome, console: Console) -> None:
    """The browser's session, as if last used an hour ago: the next page finds it expired."""
    cookie = driver.get_cookie(COOKIE)
    assert cookie is not None
    aged = await fetch_rows(
        console.database_url,
        "UPDATE console_sessions SET created_at = created_at - interval '1 hour',"
        " last_seen_at = last_seen_at - interval '1 hour' WHERE id = $1 RETURNING id",
        session_id(cookie["value"]),
    )
    assert len(aged) == 1


async def test_the_money_scenario_in_a_browser(browser: webdriver.Chrome, console: Console) -> None:
    driver, url, first = browser, console.url, console.first
    driver.get(url + "/")
    assert driver.current_url.startswith(url + "/console/sign-in?next=")
    assert heading(driver) == "Entrar"
    shot(driver, "sign-in")
    sign_in(driver, console, first)
    assert driver.current_url == url + "/console"
    assert balance(driver, "available") == Decimal("0.00")

    # The sandbox's outside payer pays one of our keys.
    navigate(driver, driver.find_element(By.LINK_TEXT, "Receber (sandbox)"))
    fill(driver, {"pix_key": "not a key", "amount": "100,001"})
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert driver.find_element(By.ID, "e-pix_key").text  # the rule's message, beside the field
    assert (
        driver.find_element(By.ID, "e-amount").text == "No máximo duas casas decimais (centavos), como 42,90."
    )
    assert driver.find_element(By.ID, "f-amount").get_attribute("value") == "100,001"  # kept
    shot(driver, "receive")
    fill(driver, {"pix_key": str(first["keys"][0]), "amount": "100,00"})  # type: ignore[index]
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert heading(driver) == "Transações"
    assert "+R$ 100,00" in driver.find_element(By.TAG_NAME, "table").text.replace("\xa0", " ")
    shot(driver, "transactions")

    # A charge, its QR image decoded and compared with its copy-and-paste code.
    navigate(driver, driver.find_element(By.LINK_TEXT, "Cobranças"))
    fill(driver, {"amount": "12,34", "payer_request": "Pedido 42"})
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button.primary"))
    assert heading(driver).startswith("Cobrança ")
    assert driver.find_element(By.ID, "charge-status").text == "Aberta"  # ATIVA
    code = driver.find_element(By.ID, "copy-code").get_attribute("value")
    assert code is not None
    assert code.startswith("000201")
    image = Image.open(io.BytesIO(driver.find_element(By.ID, "qr").screenshot_as_png))
    decoded = zxingcpp.read_barcodes(image)
    assert [found.text for found in decoded] == [code]
    copy = driver.find_element(By.CSS_SELECTOR, "button[data-copy]")
    assert copy.is_displayed()  # the script file ran under the CSP and revealed the button
    copy.click()
    assert driver.find_element(By.ID, "copy-status").text in {
        "Copiado.",
        "Selecionado: tecle Ctrl+C para copiar.",
    }
    shot(driver, "charge")
    navigate(driver, driver.find_element(By.XPATH, "//button[contains(., 'Pagar como pagador externo')]"))
    assert driver.find_element(By.ID, "charge-status").text == "Paga"  # CONCLUIDA
    assert "Paga por" in driver.find_element(By.CSS_SELECTOR, "dl.details").text
    txid = driver.find_element(By.ID, "txid").text
    navigate(driver, driver.find_element(By.LINK_TEXT, "Cobranças"))
    row = driver.find_element(By.XPATH, f"//tr[td/a/code[.='{txid}']]").text
    assert "Paga" in row  # listed, paid, in the same word
    shot(driver, "charges")

    # Send a PIX to the other account's key; the form sent twice sends once.
    navigate(driver, driver.find_element(By.LINK_TEXT, "Enviar um PIX"))
    shot(driver, "send")
    fill(driver, {"pix_key": str(console.second["keys"][0]), "amount": "10,00"})  # type: ignore[index]
    form = {
        name: driver.find_element(By.NAME, name).get_attribute("value") or ""
        for name in ("csrf", "idempotency_key", "pix_key", "amount")
    }
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert heading(driver).startswith("Transação ")
    shot(driver, "transaction")
    sent = driver.current_url.removeprefix(url)
    # The same form sent again (a second click that raced the first): the same transfer, sent once.
    async with httpx.AsyncClient(base_url=url) as http:
        again = await http.post("/console/send", data=form, headers=cookie_header(driver))
        assert (again.status_code, again.headers["location"]) == (303, sent)

    navigate(driver, driver.find_element(By.LINK_TEXT, "Visão geral"))
    # Available drops when the transfer is reserved; blocked holds it until it settles.
    assert balance(driver, "available") == Decimal("100.00") + Decimal("12.34") - Decimal("10.00")
    assert len(driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.bar-in")) == 30
    deadline = time.monotonic() + 15
    while balance(driver, "blocked") != Decimal("0.00"):  # the service's worker settles the transfer
        assert time.monotonic() < deadline, "the transfer did not settle"
        await asyncio.sleep(0.5)
        driver.refresh()
    assert balance(driver, "total") == Decimal("102.34")
    chart = driver.find_element(By.CSS_SELECTOR, "svg.chart").get_attribute("innerHTML") or ""
    assert "entrada: R$&nbsp;112,34" in chart  # innerHTML writes the no-break space so
    assert "saída: R$&nbsp;10,00" in chart
    shot(driver, "overview")

    navigate(driver, driver.find_element(By.XPATH, "//button[.='Sair']"))
    assert heading(driver) == "Entrar"
    driver.get(url + "/console")
    assert heading(driver) == "Entrar"  # signed out for good


async def test_what_a_browser_must_not_do_and_must_see(browser: webdriver.Chrome, console: Console) -> None:
    driver, url = browser, console.url
    driver.get(url + "/console")
    sign_in(driver, console, console.first)
    navigate(driver, driver.find_element(By.LINK_TEXT, "Cobranças"))
    fill(driver, {"amount": "5,00"})
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button.primary"))
    charge_path = driver.current_url.removeprefix(url)
    assert charge_path.startswith("/console/charges/")

    # A form without its CSRF token is refused, and nothing is done.
    driver.get(url + "/console/charges")
    fill(driver, {"amount": "7,00"})
    driver.execute_script("document.querySelector('main form[method=post] input[name=csrf]').remove()")
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button.primary"))
    assert heading(driver) == "Formulário expirado"

    # The CSP (and the other headers) come with every page.
    async with httpx.AsyncClient(base_url=url) as http:
        page = await http.get("/console", headers=cookie_header(driver))
        assert page.status_code == 200
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert page.headers["x-frame-options"] == "DENY"

    # Account B cannot see account A's charge.
    navigate(driver, driver.find_element(By.XPATH, "//button[.='Sair']"))
    sign_in(driver, console, console.second)
    driver.get(url + charge_path)
    assert heading(driver) == "Não encontrado"
    async with httpx.AsyncClient(base_url=url) as http:
        for path in (charge_path, charge_path + "/qr.png"):
            answer = await http.get(path, headers=cookie_header(driver))
            assert answer.status_code == 404, path

    # An idle session goes to sign-in, then back to the page asked for.
    await age_session(driver, console)
    driver.get(url + "/console/transactions?type=PAYMENT")
    assert heading(driver) == "Entrar"
    assert "Sua sessão expirou" in driver.find_element(By.CSS_SELECTOR, ".notice").text
    sign_in(driver, console, console.first)
    assert driver.current_url == url + "/console/transactions?type=PAYMENT"
    assert driver.find_element(By.ID, "f-type").get_attribute("value") == "PAYMENT"


async def go(driver: webdriver.Chrome, element: WebElement) -> None:
    """``navigate`` off the event loop: the local webhook receiver answers the service meanwhile."""
    await asyncio.to_thread(navigate, driver, element)


async def test_webhooks_refunds_cash_in_and_the_sandbox_in_a_browser(
    browser: webdriver.Chrome, console: Console
) -> None:
    driver, url, first = browser, console.url, console.first
    driver.get(url + "/console")
    sign_in(driver, console, first)
    async with running_receiver() as receiver:
        # Register a webhook to a local receiver (the service allows private addresses here).
        await go(driver, driver.find_element(By.LINK_TEXT, "Webhooks"))
        assert "Eventos de teste indisponíveis" not in driver.page_source  # the service has a notifier
        fill(driver, {"url": "ftp://nowhere"})
        await go(driver, driver.find_element(By.XPATH, "//button[.='Cadastrar']"))
        assert driver.find_element(By.ID, "e-url").text.startswith("url: ")  # the rule, beside the field
        fill(driver, {"url": receiver.url("/console"), "headers": "X-Receiver-Token: t0k3n"})
        await go(driver, driver.find_element(By.XPATH, "//button[.='Cadastrar']"))
        assert "cadastrado para cash_in" in driver.find_element(By.CSS_SELECTOR, ".notice").text
        await go(driver, driver.find_element(By.XPATH, "//button[.='Mostrar segredo']"))
        secret = driver.find_element(By.ID, "secret").text
        assert secret.startswith("whsec_")

        # Send a test event: the receiver gets a signed PING and the page says what it answered.
        await go(driver, driver.find_element(By.XPATH, "//button[.='Enviar um evento de teste']"))
        assert "o receptor respondeu 200" in driver.find_element(By.ID, "test-result").text
        ping = receiver.at("/console")[-1]
        pinged = ping.verify(secret)  # the signature checks out (verify raises otherwise)
        assert isinstance(pinged, dict)
        assert pinged["type"] == "PING"
        assert ping.headers["x-receiver-token"] == "t0k3n"
        shot(driver, "webhooks")

        # A payment comes in: its cash_in notification is delivered and listed with its payload.
        await go(driver, driver.find_element(By.LINK_TEXT, "Receber (sandbox)"))
        fill(driver, {"pix_key": str(first["keys"][0]), "amount": "40,00"})  # type: ignore[index]
        await go(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
        await receiver.wait_for(2, "/console")
        paid = receiver.at("/console")[-1]
        event = paid.verify(secret)
        assert isinstance(event, dict)
        driver.get(url + "/console/webhooks/deliveries")
        deadline = time.monotonic() + 15
        while "Entregue" not in driver.find_element(By.TAG_NAME, "table").text:
            assert time.monotonic() < deadline, "the delivery was not recorded"
            await asyncio.sleep(0.5)
            await asyncio.to_thread(driver.refresh)
        shot(driver, "deliveries")
        await go(driver, driver.find_element(By.CSS_SELECTOR, "table tbody tr td a"))
        assert heading(driver).startswith("Entrega ")
        assert driver.find_element(By.ID, "delivery-status").text == "Entregue"
        shown = driver.find_element(By.ID, "payload").text
        assert json.loads(shown) == event  # the payload, exactly as the receiver got it
        shot(driver, "delivery")

    # Refund part of the received PIX, from its transaction's page.
    await go(driver, driver.find_element(By.LINK_TEXT, "Transações"))
    await go(driver, driver.find_element(By.XPATH, "//tr[contains(., '40,00')]/td/a"))
    await go(driver, driver.find_element(By.LINK_TEXT, "Devolver este PIX"))
    fill(driver, {"amount": "50,00"})
    await go(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert "restam no máximo" in driver.find_element(By.ID, "e-amount").text
    shot(driver, "refunds")
    fill(driver, {"amount": "15,00", "description": "Item devolvido"})
    await go(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert heading(driver).startswith("Devolução ")
    e2e = driver.current_url.removeprefix(url + "/console/refunds/").split("/")[0]
    assert re.fullmatch(r"E\w{31}", e2e), e2e
    assert driver.find_element(By.ID, "refund-status").text in {"Pendente", "Confirmada"}
    shot(driver, "refund")

    # A cash-in QR code, decoded and compared with its code.
    await go(driver, driver.find_element(By.LINK_TEXT, "Cash-in"))
    fill(
        driver,
        {
            "amount": "1.025,00",
            "description": "Pedido 77",
            "expiration": "3600",
            "payer_name": "Ana Payer",
            "payer_document": "11144477735",
        },
    )
    await go(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    code = driver.find_element(By.ID, "copy-code").get_attribute("value")
    assert code is not None
    assert code.startswith("000201")
    image = Image.open(io.BytesIO(driver.find_element(By.ID, "qr").screenshot_as_png))
    assert [found.text for found in zxingcpp.read_barcodes(image)] == [code]
    shot(driver, "cash-in")

    # The sandbox: an outside key, and a MED on the receipt; no clock form for this account.
    await go(driver, driver.find_element(By.LINK_TEXT, "Sandbox"))
    assert not driver.find_elements(By.ID, "clock-form")
    fill(driver, {"pix_key": "outside@example.com", "name": "Outside Person"})
    await go(driver, driver.find_element(By.XPATH, "//button[.='Adicionar chave']"))
    assert "outside@example.com está no diretório" in driver.find_element(By.ID, "notice").text
    fill(driver, {"end_to_end_id": e2e})
    await go(driver, driver.find_element(By.XPATH, "//button[.='Abrir MED']"))
    assert driver.find_element(By.ID, "med-status").text == "Aberta"  # CREATED
    shot(driver, "sandbox")
    await go(driver, driver.find_element(By.XPATH, "//button[starts-with(., 'Rejeitar')]"))
    assert driver.find_element(By.ID, "med-status").text == "Rejeitada"
