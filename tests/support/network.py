"""Two institutions on one network, for the tests: a ``pixnet`` (in the test's process, or
``pixnet serve`` as a process to be killed) and two ``pixweb serve`` on it, each with an account
whose key is registered in the network's DICT; and what the tests do with them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import trustme
from aiohttp import web

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.clock import SystemClock
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.settings import NetworkAccess
from pixnet.server.app import Identity, make_app
from pixnet.server.tls import server_context
from pixnet.settlement.spi import fund
from pixnet.store.entries import add_participant
from pixnet.store.schema import migrate
from pixweb.network.client import NetworkClient
from pixweb.network.registry import NetworkKeyRegistry
from pixweb.security.certificates import create_self_signed
from tests.support.clients import HASHER, certificate_header, random_cpf
from tests.support.databases import fetch_rows, opened_database, scratch_database
from tests.support.processes import free_port, migrated_by_command, process_env, serving_process, stop_process

BANKS = (("A", "11111111"), ("B", "22222222"))
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
    process: asyncio.subprocess.Process
    """Its ``pixweb serve`` (a test may stop it: the institution is down)."""

    async def balance(self) -> tuple[Decimal, Decimal]:
        response = await self.http.get("/accounts/balances", headers=self.auth)
        assert response.status_code == 200, response.text
        amount = response.json()["data"][0]["balanceAmount"]
        return Decimal(str(amount["available"])), Decimal(str(amount["blocked"]))

    async def send(self, key: str, document: str, amount: float) -> httpx.Response:
        """``POST /dict/pix`` (HIGH) of ``amount`` to ``key``: the answer, whatever it is."""
        body = {
            "pixKey": key,
            "payment": {"currency": "BRL", "amount": amount},
            "priority": "HIGH",
            "creditorDocument": document,
        }
        headers = self.auth | {"x-idempotency-key": str(uuid.uuid4())}
        return await self.http.post("/dict/pix", json=body, headers=headers)

    async def pay(self, key: str, document: str, amount: float) -> dict[str, Any]:
        response = await self.send(key, document, amount)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    async def refund(self, end_to_end_id: str, refund_id: str, valor: str) -> httpx.Response:
        """``PUT /pix/{e2eid}/devolucao/{id}`` of a PIX this account received: the answer."""
        return await self.http.put(
            f"/pix/{end_to_end_id}/devolucao/{refund_id}", json={"valor": valor}, headers=self.auth
        )

    async def refund_status(self, end_to_end_id: str, refund_id: str) -> str:
        response = await self.http.get(f"/pix/{end_to_end_id}/devolucao/{refund_id}", headers=self.auth)
        assert response.status_code == 200, response.text
        status: str = response.json()["status"]
        return status

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
    network: NetworkProcess | None = None
    """``pixnet serve``, when it runs as a process of its own."""


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


class NetworkProcess:
    """``pixnet serve`` as a process of its own, to be killed and started again."""

    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = env, port, log
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = await asyncio.create_subprocess_exec(
                str(BIN / "pixnet"), "serve", env=self.env, stdout=out, stderr=out
            )
        async with asyncio.timeout(60):
            while True:
                if self.process.returncode is not None:
                    raise AssertionError(f"pixnet serve stopped at start: {self.log.read_text()[-2000:]}")
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                except OSError:
                    await asyncio.sleep(0.1)
                    continue
                writer.close()
                return

    async def kill(self) -> None:
        """SIGKILL: no goodbye, as a machine that dies."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None:
            assert await stop_process(self.process, "pixnet serve") == 0


