"""Accounts as their API clients see them: opened on a database, with certificates and tokens."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

import httpx
from argon2 import PasswordHasher, profiles

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.accounts.rules import DEFAULT_ADDRESS, OpenedAccount
from pixcore.clock import SystemClock
from pixcore.documents import cnpj_check_digits, cpf_check_digits
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.security.certificates import create_self_signed
from pixweb.security.secrets import Argon2Hasher

HASHER = Argon2Hasher(PasswordHasher.from_parameters(profiles.CHEAPEST))
"""Argon2id at its cheapest for the tests' secrets: the service verifies a secret with the parameters
its hash carries, so a token costs the suite microseconds instead of a quarter of a second of CPU.
Accounts opened by the service itself (``pixweb admin account create``) get the real parameters."""


def random_cpf(rng: random.Random | None = None) -> str:
    rng = rng or random.Random()  # noqa: S311 - test data, not secrets
    while True:
        base = "".join(rng.choice("0123456789") for _ in range(9))
        if len(set(base)) > 1:
            return base + cpf_check_digits(base)


def random_cnpj(rng: random.Random | None = None) -> str:
    rng = rng or random.Random()  # noqa: S311 - test data, not secrets
    while True:
        base = "".join(rng.choice("0123456789") for _ in range(12))
        if len(set(base)) > 1:
            return base + cnpj_check_digits(base)


@dataclass(frozen=True)
class Client:
    """An account as its API client sees it: credentials, certificate, header value."""

    opened: OpenedAccount
    cert_pem: bytes
    fingerprint: str

    @property
    def account_id(self) -> int:
        return self.opened.account.id

    @property
    def cert_header(self) -> str:
        return certificate_header(self.cert_pem)

    @property
    def credentials(self) -> dict[str, str]:
        return {"clientId": self.opened.client_id, "clientSecret": self.opened.client_secret}


def certificate_header(pem: bytes) -> str:
    return quote(pem.decode(), safe="")


async def new_client(
    uow: UnitOfWorkFactory,
    *,
    link: bool = True,
    cert_now: datetime | None = None,
    days: int = 365,
    sandbox_admin: bool = False,
    name: str = "Test Holder",
    keys: tuple[str, ...] = (),
    company: bool = False,
) -> Client:
    """Open an account on ``uow``'s database (the ``pg_uow`` fixture: the run's) with a random CPF
    and a random key, and (by default) link a new certificate.
    ``sandbox_admin``: as ``pixweb admin account create --sandbox-admin`` (it may move the clock).
    ``name``: the holder's (the console's header shows it). ``keys``: its keys (default one EVP).
    ``company``: a company's account (a random CNPJ), as Pix Automático's receivers are.

    With ``cert_now`` the certificate is valid from then: one that expired (or is not yet valid)
    by now is linked as if it had been linked while valid, through the repository, since
    ``link_certificate`` refuses it today.
    """
    opened = await open_account(
        uow,
        HASHER,
        ispb="99999999",
        name=name,
        document=random_cnpj() if company else random_cpf(),
        city=DEFAULT_ADDRESS.city,  # and the rest of that address in Sao Paulo
        sandbox_admin=sandbox_admin,
        keys=keys,
    )
    _, cert_pem, info = create_self_signed(f"test-{opened.account.id}", now=cert_now, days=days)
    if link and cert_now is None:
        await link_certificate(uow, account_id=opened.account.id, certificate=info, clock=SystemClock())
    elif link:
        async with uow() as tx:
            await tx.certificates.link(opened.account.id, info)
            await tx.commit()
    return Client(opened=opened, cert_pem=cert_pem, fingerprint=info.fingerprint)


async def bearer(http: httpx.AsyncClient, client: Client) -> dict[str, str]:
    """The Authorization header of a fresh token for ``client``."""
    response = await http.post(
        "/api/auth/token", json=client.credentials, headers={"X-SSL-Client-Cert": client.cert_header}
    )
    if response.status_code != 201:
        raise AssertionError(f"token refused: {response.status_code} {response.text}")
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


async def fund(http: httpx.AsyncClient, client: Client, auth: dict[str, str], amount: str) -> None:
    """Credit ``amount`` (a decimal string) to the client's first key, as an outside payer would."""
    key = client.opened.keys[0].value
    response = await http.post("/sandbox/payments", json={"pixKey": key, "amount": amount}, headers=auth)
    if response.status_code != 201:
        raise AssertionError(f"funding refused: {response.status_code} {response.text}")


async def add_external_key(
    http: httpx.AsyncClient,
    auth: dict[str, str],
    *,
    behavior: str = "settle",
    ispb: str = "12345678",
    name: str = "Outside Person",
) -> tuple[str, str]:
    """Register a key of another bank in the sandbox directory; returns (key, owner's document)."""
    key, document = f"{uuid.uuid4().hex[:12]}@external.example", random_cpf()
    entry = {
        "pixKey": key,
        "ispb": ispb,
        "name": name,
        "document": document,
        "bankName": "OTHER BANK",
        "branch": "0001",
        "accountNumber": "123",
        "behavior": behavior,
    }
    response = await http.post("/sandbox/dict", json=entry, headers=auth)
    if response.status_code != 201:
        raise AssertionError(f"directory refused the key: {response.status_code} {response.text}")
    return key, document
