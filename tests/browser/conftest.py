"""The console in a real browser: Debian's chromium, headless, driven by Selenium through Debian's
chromedriver (the same package version as the browser; Selenium downloads nothing: both paths are
given and ``SE_OFFLINE`` is set). ``make browser`` runs this suite; without chromium it fails,
naming the packages to install."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.faults.processes import ApiProcess, run_cli, service_env
from tests.support import random_cnpj, random_cpf, scratch_database

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# Where each page's screenshot lands: docs/console/ (the README shows two), or PIX_SCREENSHOTS (CI
# points it at a temporary folder, so that a run leaves the working tree as it found it).
DOCS_CONSOLE = Path(__file__).resolve().parents[2] / "docs" / "console"
SCREENSHOTS = Path(os.environ.get("PIX_SCREENSHOTS") or DOCS_CONSOLE)


@dataclass
class Console:
    """The service as a process, its data folder (its signing key) and two accounts."""

    process: ApiProcess
    data_dir: Path
    first: dict[str, Any]
    second: dict[str, Any]
    database_url: str

    @property
    def url(self) -> str:
        return self.process.url


@asynccontextmanager
async def running_console(database_server: str, tmp_path: Path, **env_changes: str) -> AsyncIterator[Console]:
    """The service on a scratch database with two accounts; ``env_changes`` replace its settings."""
    async with scratch_database(database_server, "pixbrowser") as url:
        env = service_env(url, tmp_path / "data") | env_changes
        process = ApiProcess("api-console", env, tmp_path / "api.log")
        await process.start()
        try:
            # The first a company's (it receives by Pix Automático too), the other a person's.
            accounts = [
                await run_cli(
                    env, "pixweb", "admin", "account", "create", "--name", name, "--document", number
                )
                for name, number in (("Console Holder", random_cnpj()), ("Other Holder", random_cpf()))
            ]
            yield Console(process, tmp_path / "data", *accounts, database_url=url)
        finally:
            await process.stop()


@pytest.fixture
async def console(database_server: str, tmp_path: Path) -> AsyncIterator[Console]:
    async with running_console(database_server, tmp_path) as running:
        yield running


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} not found: the browser suite needs Debian's chromium "
            "(apt-get install -y chromium chromium-driver)",
            pytrace=False,
        )
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch a browser or a driver
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(argument)
    # Pages must need nothing from the internet: every host but the service's own fails to resolve,
    # and the requests made are logged (Chrome's performance log) for tests to read (`requested`).
    options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    # A Brazilian browser: the console's default language and money format, as its users see it.
    options.add_argument("--lang=pt-BR")
    options.add_experimental_option("prefs", {"intl.accept_languages": "pt-BR,pt"})
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()


def requested(driver: webdriver.Chrome) -> list[str]:
    """Every URL the browser asked for since the last call (Chrome's performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls
