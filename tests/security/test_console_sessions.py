"""A console cookie saved before its session ended opens nothing afterwards, and moves no money.

Each test signs a browser in, sends a PIX through the console (the form works), saves the
session cookie and a fresh send form (its CSRF token and idempotency key), then ends the session:
sign-out, ``pixweb admin cert revoke``, ``account rotate-secret``, ``account revoke-secret``,
``session end`` (the real CLI, another process, through the database), 30 minutes idle, 8 hours
since sign-in (the sessions' clock moved, no sleeping), or, in production mode, another
certificate. Then the saved cookie replays: every page is the sign-in page, and the send form
posted with it and its CSRF token leaves the balance and the account's transactions as they were.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from pixweb.console.session import COOKIE
from pixweb.security.certificates import create_self_signed
from tests.e2e.cli.test_cli import _base_env, pixweb
from tests.e2e.conftest import Api, running_api
from tests.support import Client, certificate_header, new_client

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
IDEMPOTENCY = re.compile(r'name="idempotency_key" value="([^"]+)"')
SIGN_IN_FORM = '<form method="post" action="/console/sign-in">'


def _found(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.search(text)
    assert found is not None, text
    return found.group(1)


@dataclass
class Browser:
    """A signed-in browser of ``client``, and what it saved before its session ended."""

    api: Api
    database: Database
    """The app's, to look at the account's money behind it."""
    client: Client
    payee: Client
    http: httpx.AsyncClient
    cookie: str
    """The session cookie, as the browser held it."""
    csrf: str
    idempotency_key: str
    """Of a send form rendered before the session ended, never posted."""

    async def replay(self, headers: dict[str, str] | None = None) -> None:
        """The saved cookie, in a browser of its own: the sign-in page, and no money moves."""
        before = await _money(self.database, self.client.account_id)
        assert self.api.app is not None
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.api.app),
            base_url=str(self.http.base_url),
            headers=headers,
        ) as stale:
            stale.cookies.set(COOKIE, self.cookie, domain="127.0.0.1", path="/console")
            for path in ("/console", "/console/send", "/console/webhooks"):
                answer = await stale.get(path)
                assert answer.status_code == 303, (path, answer.text)
                assert answer.headers["location"] == f"/console/sign-in?next={quote(path, safe='')}"
                page = await stale.get(answer.headers["location"])
                assert page.status_code == 200
                assert SIGN_IN_FORM in page.text
                assert self.client.opened.account.name not in page.text
            sent = await stale.post(
                "/console/send",
                data={
                    "csrf": self.csrf,
                    "idempotency_key": self.idempotency_key,
                    "pix_key": self.payee.opened.keys[0].value,
                    "amount": "7.00",
                },
            )
            assert sent.status_code == 303, sent.text
            assert sent.headers["location"].startswith("/console/sign-in?")
        assert await _money(self.database, self.client.account_id) == before


async def _money(database: Database, account_id: int) -> tuple[int, int, int]:
    """The account's available balance (centavos), its transactions and its sent transfers."""
    pool = database.pool
    available = await pool.fetchval("SELECT available FROM balances WHERE account_id = $1", account_id)
    records = await pool.fetchval("SELECT count(*) FROM transactions WHERE account_id = $1", account_id)
    transfers = await pool.fetchval("SELECT count(*) FROM transfers WHERE account_id = $1", account_id)
    return available, records, transfers


async def _sign_in(http: httpx.AsyncClient, client: Client, next_page: str = "/console") -> httpx.Response:
    form = await http.get("/console/sign-in")
    assert form.status_code == 200
    return await http.post(
        "/console/sign-in",
        data={
            "csrf": _found(CSRF, form.text),
            "client_id": client.opened.client_id,
            "client_secret": client.opened.client_secret,
            "next": next_page,
        },
    )


async def _send(http: httpx.AsyncClient, payee: Client, amount: str) -> httpx.Response:
    form = await http.get("/console/send")
    assert form.status_code == 200, form.text
    return await http.post(
        "/console/send",
        data={
            "csrf": _found(CSRF, form.text),
            "idempotency_key": _found(IDEMPOTENCY, form.text),
            "pix_key": payee.opened.keys[0].value,
            "amount": amount,
        },
    )


MakeBrowser = Callable[..., Awaitable[Browser]]


