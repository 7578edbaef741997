"""Two institutions on one network: two ``pixweb serve`` processes, each a participant
(``PIX_NETWORK_URL``) of a ``pixnet`` application, their keys registered in its DICT, their PIX
settled by its SPI between their settlement accounts.

What a client of either sees: a PIX from A to a key of B completes at A and lands at B; a PIX the
payer institution's settlement account does not cover ends in ERROR (``AM04``) with the money back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import trustme
from aiohttp import web

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.clock import SystemClock
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.settings import NetworkAccess
from pixnet.server.app import Identity, make_app
from pixnet.server.tls import server_context
from pixnet.settlement.spi import check_ledger, fund
from pixnet.store.entries import add_participant
from pixnet.store.schema import migrate
from pixweb.network.client import NetworkClient
from pixweb.network.registry import NetworkKeyRegistry
from pixweb.security.certificates import create_self_signed
from tests.support import random_cpf
from tests.support.clients import HASHER, certificate_header
from tests.support.databases import fetch_rows, opened_database, scratch_database
from tests.support.processes import free_port, migrated_by_command, process_env, serving

BANKS = {"A": "11111111", "B": "22222222"}
BIN = Path(sys.executable).parent


@dataclass
class Institution:
    ispb: str
    url: str
    database: str
    http: httpx.AsyncClient
    auth: dict[str, str]
    key: str
    document: str
    env: dict[str, str]
    """The environment of the institution's operator commands (``pixweb admin ...``)."""

    async def balance(self) -> tuple[Decimal, Decimal]:
        response = await self.http.get("/accounts/balances", headers=self.auth)
        assert response.status_code == 200, response.text
        amount = response.json()["data"][0]["balanceAmount"]
        return Decimal(str(amount["available"])), Decimal(str(amount["blocked"]))

    async def pay(self, key: str, document: str, amount: float) -> dict[str, Any]:
        body = {
            "pixKey": key,
            "payment": {"currency": "BRL", "amount": amount},
            "priority": "HIGH",
            "creditorDocument": document,
        }
        headers = self.auth | {"x-idempotency-key": str(uuid.uuid4())}
        response = await self.http.post("/dict/pix", json=body, headers=headers)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    async def finished(self, transaction_id: int, within: float = 30) -> tuple[str, str | None]:
        """The transfer's state and error code, once it is no longer PENDING."""
        async with asyncio.timeout(within):
            while True:
                [row] = await fetch_rows(
                    self.database,
                    "SELECT state, error_code FROM transfers WHERE transaction_id = $1",
                    transaction_id,
                )
                if row["state"] != "PENDING":
                    return row["state"], row["error_code"]
                await asyncio.sleep(0.1)


@dataclass
class World:
    network_database: str
    banks: dict[str, Institution]


def _pem(blob: trustme.Blob, path: Path) -> Path:
    blob.write_to_path(str(path))
    return path


async def _institution(
    name: str, ispb: str, folder: Path, ca: trustme.CA, *, network_cert: Path, network_url: str
) -> tuple[dict[str, str], NetworkAccess, bytes]:
    issued = ca.issue_cert(f"{ispb}.participants.pix.example", key_type=trustme.KeyType.RSA)
    files = folder / name
    files.mkdir()
    access = NetworkAccess(
        url=network_url,
        certificate=_pem(issued.cert_chain_pems[0], files / "cert.pem"),
        private_key=_pem(issued.private_key_pem, files / "key.pem"),
        authority=_pem(ca.cert_pem, files / "ca.pem"),
        network_certificate=network_cert,
    )
    env = {
        "PIX_ISPB": ispb,
        "PIX_INSTITUTION_NAME": f"Banco {name}",
        "PIX_NETWORK_URL": network_url,
        "PIX_NETWORK_CERTIFICATE": str(access.certificate),
        "PIX_NETWORK_PRIVATE_KEY": str(access.private_key),
        "PIX_NETWORK_CA_CERTIFICATE": str(access.authority),
        "PIX_NETWORK_SIGNER_CERTIFICATE": str(network_cert),
    }
    return env, access, issued.cert_chain_pems[0].bytes()


