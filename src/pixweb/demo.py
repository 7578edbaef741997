"""The demo account that ``make run`` creates once and explains.

Its client credentials, certificate and key live in ``<data dir>/demo/``; a
later start finds them there and reuses the account.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from pixcore.accounts.accounts_service import link_certificate, open_account
from pixcore.accounts.ports import KeyRegistry, SecretHasher
from pixcore.accounts.rules import OpenedAccount
from pixcore.clock import SystemClock
from pixcore.errors import DuplicatePixKey
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.security.certificates import create_self_signed, write_private

__all__ = ["Demo", "banner", "ensure_demo", "instructions", "write_token_request"]

DEMO_NAME = "Demo Account"
DEMO_DOCUMENT = "12345678909"
DEMO_KEYS = (DEMO_DOCUMENT, "demo@pix.example")


@dataclass(frozen=True, slots=True)
class Demo:
    account_id: int
    client_id: str
    client_secret: str
    keys: list[str]
    cert_pem: str


def _folder(settings: Settings) -> Path:
    return settings.data_dir / "demo"


async def _load(settings: Settings, uow: UnitOfWorkFactory) -> Demo | None:
    folder = _folder(settings)
    try:
        saved = json.loads((folder / "client.json").read_text())
        cert_pem = (folder / "client-cert.pem").read_text()
    except (OSError, ValueError):
        return None
    async with uow() as tx:
        credential = await tx.credentials.get(saved["clientId"])
    if credential is None or credential.account_id != saved["accountId"]:
        return None  # the database was replaced: make a new demo
    return Demo(saved["accountId"], saved["clientId"], saved["clientSecret"], saved["keys"], cert_pem)


async def _open(
    settings: Settings,
    uow: UnitOfWorkFactory,
    hasher: SecretHasher,
    keys: tuple[str, ...],
    registry: KeyRegistry | None = None,
) -> OpenedAccount:
    return await open_account(
        uow,
        hasher,
        ispb=settings.ispb,
        name=DEMO_NAME,
        document=DEMO_DOCUMENT,
        city=settings.city,
        keys=keys,
        sandbox_admin=True,  # who runs `make run` is the operator of that sandbox: it may move the clock
        registry=registry,
    )


def demo_keys(settings: Settings) -> tuple[str, ...]:
    """The demo account's keys: its holder's CPF and an e-mail; on a network, where each
    institution has its demo account and a key has one holder in the DICT, an e-mail of the
    institution's own (``demo.<ISPB>@pix.example``)."""
    return DEMO_KEYS if settings.network is None else (f"demo.{settings.ispb}@pix.example",)


async def ensure_demo(
    settings: Settings, uow: UnitOfWorkFactory, hasher: SecretHasher, registry: KeyRegistry | None = None
) -> tuple[Demo, bool]:
    """The demo account, created on first use. Returns it and whether it is new.

    Never in production mode (docs/decisions/production-mode.md): its secret and key are printed and kept
    on disk.
    """
    if settings.production:
        raise ValueError("production mode has no demo account")
    existing = await _load(settings, uow)
    if existing:
        return existing, False
    try:
        opened = await _open(settings, uow, hasher, demo_keys(settings), registry)
    except DuplicatePixKey:  # a shared database already has a demo's keys: take a random key
        opened = await _open(settings, uow, hasher, (), registry)
    clock = SystemClock()  # the certificate is made valid from the wall clock's now, and linked so
    key_pem, cert_pem, info = create_self_signed(f"demo-account-{opened.account.id}", now=clock.now())
    await link_certificate(uow, account_id=opened.account.id, certificate=info, clock=clock)
    folder = _folder(settings)
    write_private(folder / "client-key.pem", key_pem)
    write_private(folder / "client-cert.pem", cert_pem)
    demo = Demo(
        opened.account.id,
        opened.client_id,
        opened.client_secret,
        [k.value for k in opened.keys],
        cert_pem.decode(),
    )
    saved = {"accountId": demo.account_id, "clientId": demo.client_id, "clientSecret": demo.client_secret}
    write_private(folder / "client.json", json.dumps(saved | {"keys": demo.keys}, indent=2).encode())
    return demo, True


def _shown(path: Path) -> str:
    """``path`` as a command typed in the current folder names it: relative below it."""
    resolved = path.resolve()
    try:
        return str(resolved.relative_to(Path.cwd()))
    except ValueError:
        return str(resolved)


def write_token_request(settings: Settings, demo: Demo) -> tuple[Path, Path]:
    """The demo's token request as two files curl reads (``-H @headers -d @body``): its headers (the
    certificate URL-encoded in ``X-SSL-Client-Cert``, as a TLS-terminating proxy forwards it) and
    its body (the client id and secret). Both private, beside the demo's credentials."""
    folder = _folder(settings)
    headers, body = folder / "token.headers", folder / "token.json"
    cert = quote(demo.cert_pem, safe="")
    write_private(headers, f"Content-Type: application/json\nX-SSL-Client-Cert: {cert}\n".encode())
    write_private(body, json.dumps({"clientId": demo.client_id, "clientSecret": demo.client_secret}).encode())
    return headers, body


def banner(settings: Settings, demo: Demo, base_url: str) -> str:
    """What ``make run`` shows first, in a box: where the API and the console are, the demo's
    credentials, and one curl for a token."""
    headers, body = _folder(settings) / "token.headers", _folder(settings) / "token.json"
    token = f"curl -s -X POST {base_url}/api/auth/token -H @{_shown(headers)} -d @{_shown(body)}"
    rows = [
        ("API", f"{base_url}   (reference: {base_url}/schema)"),
        ("Console", f"{base_url}/console"),
        ("", f"client id  {demo.client_id}"),
        ("", f"secret     {demo.client_secret}"),
        ("Token", token),
        ("Keys", ", ".join(demo.keys)),
    ]
    lines = [f" {label:<8} {text}" for label, text in rows]
    width = max(len(line) for line in lines) + 1
    title = f" PIX sandbox: demo account {demo.account_id} "
    return "\n".join(
        [
            "╭─" + title + "─" * (width - len(title) - 1) + "╮",
            *(f"│{line:<{width}}│" for line in lines),
            "╰" + "─" * width + "╯",
        ]
    )


def instructions(settings: Settings, demo: Demo, base_url: str) -> str:
    """The exact commands that get a token and read the demo balance."""
    headers, body = write_token_request(settings, demo)
    token_cmd = f"curl -s -X POST {base_url}/api/auth/token -H @{_shown(headers)} -d @{_shown(body)}"
    extract = "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"access_token\"])'"
    return "\n".join(
        [
            f"Demo account {demo.account_id}, PIX keys: {', '.join(demo.keys)}",
            "",
            "Get a token:",
            f"  TOKEN=$({token_cmd} | {extract})",
            "",
            "Read the balance:",
            f'  curl -s {base_url}/accounts/balances -H "Authorization: Bearer $TOKEN"',
            f'  curl -s {base_url}/balance -H "Authorization: Bearer $TOKEN"',
            "",
            f"API reference: {base_url}/schema",
        ]
    )