@asynccontextmanager
async def opened_browsers(
    database: Database, pg_uow: UnitOfWorkFactory, api: Api
) -> AsyncIterator[MakeBrowser]:
    opened: list[httpx.AsyncClient] = []

    async def browser(*, base_url: str = "http://127.0.0.1:8000", certified: bool = False) -> Browser:
        """A funded account signed in, after one PIX sent through the console. ``certified``: the
        browser presents the account's certificate on every request (as production mode needs)."""
        client, payee = await new_client(pg_uow), await new_client(pg_uow)
        assert api.app is not None
        headers = {"X-SSL-Client-Cert": client.cert_header} if certified else None
        http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=api.app), base_url=base_url, headers=headers
        )
        opened.append(http)
        auth = await http.post(
            "/api/auth/token", json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
        )
        assert auth.status_code == 201, auth.text
        paid = await http.post(
            "/sandbox/payments",
            json={"pixKey": client.opened.keys[0].value, "amount": "100.00"},
            headers={
                "Authorization": f"Bearer {auth.json()['access_token']}",
                "X-SSL-Client-Cert": client.cert_header,
            },
        )
        assert paid.status_code == 201, paid.text
        signed = await _sign_in(http, client)
        assert signed.status_code == 303, signed.text
        before = await _money(database, client.account_id)
        sent = await _send(http, payee, "1.00")  # the form works while the session lives
        assert sent.status_code == 303, sent.text
        assert sent.headers["location"].startswith("/console/transactions/")
        after = await _money(database, client.account_id)
        assert (after[0], after[2]) == (before[0] - 100, before[2] + 1)
        form = await http.get("/console/send")
        assert client.opened.account.name in form.text
        cookie = http.cookies.get(COOKIE)
        assert cookie is not None
        return Browser(
            api,
            database,
            client,
            payee,
            http,
            cookie,
            _found(CSRF, form.text),
            _found(IDEMPOTENCY, form.text),
        )

    try:
        yield browser
    finally:
        for http in opened:
            await http.aclose()


@pytest.fixture
async def browsers(database: Database, pg_uow: UnitOfWorkFactory, api: Api) -> AsyncIterator[MakeBrowser]:
    async with opened_browsers(database, pg_uow, api) as make:
        yield make


@pytest.fixture
async def own_browsers(
    database: Database, pg_uow: UnitOfWorkFactory, own_api: Api
) -> AsyncIterator[MakeBrowser]:
    """Browsers on an app of the test's own, whose sessions' clock the test moves."""
    async with opened_browsers(database, pg_uow, own_api) as make:
        yield make


@pytest.fixture
def cli_env(database: Database, tmp_path: Path) -> dict[str, str]:
    assert database.url is not None
    return _base_env(tmp_path / "cli") | {"PIX_DATABASE_URL": database.url}


async def test_sign_out_ends_the_session_on_the_server(browsers: MakeBrowser) -> None:
    browser = await browsers()
    out = await browser.http.post("/console/sign-out", data={"csrf": browser.csrf})
    assert (out.status_code, out.headers["location"]) == (303, "/console/sign-in")
    assert f'{COOKIE}=""' in out.headers["set-cookie"] or "Max-Age=0" in out.headers["set-cookie"]
    await browser.replay()


async def test_revoking_the_certificate_ends_the_accounts_sessions(
    browsers: MakeBrowser, cli_env: dict[str, str]
) -> None:
    browser, bystander = await browsers(), await browsers()
    account = str(browser.client.account_id)
    revoked = await pixweb(
        cli_env, "admin", "cert", "revoke", "--account", account, "--fingerprint", browser.client.fingerprint
    )
    assert revoked.ok()["accountId"] == browser.client.account_id
    await browser.replay()
    assert (await bystander.http.get("/console")).status_code == 200  # another account's session lives


async def test_a_new_secret_ends_the_accounts_sessions(
    browsers: MakeBrowser, cli_env: dict[str, str]
) -> None:
    browser = await browsers()
    account = str(browser.client.account_id)
    rotated = (await pixweb(cli_env, "admin", "account", "rotate-secret", "--account", account)).ok()
    assert rotated["clientSecret"] != browser.client.opened.client_secret
    await browser.replay()


async def test_a_revoked_secret_ends_the_accounts_sessions_and_signs_nobody_in(
    browsers: MakeBrowser, cli_env: dict[str, str]
) -> None:
    browser = await browsers()
    account = str(browser.client.account_id)
    revoked = (await pixweb(cli_env, "admin", "account", "revoke-secret", "--account", account)).ok()
    assert revoked == {
        "accountId": browser.client.account_id,
        "clientId": browser.client.opened.client_id,
        "secretRevoked": True,
    }
    await browser.replay()
    again = await _sign_in(browser.http, browser.client)
    assert again.status_code == 401  # the old secret signs in no more
    token = await browser.http.post(
        "/api/auth/token",
        json=browser.client.credentials,
        headers={"X-SSL-Client-Cert": browser.client.cert_header},
    )
    assert token.status_code == 401


