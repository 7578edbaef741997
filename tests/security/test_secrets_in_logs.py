"""Secrets never reach the logs.

Every log record of every logger, at DEBUG, is kept while a whole scenario runs: an account is
opened and its certificate made and linked (as ``pixweb admin account create`` and ``cert
create`` do), tokens are taken both ways, money moves, a webhook is registered with a custom
header, its secret is read and rotated, and errors happen (400, 401, 404, 422 and a 500). Then
the records, with their arguments, tracebacks and extra fields, are searched for every secret
the scenario handled.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.clock import SystemClock
from pixcore.transfers.transfer_service import settle_due
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.accounts import balance as balance_api
from pixweb.security.certificates import create_self_signed
from tests.e2e.conftest import Api
from tests.security.conftest import all_logs, log_text
from tests.support import HASHER, add_external_key, random_cpf

HOOK = "https://93.184.216.34/hook"  # public literal: registration asks no DNS, nothing is sent


async def test_no_secret_is_ever_logged(
    pg_uow: UnitOfWorkFactory, api: Api, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    http = api.client
    wrong_secret = "wrong-" + secrets.token_urlsafe(24)
    header_secret = "hdr-" + secrets.token_urlsafe(24)
    with all_logs() as records:
        opened = await open_account(
            pg_uow, HASHER, ispb="99999999", name="Log Test", document=random_cpf(), city="RECIFE"
        )
        key_pem, cert_pem, info = create_self_signed(f"pix-client-{opened.account.id}")
        await link_certificate(pg_uow, account_id=opened.account.id, certificate=info, clock=SystemClock())
        cert = {"X-SSL-Client-Cert": quote(cert_pem.decode(), safe="")}
        credentials = {"clientId": opened.client_id, "clientSecret": opened.client_secret}

        issued = await http.post("/api/auth/token", json=credentials, headers=cert)
        assert issued.status_code == 201, issued.text
        token = issued.json()["access_token"]
        auth = {"Authorization": f"Bearer {token}"}
        basic = base64.b64encode(f"{opened.client_id}:{opened.client_secret}".encode()).decode()
        oauth = await http.post(
            "/oauth/token",
            data={"grant_type": "client_credentials"},
            headers=cert | {"Authorization": f"Basic {basic}"},
        )
        assert oauth.status_code == 200, oauth.text
        oauth_token = oauth.json()["access_token"]
        wrong = await http.post(
            "/api/auth/token", json=credentials | {"clientSecret": wrong_secret}, headers=cert
        )
        assert wrong.status_code == 401

        key = opened.keys[0].value
        paid = await http.post("/sandbox/payments", json={"pixKey": key, "amount": 100}, headers=auth | cert)
        assert paid.status_code == 201, paid.text
        external, _ = await add_external_key(http, auth)
        sent = await http.post(
            "/dict/pix",
            json={"pixKey": external, "payment": {"amount": 10}},
            headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
        )
        assert sent.status_code == 201, sent.text
        api.clock.advance(api.settings.norm_delay_seconds)
        await settle_due(pg_uow, api.clock)

        hook = {
            "url": HOOK,
            "eventType": "cash_out",
            "headers": [{"key": "X-Api-Key", "value": header_secret}],
        }
        assert (await http.post("/api/webhooks", json=hook, headers=auth)).status_code == 200
        listed = (await http.get("/api/webhooks", headers=auth)).json()
        assert listed["webhooks"][0]["headers"] == {"X-Api-Key": header_secret}
        first_secret = (await http.get("/api/webhooks/secret", headers=auth)).json()["secret"]
        second_secret = (await http.post("/api/webhooks/secret/rotate", headers=auth)).json()["secret"]
        assert first_secret != second_secret
        assert (
            await http.delete(f"/api/webhooks/{listed['webhooks'][0]['id']}", headers=auth)
        ).status_code == 200

        # Errors: a validation error quoting secrets back, a 404, a 422, a 500, expired tokens.
        bad = {
            "url": first_secret,
            "eventType": second_secret,
            "headers": [{"key": header_secret, "value": "\n"}],
        }
        assert (await http.post("/api/webhooks", json=bad, headers=auth)).status_code == 400
        assert (await http.get("/cob/" + "a" * 30, headers=auth)).status_code == 404
        over = await http.post(
            "/dict/pix",
            json={"pixKey": external, "payment": {"amount": 10_000}},
            headers=auth | {"x-idempotency-key": str(uuid.uuid4())},
        )
        assert over.status_code == 422

        async def explode(*_: object, **__: object) -> None:
            raise RuntimeError("the balance store is gone")

        monkeypatch.setattr(balance_api, "get_balance", explode)
        assert (await http.get("/balance", headers=auth)).status_code == 500
        monkeypatch.undo()
        api.clock.advance(1801)
        for expired in (token, oauth_token):
            assert (
                await http.get("/balance", headers={"Authorization": f"Bearer {expired}"})
            ).status_code == 401

    assert any(record.levelno >= 40 for record in records), "the 500 was not logged: is capture working?"
    logged = log_text(records)
    assert "/dict/pix" in logged  # the capture saw the requests
    pem_lines = [line for line in cert_pem.decode().splitlines() if not line.startswith("-----")]
    key_lines = [line for line in key_pem.decode().splitlines() if not line.startswith("-----")]
    secrets_handled = {
        "client secret": opened.client_secret,
        "wrong client secret": wrong_secret,
        "Basic credentials": basic,
        "webhook secret": first_secret,
        "webhook secret (rotated)": second_secret,
        "webhook secret body": first_secret.removeprefix("whsec_"),
        "custom header value": header_secret,
        "bearer token": token,
        "bearer token signature": token.split(".")[2],
        "oauth token": oauth_token,
        "oauth token signature": oauth_token.split(".")[2],
        "certificate header": cert["X-SSL-Client-Cert"],
    } | {f"certificate line {n}": line for n, line in enumerate(pem_lines) if len(line) >= 32}
    secrets_handled |= {f"private key line {n}": line for n, line in enumerate(key_lines) if len(line) >= 32}
    found = [what for what, value in secrets_handled.items() if value in logged]
    assert not found, f"logged: {found}"