@asynccontextmanager
async def two_institutions(
    database_server: str, folder: Path, *, network_process: bool = False, payee_timeout: float = 10
) -> AsyncIterator[World]:
    """A network (in this process, or ``pixnet serve`` as a process with ``network_process``)
    and institutions A and B, each a ``pixweb serve`` on it with one account and its key
    registered in the DICT; everything stopped and dropped on the way out."""
    ca = trustme.CA(key_type=trustme.KeyType.RSA)
    network = ca.issue_cert("127.0.0.1", key_type=trustme.KeyType.RSA)
    network_cert = _pem(network.cert_chain_pems[0], folder / "network.pem")
    network_key = _pem(network.private_key_pem, folder / "network.key")
    ca_file = _pem(ca.cert_pem, folder / "ca.pem")
    async with (
        scratch_database(database_server, "pixnet_two") as network_database,
        scratch_database(database_server, "bank_a") as bank_a,
        scratch_database(database_server, "bank_b") as bank_b,
        contextlib.AsyncExitStack() as stack,
    ):
        pool = await asyncpg.create_pool(network_database, min_size=1, max_size=8)
        stack.push_async_callback(pool.close)
        async with pool.acquire() as connection:
            await migrate(connection)
        running: NetworkProcess | None = None
        if network_process:
            port = free_port()
            env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))} | {
                "PIXNET_DATABASE_URL": network_database,
                "PIXNET_PORT": str(port),
                "PIXNET_CERTIFICATE": str(network_cert),
                "PIXNET_PRIVATE_KEY": str(network_key),
                "PIXNET_CA_CERTIFICATE": str(ca_file),
                "PIXNET_PAYEE_TIMEOUT": str(payee_timeout),
                "PIXNET_LOG_LEVEL": "WARNING",
            }
            running = NetworkProcess(env, port, folder / "pixnet.log")
            await running.start()
            stack.push_async_callback(running.kill)
            network_url = f"https://127.0.0.1:{port}"
        else:
            identity = Identity(network_cert.read_bytes(), network_key.read_bytes())
            runner = web.AppRunner(make_app(pool, identity, payee_timeout=timedelta(seconds=payee_timeout)))
            await runner.setup()
            stack.push_async_callback(runner.cleanup)
            context = server_context(certificate=network_cert, private_key=network_key, authority=ca_file)
            await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context).start()
            network_url = f"https://127.0.0.1:{runner.addresses[0][1]}"
        banks: dict[str, Institution] = {}
        for (name, ispb), database in zip(BANKS, (bank_a, bank_b), strict=True):
            env, access, cert = await _institution(
                name, ispb, folder, ca, network_cert=network_cert, network_url=network_url
            )
            async with pool.acquire() as connection:
                await add_participant(connection, ispb, f"Banco {name}", cert)
            await migrated_by_command(database, folder / f"data-{name}")
            key = f"cliente.{name.lower()}.{uuid.uuid4().hex[:6]}@example.com"
            document = random_cpf()
            opened, cert_header = await _open(database, ispb, key, document, access)
            service_env = process_env(database, folder / f"data-{name}", **env)
            base, process = await stack.enter_async_context(serving_process(service_env, free_port()))
            http = await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=30))
            token = await http.post(
                "/api/auth/token",
                json={"clientId": opened.client_id, "clientSecret": opened.client_secret},
                headers={"X-SSL-Client-Cert": cert_header},
            )
            assert token.status_code == 201, token.text
            auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
            banks[name] = Institution(ispb, base, database, http, auth, key, document, service_env, process)
        yield World(network_database, banks, running)


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


async def fund_settlement(world: World, ispb: str, cents: int) -> None:
    """The operator puts ``cents`` in (or, below zero, takes them out of) a settlement account."""
    connection = await asyncpg.connect(world.network_database)
    try:
        await fund(connection, ispb, cents, f"test-{uuid.uuid4().hex[:8]}", datetime.now(UTC))
    finally:
        await connection.close()


async def settlement(world: World) -> dict[str, int]:
    rows = await fetch_rows(world.network_database, "SELECT ispb, balance FROM settlement_accounts")
    return {row["ispb"]: row["balance"] for row in rows}


async def fund_customer(bank: Institution, amount: str) -> None:
    response = await bank.http.post(
        "/sandbox/payments", json={"pixKey": bank.key, "amount": amount}, headers=bank.auth
    )
    assert response.status_code == 201, response.text


