"""The service under fuzzing: ``pixweb serve`` as a subprocess on a database of its own, and the
data prepared in it (two accounts, money, a charge, a receipt, a webhook) so that generated
requests can reach past the 404s of random identifiers.

A subprocess, not the app in this process: schemathesis sends its requests from its own thread,
and the app's connection pool belongs to one event loop. The database is the run's server but a
database of its own, because fuzzing moves the sandbox clock, which is shared through the database.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from pixcore.documents import cnpj_check_digits
from pixinfra.postgres.database import with_database
from pixweb.security.certificates import create_self_signed
from tests.support import free_port, random_cpf
from tests.support.processes import stop_popen

PIXWEB = Path(sys.executable).parent / "pixweb"
START_TIMEOUT = 90.0
CERT_DAYS = 2_000_000
HOOK = "https://127.0.0.1:9/hooks"  # never called: the service runs without its workers


@dataclass(frozen=True)
class Account:
    account_id: int
    client_id: str
    client_secret: str
    keys: list[str]
    cert_header: str
    number: str = ""
    """The account's number (``recebedor.conta`` of its recurring charges)."""

    @property
    def credentials(self) -> dict[str, str]:
        return {"clientId": self.client_id, "clientSecret": self.client_secret}


@dataclass
class Target:
    """The running service and what exists in it. ``account`` is the one the fuzzer signs in as."""

    base_url: str
    account: Account
    other: Account
    log: Path
    known: dict[str, list[str]] = field(default_factory=dict)
    """Values of path parameters that name existing resources, by parameter name."""
    bodies: dict[str, list[str]] = field(default_factory=dict)
    """Existing values for request body fields (keys to pay, BR Codes), by field name."""

    def token(self) -> str:
        response = httpx.post(
            f"{self.base_url}/api/auth/token",
            json=self.account.credentials,
            headers={"X-SSL-Client-Cert": self.account.cert_header},
            timeout=30,
        )
        response.raise_for_status()
        token: str = response.json()["access_token"]
        return token


OFFLINE = Path(__file__).with_name("offline")


def _env(database_url: str, data_dir: Path, port: int) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("PIX_")}
    return env | {
        "PIX_DATABASE_URL": database_url,
        "PIX_DATA_DIR": str(data_dir),
        "PIX_HOST": "127.0.0.1",
        "PIX_PORT": str(port),
        "PIX_SANDBOX": "1",
        "PIX_WORKERS": "0",  # no settlement or delivery behind the fuzzer's back, nothing sent out
        "PIX_WEBHOOK_ALLOW_PRIVATE": "1",
        "PIX_LOG_LEVEL": "WARNING",
        # The fuzzer asks the token endpoints hundreds of times a minute from one address, and must
        # still get its own token: no rate limit (tests/security/test_token_abuse.py covers them).
        "PIX_TOKEN_RATE_PER_CLIENT": "0",
        "PIX_TOKEN_RATE_PER_ADDRESS": "0",
        # Webhook hosts resolve offline in the fuzzed process (see offline/sitecustomize.py): no DNS.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(OFFLINE), env.get("PYTHONPATH")])),
    }


def _pixweb(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(PIXWEB), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"pixweb {' '.join(args)} failed: {done.stderr}")
    body: dict[str, Any] = json.loads(done.stdout)
    return body


def _random_cnpj() -> str:
    base = "".join(random.choice("0123456789") for _ in range(8)) + "0001"  # noqa: S311 - test data
    return base + cnpj_check_digits(base)


def _account(env: dict[str, str], folder: Path, *, company: bool = False) -> Account:
    from urllib.parse import quote

    document = _random_cnpj() if company else random_cpf()
    opened = _pixweb(env, "admin", "account", "create", "--name", "Fuzz Holder", "--document", document)
    # Valid for millennia: the fuzzer moves the sandbox clock (up to 400 days a call), and a
    # certificate expired by the service clock would refuse every token after that.
    _, cert_pem, _ = create_self_signed(f"fuzz-{opened['accountId']}", days=CERT_DAYS)
    cert_file = folder / f"cert-{opened['accountId']}.pem"
    cert_file.write_bytes(cert_pem)
    _pixweb(env, "admin", "cert", "link", "--account", str(opened["accountId"]), "--cert", str(cert_file))
    pem = cert_pem.decode()
    return Account(
        account_id=opened["accountId"],
        client_id=opened["clientId"],
        client_secret=opened["clientSecret"],
        keys=opened["keys"],
        cert_header=quote(pem, safe=""),
        number=opened["number"],
    )


