"""A mixed load of transfers, receipts and refunds, driven over HTTP as clients would drive it.

Each operation is retried until the service acknowledges it: after a refused or cut connection
(the API was killed) and after a 503 (the database is away), as a client that did not hear the
answer must. A transfer is retried with the same idempotency key and a refund with the same id,
so that a retry can never make a second one. Every answer is recorded: the acknowledged
operations (to be found in the database afterwards), the refused ones (never to be found there),
the status codes, any 503 whose body or headers are wrong, and any request that timed out (a hang).

The load runs accounts short on purpose: one transfer in eight sends a half to the whole of an
account's starting funds to another bank, so balances reach zero and ordinary transfers and
refunds meet an empty account; every twentieth operation asks for more than can ever be there (a
transfer above every balance the load can make, 422), and as many others ask for a refund of one
centavo more than the receipt (400). Those must be refused, whatever the fault; the others may be
refused only as the service's rules say, and each refusal is proven to have left nothing behind.
"""

from __future__ import annotations

import asyncio
import random
import string
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.faults.processes import run_cli
from tests.support import certificate_header, random_cpf

CLIENT_TIMEOUT = 30.0  # seconds: a request that takes longer counts as a hang
OPERATION_DEADLINE = 300.0  # seconds of retries before an operation is given up (and the test fails)


@dataclass
class Account:
    """An account opened with the operator's commands, as its API client holds it."""

    id: int
    key: str
    document: str
    client_id: str
    client_secret: str
    cert_header: str
    auth: dict[str, str] = field(default_factory=dict)


async def open_account(env: dict[str, str], folder: Path, n: int) -> Account:
    document = random_cpf()
    opened = await run_cli(
        env,
        "pixweb",
        "admin",
        "account",
        "create",
        f"--name=Fault Holder {n}",
        f"--document={document}",
        f"--key=holder{n}.{uuid.uuid4().hex[:8]}@fault.example",
    )
    out = folder / f"cert-{opened['accountId']}"
    await run_cli(
        env, "pixweb", "admin", "cert", "create", f"--account={opened['accountId']}", f"--out={out}"
    )
    return Account(
        id=opened["accountId"],
        key=opened["keys"][0],
        document=document,
        client_id=opened["clientId"],
        client_secret=opened["clientSecret"],
        cert_header=certificate_header((out / "client-cert.pem").read_bytes()),
    )


async def sign_in(http: httpx.AsyncClient, api: str, account: Account) -> None:
    response = await http.post(
        f"{api}/api/auth/token",
        json={"clientId": account.client_id, "clientSecret": account.client_secret},
        headers={"X-SSL-Client-Cert": account.cert_header},
    )
    assert response.status_code == 201, response.text
    account.auth = {"Authorization": f"Bearer {response.json()['access_token']}"}


async def add_external_key(
    http: httpx.AsyncClient, api: str, account: Account, behavior: str
) -> tuple[str, str]:
    """A key of another bank in the sandbox directory: (key, its owner's document)."""
    key, document = f"{uuid.uuid4().hex[:12]}@other.example", random_cpf()
    entry = {
        "pixKey": key,
        "ispb": "12345678",
        "name": "Outside Person",
        "document": document,
        "bankName": "OTHER BANK",
        "branch": "0001",
        "accountNumber": "123",
        "behavior": behavior,
    }
    response = await http.post(f"{api}/sandbox/dict", json=entry, headers=account.auth)
    assert response.status_code == 201, response.text
    return key, document


@dataclass
class Receipt:
    account: Account
    end_to_end_id: str
    amount: int
    refundable: int  # centavos not yet asked back by this load


BEYOND_EVERY_BALANCE = 7  # operation numbers n with n % 20 == 7: a transfer no balance covers
BEYOND_THE_RECEIPT = 13  # n % 20 == 13: a refund of one centavo more than the receipt


