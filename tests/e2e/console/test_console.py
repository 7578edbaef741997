"""The web console over HTTP, in process (the browser suite, tests/browser, drives it in chromium):
sign-in, sessions, CSRF, the same 404 as the API, the security headers, the production switch."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import httpx

from pixcore.clock import SystemClock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from pixweb.console.session import COOKIE
from tests.e2e.conftest import Api, running_api
from tests.support import Client, new_client

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(response: httpx.Response) -> str:
    found = CSRF.search(response.text)
    assert found is not None, response.text
    return found.group(1)


async def sign_in(http: httpx.AsyncClient, client: Client, next_page: str = "/console") -> httpx.Response:
    form = await http.get("/console/sign-in")
    assert form.status_code == 200
    return await http.post(
        "/console/sign-in",
        data={
            "csrf": csrf_of(form),
            "client_id": client.opened.client_id,
            "client_secret": client.opened.client_secret,
            "next": next_page,
        },
    )


async def receive(http: httpx.AsyncClient, client: Client, amount: str) -> str:
    """The sandbox's outside payer pays ``client``'s first key through the console: the end-to-end id."""
    form = await http.get("/console/receive")
    paid = await http.post(
        "/console/receive",
        data={
            "csrf": csrf_of(form),
            "pix_key": client.opened.keys[0].value,
            "amount": amount,
            "payer_name": "Outside Payer",
            "payer_document": "11144477735",
        },
    )
    assert paid.status_code == 303, paid.text
    return paid.headers["location"].rsplit("=", 1)[1]


async def transaction_of(http: httpx.AsyncClient, e2e: str) -> str:
    """The id of the account's record with the end-to-end id ``e2e``, as its list links it."""
    listed = await http.get(f"/console/transactions?endToEndId={e2e}")
    found = re.search(r'href="/console/transactions/(\d+)"', listed.text)
    assert found is not None, listed.text
    return found.group(1)


async def test_root_and_console_send_the_signed_out_to_sign_in(api: Api) -> None:
    root = await api.client.get("/")
    assert (root.status_code, root.headers["location"]) == (302, "/console")
    console = await api.client.get("/console/charges?txid=abc")
    assert console.status_code == 303
    assert console.headers["location"] == "/console/sign-in?next=%2Fconsole%2Fcharges%3Ftxid%3Dabc"


async def test_sign_in_sets_a_protected_cookie_and_returns_to_the_page_asked_for(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow, name="Ana Header Holder")
    signed = await sign_in(api.client, client, next_page="/console/transactions")
    assert (signed.status_code, signed.headers["location"]) == (303, "/console/transactions")
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "Path=/console" in cookie
    overview = await api.client.get("/console")
    assert overview.status_code == 200
    assert '<span class="who">Ana Header Holder</span>' in overview.text  # the holder, not a number
    assert f"Account {client.account_id}" not in overview.text
    assert "R$0.00" in overview.text  # Babel's English format
    policy = overview.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "<script>" not in overview.text  # scripts come from files only


