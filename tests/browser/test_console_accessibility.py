"""The console is usable without a mouse and passes axe-core: every page (sign-in, overview,
transactions, a transaction with its timeline, charges, a charge, send, the sandbox's receive, a
form showing its errors and one its empty required fields, the not-found page, the search and its
refusal, a success notice) has no axe-core violation of impact "serious" or "critical", and the
sign-in form is reached with Tab and sent with Enter.

axe-core is vendored as a test fixture (tests/browser/axe, with its licence) and injected by Selenium
into the page under test; the service never serves it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.wait import WebDriverWait

from tests.browser.conftest import Console
from tests.browser.test_console_browser import fill, heading, navigate, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = Path(__file__).parent / "axe" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
BLOCKING = {"serious", "critical"}

RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ["violations"]})
  .then(result => done(JSON.stringify(result.violations)))
  .catch(error => done(JSON.stringify({error: String(error)})));
"""


def axe_violations(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """axe-core's violations on the current page (injected through WebDriver, not by the page)."""
    if not driver.execute_script("return typeof window.axe !== 'undefined'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    driver.set_script_timeout(30)
    found = json.loads(driver.execute_async_script(RUN_AXE))
    assert isinstance(found, list), found  # not {"error": ...}
    return found


def blocking(violations: list[dict[str, Any]]) -> list[str]:
    """A line per serious or critical violation: the rule, and where."""
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in violations
        if v.get("impact") in BLOCKING
    ]


def test_the_vendored_axe_is_the_pinned_release() -> None:
    assert hashlib.sha256(AXE.read_bytes()).hexdigest() == AXE_SHA256
    assert AXE.read_text(encoding="utf-8").startswith("/*! axe v4.14.1")
    assert (AXE.parent / "LICENSE").read_text(encoding="utf-8").startswith("Mozilla Public License")


async def test_every_page_passes_axe_core(browser: webdriver.Chrome, console: Console) -> None:
    driver, url, first = browser, console.url, console.first
    checked: dict[str, list[str]] = {}

    def check(name: str) -> None:
        violations = axe_violations(driver)
        checked[name] = blocking(violations)

    driver.get(url + "/console")
    assert heading(driver) == "Entrar"
    check("sign-in")
    fill(driver, {"client_id": str(first["clientId"]), "client_secret": "wrong"})
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    check("sign-in, refused")
    sign_in(driver, console, first)
    assert heading(driver) == "Visão geral"

    navigate(driver, driver.find_element(By.LINK_TEXT, "Receber (sandbox)"))
    check("receive (sandbox)")
    fill(driver, {"pix_key": "not a key", "amount": "1"})
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert driver.find_element(By.ID, "e-pix_key").text
    check("receive, with errors")
    fill(driver, {"pix_key": str(first["keys"][0]), "amount": "25,00"})  # type: ignore[index]
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert heading(driver) == "Transações"
    check("transactions")
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "table tbody a"))
    assert heading(driver).startswith("Transação ")
    check("a transaction")
    driver.get(url + "/console/transactions?size=0")
    assert driver.find_element(By.CSS_SELECTOR, ".alert").text
    check("transactions, refused filter")

    navigate(driver, driver.find_element(By.LINK_TEXT, "Cobranças"))
    check("charges")
    fill(driver, {"amount": "3,21"})
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[method=post] button.primary"))
    assert heading(driver).startswith("Cobrança ")
    check("a charge")

    navigate(driver, driver.find_element(By.LINK_TEXT, "Recorrências"))
    assert heading(driver) == "Recorrências"
    check("recurrences, none yet")

    navigate(driver, driver.find_element(By.LINK_TEXT, "Enviar um PIX"))
    check("send")
    fill(driver, {"pix_key": str(console.second["keys"][0]), "amount": "1,00"})  # type: ignore[index]
    navigate(driver, driver.find_element(By.CSS_SELECTOR, "form button.primary"))
    assert heading(driver).startswith("Transação ")
    check("a transaction sent")
    navigate(driver, driver.find_element(By.LINK_TEXT, "Transações"))
    assert driver.find_elements(By.CSS_SELECTOR, "td.debit")
    assert driver.find_elements(By.CSS_SELECTOR, "td.credit")
    check("transactions, in and out")
    navigate(driver, driver.find_element(By.LINK_TEXT, "Visão geral"))
    assert driver.find_elements(By.CSS_SELECTOR, "svg.chart rect.bar-in")
    check("overview")
    driver.get(url + "/console/charges/" + "N" * 30)
    assert heading(driver) == "Não encontrado"
    check("not found")
    driver.get(url + "/console/nothing/here/at/all")
    assert heading(driver) == "Não encontrado"
    check("not found, an unknown page")
    driver.get(url + "/console/search?q=25,00")
    assert driver.find_elements(By.CSS_SELECTOR, "#found-transactions td.credit")
    check("search")
    driver.get(url + "/console/search?q=hello")
    assert driver.find_element(By.ID, "e-q").text
    check("search, refused")
    driver.get(url + "/console/cash-in")
    driver.find_element(By.CSS_SELECTOR, "form button.primary").click()
    assert driver.find_element(By.ID, "m-amount").is_displayed()
    check("cash-in, required fields empty")
    navigate(driver, driver.find_element(By.LINK_TEXT, "Webhooks"))
    fill(driver, {"url": "http://127.0.0.1:9/axe"})
    navigate(driver, driver.find_element(By.XPATH, "//button[.='Cadastrar']"))
    assert driver.find_element(By.CSS_SELECTOR, ".notice.success").text
    check("webhooks, a success notice")

    assert {name: problems for name, problems in checked.items() if problems} == {}
    assert len(checked) == 20