async def command(env: dict[str, str], *args: str, within: float = 120) -> tuple[int, str, str]:
    """A command run to its end: its exit status, standard output and standard error."""
    process = await asyncio.create_subprocess_exec(
        *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=within)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def network_env(world: World) -> dict[str, str]:
    """The environment of the network's operator commands (``pixnet admin ...``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))}
    return env | {"PIXNET_DATABASE_URL": world.network_database}


async def ledger_reports(world: World, folder: Path) -> list[str]:
    """Each institution's ``pixweb admin ledger check``, asserted to hold, its report written to
    ``folder``: the ``--institution`` arguments of ``pixnet admin ledger check``."""
    checks = [
        command(bank.env, str(BIN / "pixweb"), "admin", "ledger", "check") for bank in world.banks.values()
    ]
    arguments = []
    for bank, (code, out, err) in zip(world.banks.values(), await asyncio.gather(*checks), strict=True):
        assert code == 0, out + err
        (folder / f"{bank.ispb}.json").write_text(out)
        arguments.append(f"--institution={bank.ispb}={folder / f'{bank.ispb}.json'}")
    return arguments


async def books_agree(world: World, folder: Path) -> None:
    """Money across the whole network: each institution's books hold, the network's do, and what
    each institution's books say went to the other is what the SPI settled between them."""
    arguments = await ledger_reports(world, folder)
    code, out, err = await command(
        network_env(world), str(BIN / "pixnet"), "admin", "ledger", "check", *arguments
    )
    assert code == 0, out + err
    report = json.loads(out)
    assert (report["ok"], report["networkMismatches"]) == (True, []), report


async def in_flight(world: World) -> list[str]:
    """What is still on its way anywhere on the network, one line each (none: everything has
    finished): a transfer PENDING, a refund EM_PROCESSAMENTO or a payment accepted and not yet
    credited or dropped at an institution; a payment the SPI has not decided; a return the SPI
    settled that its receiving institution has not credited yet."""
    waiting = []
    for name, bank in world.banks.items():
        for what, sql in (
            ("transfers PENDING", "SELECT transaction_id::text AS id FROM transfers WHERE state = 'PENDING'"),
            (
                "refunds EM_PROCESSAMENTO",
                "SELECT rtr_id AS id FROM refunds WHERE status = 'EM_PROCESSAMENTO'",
            ),
            (
                "payments ACCEPTED",
                "SELECT end_to_end_id AS id FROM network_receipts WHERE state = 'ACCEPTED'",
            ),
        ):
            if rows := await fetch_rows(bank.database, sql):
                waiting.append(f"{name}: {what}: {', '.join(row['id'] for row in rows)}")
    if rows := await fetch_rows(
        world.network_database, "SELECT end_to_end_id FROM payments WHERE status = 'PDNG'"
    ):
        waiting.append(f"the SPI: payments PDNG: {', '.join(row['end_to_end_id'] for row in rows)}")
    returned = await fetch_rows(
        world.network_database, "SELECT return_id, receiver FROM returns WHERE status = 'ACSC'"
    )
    for name, bank in world.banks.items():
        sent = [row["return_id"] for row in returned if row["receiver"] == bank.ispb]
        credited = await fetch_rows(
            bank.database,
            "SELECT end_to_end_id FROM transactions"
            " WHERE type = 'REFUND_OUT' AND end_to_end_id = ANY($1::text[])",
            sent,
        )
        if missing := sorted(set(sent) - {row["end_to_end_id"] for row in credited}):
            waiting.append(f"{name}: returns settled, not credited: {', '.join(missing)}")
    return waiting


async def all_finished(world: World, within: float = 60) -> None:
    """Wait until nothing is on its way (:func:`in_flight`); a failure lists what still is."""
    deadline = asyncio.get_running_loop().time() + within
    while waiting := await in_flight(world):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"still on its way after {within} s: {waiting}")
        await asyncio.sleep(0.1)