@pytest.fixture(scope="module")
async def world(database_server: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    """The network and both institutions, once for the module (the tests read changes, not totals)."""
    tmp_path = tmp_path_factory.mktemp("two-institutions")
    ca = trustme.CA(key_type=trustme.KeyType.RSA)
    network = ca.issue_cert("127.0.0.1", key_type=trustme.KeyType.RSA)
    network_cert = _pem(network.cert_chain_pems[0], tmp_path / "network.pem")
    network_key = _pem(network.private_key_pem, tmp_path / "network.key")
    ca_file = _pem(ca.cert_pem, tmp_path / "ca.pem")
    async with (
        scratch_database(database_server, "pixnet_two") as network_url_db,
        scratch_database(database_server, "bank_a") as bank_a,
        scratch_database(database_server, "bank_b") as bank_b,
    ):
        pool = await asyncpg.create_pool(network_url_db, min_size=1, max_size=8)
        async with pool.acquire() as connection:
            await migrate(connection)
        runner = web.AppRunner(make_app(pool, Identity(network_cert.read_bytes(), network_key.read_bytes())))
        await runner.setup()
        context = server_context(certificate=network_cert, private_key=network_key, authority=ca_file)
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
        await site.start()
        network_url = f"https://127.0.0.1:{runner.addresses[0][1]}"
        try:
            banks: dict[str, Institution] = {}
            async with contextlib.AsyncExitStack() as stack:
                for (name, ispb), database in zip(BANKS.items(), (bank_a, bank_b), strict=True):
                    env, access, cert = await _institution(
                        name, ispb, tmp_path, ca, network_cert=network_cert, network_url=network_url
                    )
                    async with pool.acquire() as connection:
                        await add_participant(connection, ispb, f"Banco {name}", cert)
                    await migrated_by_command(database, tmp_path / f"data-{name}")
                    key = f"cliente.{name.lower()}.{uuid.uuid4().hex[:6]}@example.com"
                    document = random_cpf()
                    opened, cert_header = await _open(database, ispb, key, document, access)
                    port = free_port()
                    service_env = process_env(database, tmp_path / f"data-{name}", **env)
                    base = await stack.enter_async_context(serving(service_env, port))
                    http = await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=30))
                    token = await http.post(
                        "/api/auth/token",
                        json={"clientId": opened.client_id, "clientSecret": opened.client_secret},
                        headers={"X-SSL-Client-Cert": cert_header},
                    )
                    assert token.status_code == 201, token.text
                    auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
                    banks[name] = Institution(ispb, base, database, http, auth, key, document, service_env)
                yield World(network_url_db, banks)
        finally:
            await runner.cleanup()
            await pool.close()


async def _open(database: str, ispb: str, key: str, document: str, access: NetworkAccess) -> tuple[Any, str]:
    """An account of the institution, its key registered in the network's DICT, a certificate linked."""
    client = NetworkClient(access)
    try:
        async with opened_database(database, max_size=2) as db:
            uow = partial(PostgresUnitOfWork, db)
            opened = await open_account(
                uow,
                HASHER,
                ispb=ispb,
                name="Cliente " + ispb,
                document=document,
                city="RECIFE",
                keys=(key,),
                registry=NetworkKeyRegistry(client),
            )
            _, cert_pem, info = create_self_signed(f"client-{ispb}")
            await link_certificate(uow, account_id=opened.account.id, certificate=info, clock=SystemClock())
    finally:
        await client.close()
    return opened, certificate_header(cert_pem)


async def _fund_settlement(world: World, ispb: str, cents: int) -> None:
    """The operator puts ``cents`` in (or, below zero, takes them out of) a settlement account."""
    connection = await asyncpg.connect(world.network_database)
    try:
        await fund(connection, ispb, cents, f"test-{uuid.uuid4().hex[:8]}", datetime.now(UTC))
    finally:
        await connection.close()


async def _settlement(world: World) -> dict[str, int]:
    rows = await fetch_rows(world.network_database, "SELECT ispb, balance FROM settlement_accounts")
    return {row["ispb"]: row["balance"] for row in rows}


async def _fund_customer(bank: Institution, amount: str) -> None:
    response = await bank.http.post(
        "/sandbox/payments", json={"pixKey": bank.key, "amount": amount}, headers=bank.auth
    )
    assert response.status_code == 201, response.text