def focused(driver: webdriver.Chrome) -> str:
    """The focused element: its id, or its tag and text."""
    element = driver.switch_to.active_element
    return element.get_attribute("id") or f"{element.tag_name}:{element.text}"


async def test_sign_in_with_the_keyboard_alone(browser: webdriver.Chrome, console: Console) -> None:
    """Tab from the top of the page: the skip link, the language switch, the client id, the
    secret, the button; the fields take what is typed into them, and Enter in the last field signs in."""
    driver, url, first = browser, console.url, console.first
    driver.get(url + "/console/transactions")
    assert heading(driver) == "Entrar"
    keys = ActionChains(driver)
    order = []
    for _ in range(6):
        keys.send_keys(Keys.TAB).perform()
        order.append(focused(driver))
    assert order == [
        "a:Pular para o conteúdo",
        "button:Português",
        "button:English",
        "f-client_id",
        "f-client_secret",
        "button:Entrar",
    ]
    assert driver.switch_to.active_element.is_displayed()  # the skip link shows when focused

    keys.key_down(Keys.SHIFT).send_keys(Keys.TAB).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert focused(driver) == "f-client_id"
    keys.send_keys(str(first["clientId"]), Keys.TAB, str(first["clientSecret"])).perform()
    assert focused(driver) == "f-client_secret"
    page = driver.find_element(By.TAG_NAME, "html")
    keys.send_keys(Keys.ENTER).perform()
    WebDriverWait(driver, 10).until(expected_conditions.staleness_of(page))
    assert driver.current_url == url + "/console/transactions"  # back to the page asked for
    assert heading(driver) == "Transações"

    # Signed in, the skip link still comes first and leads past the navigation to the content.
    keys.send_keys(Keys.TAB).perform()
    assert focused(driver) == "a:Pular para o conteúdo"
    keys.send_keys(Keys.ENTER).perform()
    assert driver.current_url.endswith("#main")
    keys.send_keys(Keys.TAB).perform()
    inside_main = driver.execute_script(
        "return document.getElementById('main').contains(document.activeElement)"
    )
    assert inside_main, focused(driver)