async def _drop(server_url: str, name: str) -> None:
    conn = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def _wait_until_serving(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"pixweb serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{base_url}/schema/openapi.json", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"pixweb serve did not answer within {START_TIMEOUT} s:\n{log.read_text()}")


def _call(http: httpx.Client, method: str, path: str, body: Any, status: int) -> Any:
    response = http.request(method, path, json=body, headers={"X-Idempotency-Key": str(uuid.uuid4())})
    if response.status_code != status:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
    return response.json()


def _prepare(target: Target) -> None:
    """Money, a charge, a receipt, a cash-in, a webhook: identifiers for the path parameters."""
    own, other = target.account, target.other
    auth = {"Authorization": f"Bearer {target.token()}"}
    with httpx.Client(base_url=target.base_url, headers=auth, timeout=30) as http:
        received = _call(
            http, "POST", "/sandbox/payments", {"pixKey": own.keys[0], "amount": 1_000_000}, 201
        )["endToEndId"]
        txid = uuid.uuid4().hex
        charge = _call(
            http,
            "PUT",
            f"/cob/{txid}",
            {"calendario": {"expiracao": 86400}, "valor": {"original": "12.34"}},
            201,
        )
        location_id = charge["loc"]["location"].rsplit("/", 1)[-1]
        cash_in = _call(
            http,
            "POST",
            "/api/pix/cash-in",
            {
                "transaction": {"value": 5, "description": "fuzz", "externalId": uuid.uuid4().hex},
                "payer": {"fullName": "Fuzz Payer", "document": random_cpf()},
            },
            201,
        )
        sent = _call(
            http,
            "POST",
            "/dict/pix",
            {"pixKey": other.keys[0], "payment": {"amount": 1, "currency": "BRL"}},
            201,
        )
        refund_id = "fuzz" + uuid.uuid4().hex[:8]
        _call(http, "PUT", f"/pix/{received}/devolucao/{refund_id}", {"valor": "1.00"}, 201)
        webhook = _call(http, "POST", "/api/webhooks", {"url": HOOK, "eventType": "cash_in"}, 200)
        transactions = _call(http, "GET", "/api/transactions", None, 200)
    ids = [str(item["transactionId"]) for item in transactions["data"] if "transactionId" in item]
    ids.append(str(cash_in["transactionId"]))
    target.known = {
        "txid": [txid],
        "location_id": [location_id],
        "e2eid": [received, sent.get("endToEndId", received)],
        "refund_id": [refund_id],
        "id": ids or [str(sent.get("id", "1"))],
        "pix_key": own.keys,
        "webhook_id": [str(webhook.get("id", "1"))],
        "case_id": ["1"],
        "delivery_id": ["1"],
    }
    target.bodies = {"pixKey": [*own.keys, *other.keys], "pixCopiaECola": [charge["pixCopiaECola"]]}


@contextmanager
def running_service(database_server: str, folder: Path, *, company: bool = False) -> Iterator[Target]:
    """``pixweb serve`` on a fresh database of ``database_server``, with the prepared data.
    ``company``: the account signed in is a company's (a CNPJ), as a receiver of recurring payments
    is by the standard (its recurrences' ``recebedor`` is a legal person)."""
    name = f"pixfuzz_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    url = with_database(database_server, name)
    port = free_port()
    env = _env(url, folder, port)
    base_url = f"http://127.0.0.1:{port}"
    log = folder / "service.log"
    try:
        _pixweb(env, "migrate")
        own, other = _account(env, folder, company=company), _account(env, folder)
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [str(PIXWEB), "serve", "--no-demo"], env=env, stdout=sink, stderr=subprocess.STDOUT
            )
        try:
            _wait_until_serving(process, base_url, log)
            target = Target(base_url=base_url, account=own, other=other, log=log)
            _prepare(target)
            yield target
        finally:
            stop_popen(process, "pixweb serve")
    finally:
        asyncio.run(_drop(database_server, name))
