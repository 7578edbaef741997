"""The console's finishing touches in headless chromium: the holder's name in the header, the styled
"not found" page, required fields that say so beside themselves (in the browser, and from the
server when the browser's check is bypassed), notices coloured by kind, a pending transaction that
turns settled without a reload, the header's search, and a transaction's timeline linked to its
webhook notification and back. Screenshots land in docs/console/."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.wait import WebDriverWait

from tests.browser.conftest import Console, running_console
from tests.browser.test_console_browser import age_session, fill, go, heading, navigate, shot, sign_in
from tests.integration.receiver import running_receiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
async def slow_console(database_server: str, tmp_path: Path) -> AsyncIterator[Console]:
    """The service settling a transfer 6 seconds after it is made: long enough to see it pending."""
    async with running_console(database_server, tmp_path, PIX_NORM_SETTLEMENT_DELAY="6") as running:
        yield running


GREEN, AMBER, RED = "rgba(227, 246, 236, 1)", "rgba(255, 244, 214, 1)", "rgba(255, 241, 240, 1)"


async def test_header_not_found_required_fields_and_notices(
    browser: webdriver.Chrome, console: Console
) -> None:
    driver, url = browser, console.url
    driver.get(url + "/console")
    sign_in(driver, console, console.first)
    assert driver.find_element(By.CSS_SELECTOR, ".top .who").text == "Console Holder"  # not "Account 1"

    # An unknown page, however deep: the console's own 404 in its layout.
    for path in ("/console/nothing-here", "/console/transactions/1/more/depth"):
        driver.get(url + path)
        assert heading(driver) == "Não encontrado"
        assert driver.find_element(By.CSS_SELECTOR, "nav[aria-label=Seções]").is_displayed()
        assert "statusCode" not in driver.page_source
    shot(driver, "not-found")

    # An empty cash-in: each required field says so beside itself, and nothing is sent.
    navigate(driver, driver.find_element(By.LINK_TEXT, "Cash-in"))
    legend = driver.find_element(By.CSS_SELECTOR, ".legend-required").text
    assert "Os campos marcados com * são obrigatórios." in legend
    amount = driver.find_element(By.ID, "f-amount")
    assert amount.get_attribute("required") is not None
    assert amount.get_attribute("aria-required") == "true"
    fill(driver, {"description": "Pedido 5"})
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, "form button.primary").click()
    for name in ("amount", "payer_name", "payer_document"):
        message = driver.find_element(By.ID, f"m-{name}")
        assert message.is_displayed(), name
        assert message.text == "Obrigatório: preencha este campo."
        assert "m-" + name in (
            driver.find_element(By.ID, f"f-{name}").get_attribute("aria-describedby") or ""
        )
    assert not driver.find_element(By.ID, "m-description").is_displayed()
    assert driver.switch_to.active_element.get_attribute("id") == "f-amount"  # the first one to fill
    assert page.is_enabled()  # still this page: nothing was sent
    assert driver.find_element(By.ID, "f-description").get_attribute("value") == "Pedido 5"
    shot(driver, "cash-in-required")
    driver.find_element(By.ID, "f-amount").send_keys("1")
    assert not driver.find_element(By.ID, "m-amount").is_displayed()  # typing hides it

    # The browser's check bypassed: the server says the same beside each field, and keeps the rest.
    driver.execute_script("document.querySelector('main form[method=post]').noValidate = true")
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert driver.find_element(By.ID, "m-payer_name").is_displayed()
    assert driver.find_element(By.ID, "f-description").get_attribute("value") == "Pedido 5"
    assert driver.find_element(By.ID, "f-amount").get_attribute("value") == "1"
    alert = driver.find_element(By.CSS_SELECTOR, ".alert")
    assert alert.value_of_css_property("background-color") == RED  # an error is red

    # A success is green.
    navigate(driver, driver.find_element(By.LINK_TEXT, "Webhooks"))
    fill(driver, {"url": "http://127.0.0.1:9/green"})
    navigate(driver, driver.find_element(By.XPATH, "//button[.='Cadastrar']"))
    notice = driver.find_element(By.CSS_SELECTOR, ".notice")
    assert "cadastrado" in notice.text
    assert notice.value_of_css_property("background-color") == GREEN

    # A warning is amber: the sign-in page of a session that sat idle (aged as in the other suite).
    await age_session(driver, console)
    driver.get(url + "/console")
    warning = driver.find_element(By.CSS_SELECTOR, ".notice")
    assert "Sua sessão expirou" in warning.text
    assert warning.value_of_css_property("background-color") == AMBER


async def test_a_pending_transfer_settles_on_its_page_without_a_reload_and_search_finds_it(
    browser: webdriver.Chrome, slow_console: Console
) -> None:
    console = slow_console
    driver, url, first = browser, console.url, console.first
    driver.get(url + "/console")
    sign_in(driver, console, first)
    navigate(driver, driver.find_element(By.LINK_TEXT, "Receber (sandbox)"))
    fill(driver, {"pix_key": str(first["keys"][0]), "amount": "42,90"})  # type: ignore[index]
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))

    navigate(driver, driver.find_element(By.LINK_TEXT, "Enviar um PIX"))
    fill(driver, {"pix_key": str(console.second["keys"][0]), "amount": "12,34"})  # type: ignore[index]
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert heading(driver).startswith("Transação ")
    page = driver.find_element(By.TAG_NAME, "html")
    status = "//div[@id='live']//dt[.='Situação']/following-sibling::dd[1]"
    shown = driver.find_element(By.XPATH, status).text
    assert "(PENDING)" in shown, shown  # the service's worker settles it a few seconds later
    region = driver.find_element(By.ID, "live")
    assert region.get_attribute("data-poll")
    assert region.get_attribute("aria-live") == "polite"
    shot(driver, "transaction-pending")
    WebDriverWait(driver, 30).until(lambda d: "(CONFIRMED)" in d.find_element(By.XPATH, status).text)
    assert page.is_enabled()  # the same page: no reload, the fragment's content was put in place
    assert region.is_enabled()  # in the same live region, which a screen reader reads out
    assert not driver.find_element(By.ID, "live").get_attribute("data-poll")  # final: no more asking
    assert "Liquidada" in driver.find_element(By.ID, "timeline").text
    shot(driver, "transaction-settled")

    # The header's search: an amount as typed in Brazil, then another account's id.
    box = driver.find_element(By.ID, "search-q")
    navigate(driver, box, "42,90", Keys.ENTER)
    assert heading(driver) == "Buscar"
    found = driver.find_element(By.ID, "found-transactions").text.replace("\xa0", " ")
    assert "+R$ 42,90" in found
    assert "12,34" not in found
    shot(driver, "search")

    navigate(driver, driver.find_element(By.XPATH, "//button[.='Sair']"))
    sign_in(driver, console, console.second)
    navigate(driver, driver.find_element(By.LINK_TEXT, "Receber (sandbox)"))  # a PIX of its own
    fill(driver, {"pix_key": str(console.second["keys"][0]), "amount": "42,90"})  # type: ignore[index]
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    theirs = driver.current_url.split("endToEndId=", 1)[1]
    navigate(driver, driver.find_element(By.XPATH, "//button[.='Sair']"))
    sign_in(driver, console, first)
    navigate(driver, driver.find_element(By.ID, "search-q"), theirs, Keys.ENTER)
    assert "Nenhuma transação." in driver.find_element(By.ID, "found-transactions").text  # not the owner's
    box = driver.find_element(By.ID, "search-q")
    driver.execute_script("arguments[0].removeAttribute('maxlength')", box)
    navigate(driver, box, "9" * 300, Keys.ENTER)
    assert "at most 100 characters" in driver.find_element(By.ID, "e-q").text


async def test_a_transactions_timeline_follows_its_notification_and_links_both_ways(
    browser: webdriver.Chrome, console: Console
) -> None:
    driver, url, first = browser, console.url, console.first
    driver.get(url + "/console")
    sign_in(driver, console, first)
    async with running_receiver() as receiver:
        await go(driver, driver.find_element(By.LINK_TEXT, "Webhooks"))
        fill(driver, {"url": receiver.url("/timeline")})
        await go(driver, driver.find_element(By.XPATH, "//button[.='Cadastrar']"))
        await go(driver, driver.find_element(By.LINK_TEXT, "Receber (sandbox)"))
        fill(driver, {"pix_key": str(first["keys"][0]), "amount": "33,00"})  # type: ignore[index]
        await go(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
        await go(driver, driver.find_element(By.CSS_SELECTOR, "table tbody a"))
        assert heading(driver).startswith("Transação ")
        await receiver.wait_for(1, "/timeline")
        deadline = time.monotonic() + 30
        while "Entregue" not in driver.find_element(By.ID, "timeline").text:  # no reload: the page follows
            assert time.monotonic() < deadline, driver.find_element(By.ID, "timeline").text
            await asyncio.sleep(0.5)
    lines = driver.find_element(By.ID, "timeline").text
    assert "Criada" in lines
    assert "Liquidada" in lines
    assert "Notificação de webhook cash_in: Entregue, 1 tentativa" in lines
    driver.execute_script("document.getElementById('timeline').scrollIntoView()")
    shot(driver, "timeline")
    await go(driver, driver.find_element(By.CSS_SELECTOR, "#timeline a"))
    assert heading(driver).startswith("Entrega ")
    await go(driver, driver.find_element(By.XPATH, "//dt[.='Sobre o PIX']/following-sibling::dd[1]/a"))
    assert heading(driver) == "Buscar"
    found = driver.find_element(By.ID, "found-transactions").text.replace("\xa0", " ")
    assert "+R$ 33,00" in found  # back to the PIX