async def test_the_operator_ends_one_session_or_all_of_an_account(
    browsers: MakeBrowser, cli_env: dict[str, str]
) -> None:
    browser = await browsers()
    account = str(browser.client.account_id)
    assert browser.api.app is not None
    second = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=browser.api.app), base_url="http://127.0.0.1:8000"
    )
    async with second:
        assert (await _sign_in(second, browser.client)).status_code == 303
        listed = (await pixweb(cli_env, "admin", "session", "list", "--account", account)).ok()
        ids = [one["id"] for one in listed["sessions"]]
        assert len(ids) == 2
        assert all(one["accountId"] == browser.client.account_id for one in listed["sessions"])
        assert browser.cookie not in str(listed)  # the list shows hashes, never a cookie
        second_id = ids[0]  # the newest: the second browser's
        ended = (await pixweb(cli_env, "admin", "session", "end", "--id", second_id)).ok()
        assert [one["id"] for one in ended["ended"]] == [second_id]
        assert (await second.get("/console")).status_code == 303
        assert (await browser.http.get("/console")).status_code == 200  # the other one lives on
        unknown = await pixweb(cli_env, "admin", "session", "end", "--id", second_id)
        assert unknown.error()["error"] == "SessionNotFound"
        everyone = (await pixweb(cli_env, "admin", "session", "end", "--account", account)).ok()
        assert everyone == {"accountId": browser.client.account_id, "endedCount": 1}
        assert (await pixweb(cli_env, "admin", "session", "list", "--account", account)).ok() == {
            "sessions": []
        }
    await browser.replay()


async def test_an_idle_session_ends_and_sign_in_returns_to_the_page(
    own_browsers: MakeBrowser,
) -> None:
    browser = await own_browsers()
    assert browser.api.app is not None
    sessions = browser.api.app.state.services.console_sessions
    sessions.clock = SystemClock(offset=timedelta(minutes=29))
    assert (await browser.http.get("/console")).status_code == 200  # used within 30 minutes
    sessions.clock = SystemClock(offset=timedelta(minutes=29 + 31))
    await browser.replay()
    asked = await browser.http.get("/console/transactions?status=CONFIRMED")
    assert asked.headers["location"] == "/console/sign-in?next=%2Fconsole%2Ftransactions%3Fstatus%3DCONFIRMED"
    assert "Sua sessão expirou" in (await browser.http.get(asked.headers["location"])).text
    again = await _sign_in(browser.http, browser.client, "/console/transactions?status=CONFIRMED")
    assert (again.status_code, again.headers["location"]) == (303, "/console/transactions?status=CONFIRMED")
    assert again.cookies.get(COOKIE) not in (None, browser.cookie)  # a new session, never the old id
    assert (await browser.http.get("/console/transactions?status=CONFIRMED")).status_code == 200


async def test_a_busy_session_ends_eight_hours_after_sign_in(
    own_browsers: MakeBrowser,
) -> None:
    browser = await own_browsers()
    assert browser.api.app is not None
    sessions = browser.api.app.state.services.console_sessions
    for step in range(1, 17):  # a page every 29 minutes: never idle, up to 7 h 44 min
        sessions.clock = SystemClock(offset=timedelta(minutes=29 * step))
        assert (await browser.http.get("/console")).status_code == 200, step
    sessions.clock = SystemClock(offset=timedelta(minutes=29 * 17))  # 8 h 13 min since sign-in
    await browser.replay()
    asked = await browser.http.get("/console")
    assert "Sua sessão expirou" in (await browser.http.get(asked.headers["location"])).text


@pytest.fixture
async def production(database: Database, tmp_path: Path) -> AsyncIterator[Api]:
    """Production mode with the console and the sandbox (to fund an account) turned on."""
    settings = Settings(
        database_url=database.url,
        data_dir=tmp_path,
        run_workers=False,
        production=True,
        console=True,
        sandbox=True,
        require_client_cert=True,
    )
    async with running_api(settings, SystemClock(), database) as running:
        yield running


async def test_in_production_a_session_opens_only_with_the_certificate_it_signed_in_with(
    database: Database,
    pg_uow: UnitOfWorkFactory,
    production: Api,
) -> None:
    async with opened_browsers(database, pg_uow, production) as make:
        browser = await make(base_url="https://127.0.0.1:8000", certified=True)
        signed = browser.http.cookies.jar
        assert all(cookie.secure for cookie in signed), "production cookies are Secure"
        _, other_pem, _ = create_self_signed("someone-else")
        linked_elsewhere = browser.payee.cert_header  # linked, in force, of another account
        for headers in (
            {"X-SSL-Client-Cert": certificate_header(other_pem)},
            {"X-SSL-Client-Cert": linked_elsewhere},
            {"X-SSL-Client-Cert": "nonsense"},
            {},
        ):
            await browser.replay(headers)
    # The wrong certificates ended nothing: the browser with its own certificate is still in.
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=production.app),  # type: ignore[arg-type]
        base_url="https://127.0.0.1:8000",
        headers={"X-SSL-Client-Cert": browser.client.cert_header},
    ) as own:
        own.cookies.set(COOKIE, browser.cookie, domain="127.0.0.1", path="/console")
        page = await own.get("/console")
        assert page.status_code == 200
        assert browser.client.opened.account.name in page.text
