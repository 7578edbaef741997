"""The API reference at ``/schema`` in a real browser: Debian's chromium loads it
from a running service with every other host unreachable, asks no other host for anything, and
renders every operation. ``PIX_SCREENSHOTS`` (or docs/) receives ``schema-page.png``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.wait import WebDriverWait

from tests.browser.conftest import DOCS_CONSOLE, SCREENSHOTS, Console, requested

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_reference_page_renders_asking_no_other_host(console: Console, browser: webdriver.Chrome) -> None:
    browser.get(f"{console.url}/schema")
    WebDriverWait(browser, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".opblock-summary"))
    )
    origin = urlsplit(console.url).netloc
    urls = [url for url in requested(browser) if not url.startswith(("data:", "blob:"))]
    assert [url for url in urls if urlsplit(url).netloc != origin] == []
    assert any(url.endswith("/swagger-ui-bundle.js") for url in urls), urls
    assert (
        "PIX account service" in browser.find_element(By.CSS_SELECTOR, ".information-container .title").text
    )
    assert len(browser.find_elements(By.CSS_SELECTOR, ".opblock")) >= 30  # every operation is listed
    # docs/schema-page.png beside docs/console/, or the folder CI gives.
    folder = DOCS_CONSOLE.parent if SCREENSHOTS == DOCS_CONSOLE else SCREENSHOTS
    shot = Path(folder) / "schema-page.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
