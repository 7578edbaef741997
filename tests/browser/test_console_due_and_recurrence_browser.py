"""The pages of a due-date charge (``cobv``) and of a recurrence (Pix Automático) in headless
chromium, against ``pixweb serve`` as a process, both made through the API: a late ``cobv`` shows
what is due today with its parts (the fine and interest of the days late) and its terms, in
Portuguese and, after the header's switch, in English; a recurrence its terms, history and
recurring charge. Both pass axe-core; their screenshots land in docs/console/."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from pixcore.charges.cobv import amount_breakdown, payer_day
from pixcore.charges.terms import (
    DueTerms,
    Fine,
    FineModality,
    Interest,
    InterestModality,
    Rebate,
    RebateModality,
)
from pixcore.clock import parse_timestamp
from pixcore.recurrences.closing import today_of
from pixweb.console.language import language
from tests.browser.conftest import Console
from tests.browser.test_console_accessibility import axe_violations, blocking
from tests.browser.test_console_browser import heading, navigate, shot, sign_in
from tests.e2e.recurrences.conftest import PAYER_ISPB, cobr_body, later, rec_body
from tests.faults.processes import run_cli
from tests.support import certificate_header, random_cpf

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STD = "/bcb/v2"


async def api_auth(console: Console, account: dict[str, Any], folder: Path) -> dict[str, str]:
    """A bearer header for ``account`` on the running service (its certificate made by the operator)."""
    env = console.process.env
    await run_cli(
        env, "pixweb", "admin", "cert", "create", f"--account={account['accountId']}", f"--out={folder}"
    )
    async with httpx.AsyncClient(base_url=console.url) as http:
        answer = await http.post(
            "/api/auth/token",
            json={"clientId": account["clientId"], "clientSecret": account["clientSecret"]},
            headers={"X-SSL-Client-Cert": certificate_header((folder / "client-cert.pem").read_bytes())},
        )
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


async def service_now(console: Console) -> datetime:
    """The service clock (the operator's sandbox clock, which the tests move)."""
    shown = await run_cli(console.process.env, "pixweb", "admin", "clock", "show")
    return parse_timestamp(shown["now"])


def text_of(driver: webdriver.Chrome, element_id: str) -> str:
    """The element's text with Babel's no-break spaces as plain ones."""
    return driver.find_element(By.ID, element_id).text.replace("\xa0", " ")


def plain(text: str) -> str:
    return text.replace("\xa0", " ")


def parts_shown(driver: webdriver.Chrome) -> dict[str, str]:
    """The ``due-parts`` list: each label and its text."""
    listed = driver.find_element(By.ID, "due-parts")
    labels = [dt.text for dt in listed.find_elements(By.TAG_NAME, "dt")]
    texts = [plain(dd.text) for dd in listed.find_elements(By.TAG_NAME, "dd")]
    return dict(zip(labels, texts, strict=True))


def fits_its_box(driver: webdriver.Chrome, element_id: str) -> bool:
    """Nothing in the element runs out of it sideways (a long line, a wide table)."""
    return bool(
        driver.execute_script(
            "const e = document.getElementById(arguments[0]); return e.scrollWidth <= e.clientWidth + 1;",
            element_id,
        )
    )


def fit_the_page(driver: webdriver.Chrome) -> None:
    """The window as tall as the page, so that its screenshot holds all of it."""
    height, chrome = driver.execute_script(
        "return [document.documentElement.scrollHeight, window.outerHeight - window.innerHeight];"
    )
    driver.set_window_size(1280, height + chrome)


async def test_a_late_due_date_charge_in_both_languages(
    browser: webdriver.Chrome, console: Console, tmp_path: Path
) -> None:
    driver, url, first = browser, console.url, console.first
    auth = await api_auth(console, first, tmp_path / "cert")
    due = payer_day(await service_now(console)) + timedelta(days=3)
    body = {
        "calendario": {"dataDeVencimento": due.isoformat(), "validadeAposVencimento": 30},
        "devedor": {"cpf": "52998224725", "nome": "João Souza"},
        "valor": {
            "original": "200.00",
            "multa": {"modalidade": 2, "valorPerc": "2.00"},
            "juros": {"modalidade": 3, "valorPerc": "1.00"},
            "abatimento": {"modalidade": 1, "valorPerc": "10.00"},
        },
        "solicitacaoPagador": "Mensalidade do clube",
    }
    txid = "browserdue0000000000000001"
    async with httpx.AsyncClient(base_url=url) as http:
        created = await http.put(f"/cobv/{txid}", json=body, headers=auth)
    assert created.status_code == 201, created.text
    # Twelve days later (the operator's sandbox clock): nine days late, so a fine and interest.
    await run_cli(console.process.env, "pixweb", "admin", "clock", "advance", f"--seconds={12 * 86_400}")
    now = await service_now(console)
    terms = DueTerms(
        20000,
        due,
        30,
        Fine(FineModality.PERCENT, 200),
        Interest(InterestModality.PERCENT_PER_MONTH_CALENDAR_DAYS, 100),
        Rebate(RebateModality.FIXED, 1000),
    )
    parts = amount_breakdown(terms, payer_day(now))
    assert parts.rebate == 1000
    assert parts.fine > 0
    assert parts.interest > 0

    driver.get(url + "/console")
    sign_in(driver, console, first)
    driver.get(url + f"/console/charges/{txid}")
    assert heading(driver) == f"Cobrança {txid}"
    portuguese = language("pt_BR")
    assert text_of(driver, "due-today") == plain(portuguese.money(parts.final))
    assert driver.find_element(By.ID, "due-today").is_displayed()
    assert parts_shown(driver) == {
        "Valor original": plain(portuguese.money(20000)),
        "Abatimento": "\N{MINUS SIGN}" + plain(portuguese.money(1000)),
        "Multa": "+" + plain(portuguese.money(parts.fine)),
        "Juros": "+" + plain(portuguese.money(parts.interest)),
    }
    terms_text = text_of(driver, "due-terms")
    assert "2,00% do valor" in terms_text
    assert "1,00% ao mês, em dias corridos" in terms_text
    assert text_of(driver, "payable-until") == plain(portuguese.day(terms.last_payable_day()))
    assert driver.find_element(By.ID, "charge-status").text == "Aberta"
    code = driver.find_element(By.ID, "copy-code").get_attribute("value") or ""
    assert code.startswith("000201")
    # The figure of the day stands out; its parts read as a column, their right edges aligned.
    assert float(driver.find_element(By.ID, "due-today").value_of_css_property("font-size")[:-2]) >= 24
    ends = driver.execute_script(
        "return [...document.querySelectorAll('#due-parts dd')].map(dd => {"
        " const text = document.createRange(); text.selectNodeContents(dd);"
        " return Math.round(text.getBoundingClientRect().right); });"
    )  # where each figure's text ends (a dd's box spans its column whatever its text's alignment)
    assert len(ends) == 4
    assert len(set(ends)) == 1, ends
    for element_id in ("live", "due-parts", "due-terms"):
        assert fits_its_box(driver, element_id), element_id
    assert blocking(axe_violations(driver)) == []
    shot(driver, "charge-due")

    # On a phone the long ids wrap (the heading's too): nothing runs off sideways.
    driver.set_window_size(420, 900)
    assert fits_its_box(driver, "main")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    driver.set_window_size(1280, 1000)

    # The header's switch: the same page in English, the same amounts in its format.
    navigate(driver, driver.find_element(By.XPATH, "//button[.='English']"))
    assert heading(driver) == f"Charge {txid}"
    english = language("en")
    assert text_of(driver, "due-today") == plain(english.money(parts.final))
    assert parts_shown(driver) == {
        "Original value": plain(english.money(20000)),
        "Rebate": "\N{MINUS SIGN}" + plain(english.money(1000)),
        "Fine": "+" + plain(english.money(parts.fine)),
        "Interest": "+" + plain(english.money(parts.interest)),
    }
    assert "1.00% a month, counted in calendar days" in text_of(driver, "due-terms")
    assert blocking(axe_violations(driver)) == []


async def test_a_recurrence_with_its_charge(
    browser: webdriver.Chrome, console: Console, tmp_path: Path
) -> None:
    driver, url, first = browser, console.url, console.first
    auth = await api_auth(console, first, tmp_path / "cert")
    now = await service_now(console)
    today = today_of(now)
    payer = {"document": random_cpf(), "ispb": PAYER_ISPB}
    async with httpx.AsyncClient(base_url=url, headers=auth) as http:
        location = await http.post(STD + "/locrec")
        assert location.status_code == 201, location.text
        body = rec_body(today, debtor=payer["document"]) | {"loc": location.json()["id"]}
        created = await http.post(STD + "/rec", json=body)
        assert created.status_code == 201, created.text
        rec_id = created.json()["idRec"]
        read = await http.get(f"{STD}/rec/{rec_id}")
        assert read.status_code == 200, read.text
        authorized = await http.post(
            "/sandbox/rec/authorize",
            json={"pixCopiaECola": read.json()["dadosQR"]["pixCopiaECola"], "payer": payer},
        )
        assert authorized.status_code == 200, authorized.text
        funded = await http.put(
            f"/sandbox/payers/{payer['ispb']}/{payer['document']}", json={"balance": 100.0}
        )
        assert funded.status_code == 200, funded.text
        charge = await http.post(
            STD + "/cobr", json=cobr_body(rec_id, later(today, 3), first["number"], "35.00")
        )
        assert charge.status_code == 201, charge.text
        txid = charge.json()["txid"]

    driver.get(url + "/console")
    sign_in(driver, console, first)
    navigate(driver, driver.find_element(By.LINK_TEXT, "Recorrências"))
    assert heading(driver) == "Recorrências"
    navigate(driver, driver.find_element(By.CSS_SELECTOR, f"a[href='/console/recurrences/{rec_id}']"))
    assert heading(driver) == f"Recorrência {rec_id}"
    assert driver.find_element(By.ID, "recurrence-status").text == "Aprovada"
    assert driver.find_element(By.ID, "periodicity").text == "Mensal"
    assert text_of(driver, "amount") == "R$ 35,00"
    assert text_of(driver, "payer") == f"{payer['document']} na instituição {PAYER_ISPB}"
    history = driver.find_element(By.ID, "recurrence-history").text
    assert re.findall(r"Aguardando aprovação|Aprovada", history) == ["Aguardando aprovação", "Aprovada"]
    charges = driver.find_element(By.ID, "recurring-charges")
    row = charges.find_element(By.XPATH, f".//tr[td/code[.='{txid}']]")
    assert later(today, 3).strftime("%d/%m/%Y") in row.text
    assert "R$ 35,00" in plain(row.text)
    assert driver.find_element(By.ID, f"charge-status-{txid}").text == "Aberta"
    attempts = row.find_element(By.CSS_SELECTOR, "ul.attempts")
    assert attempts.value_of_css_property("list-style-type") == "none"  # a line, not a bullet list
    for element_id in ("recurrence-terms", "recurrence-history", "recurring-charges"):
        assert fits_its_box(driver, element_id), element_id
    assert blocking(axe_violations(driver)) == []
    driver.set_window_size(420, 900)  # on a phone the page does not run off sideways: its cards scroll
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert blocking(axe_violations(driver)) == []  # a card that scrolls is reached with the keyboard too
    driver.set_window_size(1280, 1000)
    fit_the_page(driver)  # its recurring charges too, below the fold at the usual height
    shot(driver, "recurrence")