async def test_a_wrong_secret_is_refused_with_the_token_endpoints_message_and_kept_id(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    form = await api.client.get("/console/sign-in")
    refused = await api.client.post(
        "/console/sign-in",
        data={"csrf": csrf_of(form), "client_id": client.opened.client_id, "client_secret": "wrong"},
    )
    assert refused.status_code == 401
    assert "Invalid client credentials." in refused.text  # the use case's message
    assert f'value="{client.opened.client_id}"' in refused.text
    assert (await api.client.get("/console")).status_code == 303  # still signed out


async def test_failed_sign_ins_are_limited_without_locking_the_client_out(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    settings = Settings(
        database_url=database.url, data_dir=tmp_path, run_workers=False, token_rate_per_client=2
    )
    async with running_api(settings, SystemClock(), database) as api:
        client = await new_client(pg_uow)
        form = await api.client.get("/console/sign-in")
        statuses = []
        for _ in range(3):
            answer = await api.client.post(
                "/console/sign-in",
                data={"csrf": csrf_of(form), "client_id": client.opened.client_id, "client_secret": "no"},
            )
            statuses.append(answer.status_code)
        assert statuses == [401, 401, 429]
        # Those failures presented no certificate: they spent no budget of the client's own
        # certificate, so the token endpoint, with the right secret and that certificate, issues.
        token = await api.client.post(
            "/api/auth/token", json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
        )
        assert token.status_code == 201, token.text


async def test_a_form_without_its_csrf_token_is_refused(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    refused = await api.client.post("/console/charges", data={"amount": "10.00"})
    assert refused.status_code == 403
    forged = await api.client.post("/console/charges", data={"amount": "10.00", "csrf": "x" * 43})
    assert forged.status_code == 403
    charges = await api.client.get("/console/charges")
    made = await api.client.post("/console/charges", data={"amount": "10.00", "csrf": csrf_of(charges)})
    assert made.status_code == 303


async def test_another_accounts_charge_is_not_found(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    owner, other = await new_client(pg_uow), await new_client(pg_uow)
    await sign_in(api.client, owner)
    charges = await api.client.get("/console/charges")
    made = await api.client.post("/console/charges", data={"amount": "12.34", "csrf": csrf_of(charges)})
    path = made.headers["location"]
    txid = path.rsplit("/", 1)[1]
    assert (await api.client.get(path)).status_code == 200
    assert f'href="{path}"' in (await api.client.get("/console/charges")).text  # listed for its owner
    assert api.app is not None
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=api.app), base_url="http://127.0.0.1:8000"
    ) as second:
        await sign_in(second, other)
        assert txid not in (await second.get("/console/charges")).text  # nor listed for another
        for url in (path, path + "/qr.png"):
            answer = await second.get(url)
            assert answer.status_code == 404, url
        token = csrf_of(await second.get("/console"))
        for action in ("/cancel", "/pay"):
            answer = await second.post(path + action, data={"csrf": token})
            assert answer.status_code == 404, action
            assert "Cobrança não encontrada." in answer.text  # the API's message, in Portuguese
    assert 'id="charge-status">Open<' in (await api.client.get(path)).text  # the owner's charge is untouched


async def test_form_errors_show_the_api_message_beside_the_field_and_keep_the_input(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    charges = await api.client.get("/console/charges")
    refused = await api.client.post(
        "/console/charges", data={"amount": "10.501", "expiration": "soon", "csrf": csrf_of(charges)}
    )
    assert refused.status_code == 400
    assert 'value="10.501"' in refused.text
    assert 'value="soon"' in refused.text
    assert 'id="e-amount">At most two decimals (centavos), as 42.90.<' in refused.text
    assert 'id="e-expiration"' in refused.text
    assert "Traceback" not in refused.text
    send = await api.client.get("/console/send")
    wrong = await api.client.post(
        "/console/send",
        data={
            "pix_key": "not a key",
            "amount": "abc",
            "csrf": csrf_of(send),
            "idempotency_key": re.search(r'name="idempotency_key" value="([^"]+)"', send.text).group(1),
        },  # type: ignore[union-attr]
    )
    assert wrong.status_code == 400
    assert 'value="not a key"' in wrong.text
    assert 'id="e-amount"' in wrong.text


async def test_an_idle_session_returns_to_sign_in_then_to_the_page(
    pg_uow: UnitOfWorkFactory, own_api: Api
) -> None:
    api = own_api  # its sessions' clock moves
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    assert api.app is not None
    # The sessions' own clock (the wall clock in the service) 31 minutes on: the session sat idle.
    api.app.state.services.console_sessions.clock = SystemClock(offset=timedelta(minutes=31))
    again = await api.client.get("/console/transactions?status=CONFIRMED")
    assert again.status_code == 303
    assert again.headers["location"] == "/console/sign-in?next=%2Fconsole%2Ftransactions%3Fstatus%3DCONFIRMED"
    form = await api.client.get(again.headers["location"])
    assert '<p class="notice warning" role="status">Your session expired' in form.text
    assert 'name="next" value="/console/transactions?status=CONFIRMED"' in form.text


async def test_production_mode_serves_no_console(database: Database, tmp_path: Path) -> None:
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False, console=False)
    async with running_api(settings, SystemClock(), database) as api:
        # No console route: a 404, as for any unknown path of the API.
        assert (await api.client.get("/console")).status_code == 404
        assert (await api.client.get("/")).status_code == 404


async def test_hostile_input_gets_the_error_shape_never_a_500(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    owner, other = await new_client(pg_uow), await new_client(pg_uow)
    await sign_in(api.client, owner)
    page = await api.client.get("/console/charges")
    token = csrf_of(page)
    nul = await api.client.post(
        "/console/charges",
        content=b"csrf=" + token.encode() + b"&amount=1%0000",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    # Refused by the edge before any page reads it, and said as a console page, never the API's JSON.
    assert nul.status_code == 400
    assert nul.headers["content-type"].startswith("text/html")
    assert "Cannot read this form" in nul.text
    assert "a NUL byte" in nul.text
    assert '"statusCode"' not in nul.text
    not_utf8 = await api.client.post(
        "/console/send",
        content=b"csrf=" + token.encode() + b"&pix_key=%ff%fe",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "pt-BR"},
    )
    assert not_utf8.status_code == 400
    assert "Não foi possível ler o formulário" in not_utf8.text
    assert not_utf8.headers["content-type"].startswith("text/html")
    huge = await api.client.post(
        "/console/charges",
        content=b"a=" + b"x" * 2_000_000,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert huge.status_code == 413
    for path in (
        "/console/transactions/99999999",
        "/console/charges/" + "z" * 30,
        "/console/static/../app.py",
    ):
        answer = await api.client.get(path)
        assert answer.status_code in (400, 404), path
        assert "Traceback" not in answer.text
    bad_txid = await api.client.get("/console/charges/%F0%9F%92%A5")
    assert bad_txid.status_code == 400
    # another account's transaction: the API's 404
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=api.app),
        base_url="http://127.0.0.1:8000",  # type: ignore[arg-type]
    ) as second:
        await sign_in(second, other)
        theirs = await transaction_of(second, await receive(second, other, "5.00"))
    assert (await api.client.get(f"/console/transactions/{theirs}")).status_code == 404
    # a cookie that is not ours is a new, signed-out session
    api.client.cookies.clear()
    api.client.cookies.set(COOKIE, "garbage", path="/console")
    assert (await api.client.get("/console")).status_code == 303


async def test_what_a_user_typed_is_escaped_on_every_page(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    charges = await api.client.get("/console/charges")
    script = "<script>alert(1)</script>"
    made = await api.client.post(
        "/console/charges", data={"amount": "1.00", "payer_request": script, "csrf": csrf_of(charges)}
    )
    assert made.status_code == 303
    shown = await api.client.get(made.headers["location"])
    assert script not in shown.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown.text
    refused = await api.client.post(
        "/console/charges", data={"amount": '"><script>x</script>', "csrf": csrf_of(charges)}
    )
    assert refused.status_code == 400
    assert "<script>x</script>" not in refused.text


async def test_a_session_made_by_one_process_is_read_by_another(
    pg_uow: UnitOfWorkFactory, database: Database, tmp_path: Path
) -> None:
    """Two apps on one data folder (one signing key), as two worker processes: a sign-in on one
    is a session on the other, with no shared memory."""
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False)
    client = await new_client(pg_uow, name="Bia Two Processes")
    async with (
        running_api(settings, SystemClock(), database) as first,
        running_api(settings, SystemClock(), database) as second,
    ):
        assert first.app is not second.app
        await sign_in(first.client, client)
        cookie = first.client.cookies.get(COOKIE)
        assert cookie is not None
        second.client.cookies.set(COOKIE, cookie, path="/console")
        page = await second.client.get("/console")
        assert page.status_code == 200
        assert client.opened.account.name in page.text


async def test_the_cookie_is_secure_when_the_service_is_served_over_https(
    database: Database, tmp_path: Path
) -> None:
    settings = Settings(
        database_url=database.url, data_dir=tmp_path, run_workers=False, public_url="https://pix.example"
    )
    async with running_api(settings, SystemClock(), database) as api:
        form = await api.client.get("/console/sign-in")
        assert "Secure" in form.headers["set-cookie"]
        assert "HttpOnly" in form.headers["set-cookie"]