async def test_a_pix_from_a_to_a_key_of_b_settles_between_the_institutions(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await _fund_settlement(world, a.ispb, 100_000)
    await _fund_customer(a, "50.00")
    before, (a_before, _), (b_before, _) = await _settlement(world), await a.balance(), await b.balance()

    sent = await a.pay(b.key, b.document, 12.34)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    assert await a.balance() == (a_before - Decimal("12.34"), Decimal("0.00"))
    async with asyncio.timeout(30):
        while (await b.balance())[0] != b_before + Decimal("12.34"):  # noqa: ASYNC110 - the other service
            await asyncio.sleep(0.1)
    after = await _settlement(world)
    assert (after[a.ispb] - before[a.ispb], after[b.ispb] - before[b.ispb]) == (-1234, 1234)
    [credited] = await fetch_rows(
        b.database,
        "SELECT amount, counterpart_ispb FROM transactions WHERE end_to_end_id = $1",
        sent["endToEndId"],
    )
    assert (credited["amount"], credited["counterpart_ispb"]) == (1234, a.ispb)
    connection = await asyncpg.connect(world.network_database)
    try:
        assert (await check_ledger(connection))["ok"] is True
    finally:
        await connection.close()


async def test_a_pix_the_payers_settlement_account_does_not_cover_ends_in_error_with_the_money_back(
    world: World,
) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await _fund_customer(a, "50.00")
    held = (await _settlement(world))[a.ispb]
    await _fund_settlement(world, a.ispb, 1_000 - held)  # 10.00 left at the SPI
    a_before, b_before = await a.balance(), await b.balance()
    sent = await a.pay(b.key, b.document, 20.0)
    assert await a.finished(sent["id"]) == ("ERROR", "AM04")
    assert await a.balance() == a_before  # the money back
    assert await b.balance() == b_before
    assert (await _settlement(world))[a.ispb] == 1_000


async def test_a_refund_of_a_pix_from_another_institution_goes_back_through_the_spi(world: World) -> None:
    a, b = world.banks["A"], world.banks["B"]
    await _fund_settlement(world, a.ispb, 100_000)
    await _fund_customer(a, "30.00")
    sent = await a.pay(b.key, b.document, 20.0)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    async with asyncio.timeout(30):  # B credited its customer
        while not await fetch_rows(  # noqa: ASYNC110 - polls the other service's database
            b.database,
            "SELECT 1 FROM network_receipts WHERE end_to_end_id = $1 AND state = 'CREDITED'",
            sent["endToEndId"],
        ):
            await asyncio.sleep(0.1)
    settlement, (a_before, _), (b_before, _) = await _settlement(world), await a.balance(), await b.balance()

    refund = await b.http.put(
        f"/pix/{sent['endToEndId']}/devolucao/volta1", json={"valor": "5.00"}, headers=b.auth
    )
    assert refund.status_code == 201, refund.text
    async with asyncio.timeout(30):
        while (await a.balance())[0] != a_before + Decimal("5.00"):  # noqa: ASYNC110 - the other service
            await asyncio.sleep(0.1)
    read = await b.http.get(f"/pix/{sent['endToEndId']}/devolucao/volta1", headers=b.auth)
    assert read.json()["status"] == "DEVOLVIDO"
    assert (await b.balance())[0] == b_before - Decimal("5.00")
    after = await _settlement(world)
    assert (after[a.ispb] - settlement[a.ispb], after[b.ispb] - settlement[b.ispb]) == (500, -500)
    [returned] = await fetch_rows(
        a.database, "SELECT type, amount FROM transactions WHERE end_to_end_id = $1", read.json()["rtrId"]
    )
    assert (returned["type"], returned["amount"]) == ("REFUND_OUT", 500)


async def _command(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_money_is_conserved_across_the_network(world: World, tmp_path: Path) -> None:
    """Each institution's own ledger check, then the network's over both: every report holds and
    what each institution's books say went to the other is what the SPI settled between them."""
    a, b = world.banks["A"], world.banks["B"]
    await _fund_settlement(world, a.ispb, 10_000)
    await _fund_customer(a, "9.00")
    sent = await a.pay(b.key, b.document, 3.0)
    assert await a.finished(sent["id"]) == ("COMPLETED", None)
    files = []
    for bank in (a, b):
        code, out, err = await _command(bank.env, str(BIN / "pixweb"), "admin", "ledger", "check")
        assert code == 0, err
        (tmp_path / f"{bank.ispb}.json").write_text(out)
        files.append(f"--institution={bank.ispb}={tmp_path / f'{bank.ispb}.json'}")
    network_env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))}
    network_env["PIXNET_DATABASE_URL"] = world.network_database
    code, out, err = await _command(network_env, str(BIN / "pixnet"), "admin", "ledger", "check", *files)
    assert code == 0, out + err
    report = json.loads(out)
    assert (report["ok"], report["institutions"], report["networkMismatches"]) == (True, [a.ispb, b.ispb], [])

    books = json.loads((tmp_path / f"{a.ispb}.json").read_text())
    books["outside"] = [dict(row, balance=row["balance"] + 1) for row in books["outside"]]  # a centavo astray
    (tmp_path / f"{a.ispb}.json").write_text(json.dumps(books))
    code, out, _ = await _command(network_env, str(BIN / "pixnet"), "admin", "ledger", "check", *files)
    assert code == 1
    assert any(f"{a.ispb}'s books say" in line for line in json.loads(out)["networkMismatches"])