@dataclass
class Load:
    """``ops`` operations over ``accounts``, at most ``concurrency`` in flight, each sent to one of
    ``apis`` chosen at random (a load balancer). ``external``: keys of other banks, with their
    owners' documents (a HIGH-priority transfer names the creditor's)."""

    apis: Sequence[str]
    accounts: Sequence[Account]
    external: Sequence[tuple[str, str]]
    ops: int
    funds: int  # centavos each account received before the load
    concurrency: int = 50
    seed: int = 9
    # What happened, for the proofs:
    transfers: dict[str, str] = field(default_factory=dict)  # acknowledged: idempotency key -> e2e id
    sent_keys: set[str] = field(default_factory=set)  # every idempotency key sent
    receipts: list[Receipt] = field(default_factory=list)  # acknowledged receipts
    refunds: set[str] = field(default_factory=set)  # acknowledged refunds' rtrId
    refused_transfers: set[str] = field(default_factory=set)  # idempotency keys answered 422
    refused_refunds: set[str] = field(default_factory=set)  # refund ids answered 400
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    served: Counter[str] = field(default_factory=Counter)  # answers by API
    unexpected: list[str] = field(default_factory=list)  # answers no client should get
    malformed: list[str] = field(default_factory=list)  # 503s without the error shape or Retry-After
    hangs: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    connection_errors: int = 0
    done: int = 0

    def __post_init__(self) -> None:
        self._next = 0
        self._rng = random.Random(self.seed)  # noqa: S311 - test data
        self._progress = asyncio.Condition()

    # ------------------------------------------------------------------------------------ running

    async def run(self) -> None:
        limits = httpx.Limits(max_connections=self.concurrency + 10)
        async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT, limits=limits) as http:
            await asyncio.gather(*(self._worker(http) for _ in range(self.concurrency)))

    async def wait_done(self, count: int) -> None:
        """Until ``count`` operations have been acknowledged (or given up)."""
        async with self._progress:
            await self._progress.wait_for(lambda: self.done >= count)

    def _beyond_every_balance(self) -> int:
        """More than any account can hold: every account's funds, plus every receipt at its largest."""
        return self.funds * len(self.accounts) + self.ops * 500 + 1

    def _indices(self) -> Iterator[int]:
        while self._next < self.ops:
            self._next += 1
            yield self._next

    async def _worker(self, http: httpx.AsyncClient) -> None:
        for n in self._indices():
            draw = self._rng.random()
            account = self._rng.choice(self.accounts)
            refundable = [r for r in self.receipts if r.account is account and r.refundable > 0]
            if n % 20 == BEYOND_EVERY_BALANCE:
                await self._transfer(http, account, self._beyond_every_balance(), must_refuse=True)
            elif n % 20 == BEYOND_THE_RECEIPT and refundable:
                receipt = self._rng.choice(refundable)
                await self._refund(http, receipt, receipt.amount + 1, must_refuse=True)
            elif draw < 0.06:  # money that leaves the service: the accounts run dry
                cents = self._rng.randint(self.funds // 2, self.funds)
                await self._transfer(http, account, cents, outside=True)
            elif draw < 0.45:
                await self._transfer(http, account, self._rng.randint(1, 100))
            elif draw < 0.75 or not refundable:
                await self._receipt(http, account)
            else:
                receipt = self._rng.choice(refundable)
                await self._refund(http, receipt, min(receipt.refundable, self._rng.randint(1, 30)))
            async with self._progress:
                self.done += 1
                self._progress.notify_all()

    # ------------------------------------------------------------------------------------ operations

    async def _transfer(
        self,
        http: httpx.AsyncClient,
        account: Account,
        cents: int,
        *,
        outside: bool = False,
        must_refuse: bool = False,
    ) -> None:
        """Acknowledged (201), or refused for want of funds (422): a refusal must leave nothing.
        ``outside``: to another bank's key, never to another account of the service."""
        others = [] if outside else [(a.key, a.document) for a in self.accounts if a is not account]
        target, document = self._rng.choice([*self.external, *others])
        body: dict[str, Any] = {
            "pixKey": target,
            "payment": {"currency": "BRL", "amount": cents / 100},
        }
        if self._rng.random() < 0.5:
            body |= {"priority": "HIGH", "creditorDocument": document}
        key = str(uuid.uuid4())
        self.sent_keys.add(key)
        headers = account.auth | {"x-idempotency-key": key}
        answer = await self._send(
            http,
            "transfer",
            method="POST",
            path="/dict/pix",
            body=body,
            headers=headers,
            ok={201},
            refused=(422, "Insufficient"),
        )
        if answer is None:
            return
        if answer:
            self.transfers[key] = answer["endToEndId"]
            if must_refuse:
                self.unexpected.append(f"an overdraft: transfer {key} of {cents} centavos acknowledged")
        else:
            self.refused_transfers.add(key)

    async def _receipt(self, http: httpx.AsyncClient, account: Account) -> None:
        cents = self._rng.randint(100, 500)
        body = {"pixKey": account.key, "amount": cents / 100}
        answer = await self._send(
            http,
            "receipt",
            method="POST",
            path="/sandbox/payments",
            body=body,
            headers=account.auth,
            ok={201},
        )
        if answer is not None:
            self.receipts.append(Receipt(account, answer["endToEndId"], cents, cents))

    async def _refund(
        self, http: httpx.AsyncClient, receipt: Receipt, cents: int, *, must_refuse: bool = False
    ) -> None:
        """Acknowledged (201, or 200 for a retry that finds it made), or refused above what remains
        refundable (400): a refusal must leave nothing."""
        receipt.refundable -= cents  # before sending: a retry asks for the same refund, never more
        refund_id = "".join(self._rng.choice(string.ascii_letters + string.digits) for _ in range(20))
        path = f"/pix/{receipt.end_to_end_id}/devolucao/{refund_id}"
        body = {"valor": f"{cents // 100}.{cents % 100:02d}"}
        # 200: a retry found the refund its lost answer had created (same id, same body).
        answer = await self._send(
            http,
            "refund",
            method="PUT",
            path=path,
            body=body,
            headers=receipt.account.auth,
            ok={200, 201},
            refused=(400, "refundable") if must_refuse else None,
        )
        if answer is None:
            return
        if answer:
            self.refunds.add(answer["rtrId"])
            if must_refuse:
                self.unexpected.append(f"an over-refund: {cents} centavos of {receipt.end_to_end_id}")
        else:
            receipt.refundable += cents
            self.refused_refunds.add(refund_id)

    async def _send(
        self,
        http: httpx.AsyncClient,
        kind: str,
        *,
        method: str,
        path: str,
        body: dict[str, Any],
        headers: dict[str, str],
        ok: set[int],
        refused: tuple[int, str] | None = None,
    ) -> dict[str, Any] | None:
        """The answer's body once acknowledged; ``{}`` once refused as ``refused`` says (a status,
        and a word of the error's message); None if the service answered anything else or never."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + OPERATION_DEADLINE
        while True:
            api = self._rng.choice(self.apis)
            pause = 0.2
            try:
                response = await http.request(method, api + path, json=body, headers=headers)
            except httpx.TimeoutException as exc:
                self.hangs.append(f"{kind} {method} {path}: {exc!r}")
            except httpx.TransportError:  # refused, reset or cut: the API is down or was killed
                self.connection_errors += 1
            else:
                self.statuses[(kind, response.status_code)] += 1
                self.served[api] += 1
                if response.status_code in ok:
                    answer: dict[str, Any] = response.json()
                    return answer
                if (
                    refused
                    and response.status_code == refused[0]
                    and refused[1] in response.json()["message"]
                ):
                    return {}
                if response.status_code != 503:
                    self.unexpected.append(f"{kind} {response.status_code}: {response.text[:300]}")
                    return None
                pause = self._check_unavailable(response)
            if loop.time() > deadline:
                self.unfinished.append(f"{kind} {method} {path}")
                return None
            await asyncio.sleep(pause)

    def _check_unavailable(self, response: httpx.Response) -> float:
        """A 503 must carry the error shape and Retry-After; returns the pause it asks for."""
        retry_after = response.headers.get("retry-after", "")
        try:
            body = response.json()
        except ValueError:
            body = None
        shape_ok = (
            isinstance(body, dict)
            and set(body) == {"statusCode", "message", "error"}
            and body["statusCode"] == 503
            and body["error"] == "Service Unavailable"
            and isinstance(body["message"], str)
            and body["message"]
        )
        if not shape_ok or not retry_after.isdigit():
            self.malformed.append(f"503 {response.headers} {response.text[:300]}")
            return 1.0
        return min(float(retry_after), 2.0)


@asynccontextmanager
async def running(load: Load) -> Any:
    """The load in a task of its own; leaving the block waits for it to end."""
    task = asyncio.create_task(load.run())
    try:
        yield task
        await task
    finally:
        task.cancel()
