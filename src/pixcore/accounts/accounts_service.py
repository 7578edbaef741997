"""Opening accounts, linking certificates, reading balances."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Sequence

from pixcore.accounts.ports import KeyRegistry, SecretHasher
from pixcore.accounts.rules import (
    DEFAULT_ADDRESS,
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    NewAccount,
    OpenedAccount,
)
from pixcore.addresses import MAX_STREET, Address, is_postal_code, is_state
from pixcore.clock import Clock, format_timestamp
from pixcore.documents import parse_document
from pixcore.errors import (
    AccountNotFound,
    CertificateRevoked,
    DuplicatePixKey,
    InvalidCertificate,
    InvalidPixKey,
    NotSandboxAdmin,
    ValidationError,
)
from pixcore.identifiers import validate_ispb
from pixcore.keys import PixKey, PixKeyType, new_evp, parse_pix_key
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = ["get_account", "get_balance", "link_certificate", "open_account", "require_sandbox_admin"]

log = logging.getLogger(__name__)

MAX_NAME = 140
MAX_CITY = 60


def new_client_id() -> str:
    return "pix_" + secrets.token_hex(12)


def new_client_secret() -> str:
    return secrets.token_urlsafe(32)


def _validate_holder(name: str, address: Address) -> tuple[str, Address]:
    """The holder's name and address, blanks around each text trimmed: a name and a city of 1 to
    :data:`MAX_NAME` and :data:`MAX_CITY` characters, a street of 1 to
    :data:`~pixcore.addresses.MAX_STREET`, a state of two letters, a postal code of 8 digits (a
    ``cobv``'s ``recebedor`` shows them, and the standard requires each there)."""
    name, street, city = name.strip(), address.street.strip(), address.city.strip()
    state, postal_code = address.state.strip(), address.postal_code.strip()
    if not name or len(name) > MAX_NAME:
        raise ValidationError(f"name must have 1 to {MAX_NAME} characters")
    if not city or len(city) > MAX_CITY:
        raise ValidationError(f"city must have 1 to {MAX_CITY} characters")
    if not street or len(street) > MAX_STREET:
        raise ValidationError(f"street must have 1 to {MAX_STREET} characters")
    if not is_state(state):
        raise ValidationError("state must be two letters (e.g. SP)")
    if not is_postal_code(postal_code):
        raise ValidationError("postal code must be 8 digits, without a hyphen (e.g. 01310100)")
    return name, Address(street, city, state, postal_code)


def _parse_keys(raw_keys: Sequence[str], document: str) -> tuple[PixKey, ...]:
    keys = tuple(parse_pix_key(raw) for raw in raw_keys) or (PixKey(PixKeyType.EVP, new_evp()),)
    seen: set[str] = set()
    for key in keys:
        if key.value in seen:
            raise DuplicatePixKey(f"the key {key.value} is given twice")
        seen.add(key.value)
        # A CPF or CNPJ key names its holder: it can only be the account holder's own document.
        if key.type in (PixKeyType.CPF, PixKeyType.CNPJ) and key.value != document:
            raise InvalidPixKey(f"a {key.type} key must be the account holder's document")
    return keys


async def open_account(
    uow: UnitOfWorkFactory,
    hasher: SecretHasher,
    *,
    ispb: str,
    name: str,
    document: str,
    city: str,
    street: str = DEFAULT_ADDRESS.street,
    state: str = DEFAULT_ADDRESS.state,
    postal_code: str = DEFAULT_ADDRESS.postal_code,
    keys: Sequence[str] = (),
    sandbox_admin: bool = False,
    registry: KeyRegistry | None = None,
) -> OpenedAccount:
    """Open an account with its keys and one client credential, all or nothing.

    With no keys given, the account gets one random (EVP) key, so that it can
    receive and charge at once. ``sandbox_admin``: the operator lets it move the
    sandbox clock. The holder's address is ``street``, ``city``, ``state`` and
    ``postal_code`` (without the first or last three: :data:`DEFAULT_ADDRESS`'s). ``registry``:
    where the keys are registered too (the network's DICT), each before it is kept here; if the
    account is not opened after all, they are removed from it again.
    """
    name, address = _validate_holder(name, Address(street, city, state, postal_code))
    holder = parse_document(document)
    pix_keys = _parse_keys(keys, holder.value)
    client_id, client_secret = new_client_id(), new_client_secret()
    secret_hash = await asyncio.to_thread(hasher.hash, client_secret)  # slow by design: off the loop
    async with uow() as tx:
        account = await tx.accounts.add(
            NewAccount(
                ispb=validate_ispb(ispb),
                name=name,
                document=holder.value,
                city=address.city,
                sandbox_admin=sandbox_admin,
                street=address.street,
                state=address.state,
                postal_code=address.postal_code,
            )
        )
        registered: list[PixKey] = []
        try:
            for key in pix_keys:
                kept = key if registry is None else await registry.register(account, key)
                registered.append(kept)
                await tx.keys.add(account.id, kept)
            await tx.credentials.add(ClientCredential(client_id, account.id, secret_hash))
            await tx.commit()
        except BaseException:
            if registry is not None:
                await _unregister(registry, account, registered)
            raise
    return OpenedAccount(
        account=account, client_id=client_id, client_secret=client_secret, keys=tuple(registered)
    )


async def _unregister(registry: KeyRegistry, account: Account, keys: Sequence[PixKey]) -> None:
    """Take back the keys registered for an account that was not opened (as far as it goes: one
    that cannot be taken back is logged, and the others still are)."""
    for key in keys:
        try:
            await registry.unregister(account, key)
        except Exception:  # the account's opening failed already; this is the cleanup
            log.exception("the key %s of an account not opened stays registered", key.value)


def _check_validity(certificate: CertificateInfo, clock: Clock) -> None:
    now = clock.now()
    if certificate.is_valid_at(now):
        return
    state = "not yet valid" if now < certificate.not_before else "expired"
    raise InvalidCertificate(
        f"the certificate is {state}: valid from {format_timestamp(certificate.not_before)}"
        f" to {format_timestamp(certificate.not_after)}, and the service clock says {format_timestamp(now)}"
    )


async def link_certificate(
    uow: UnitOfWorkFactory, *, account_id: int, certificate: CertificateInfo, clock: Clock
) -> LinkedCertificate:
    """Link a client certificate to an account (idempotent for the same account).

    A certificate outside its validity period by the service clock is refused, and so
    is one that was revoked: a revoked certificate stays revoked.
    """
    _check_validity(certificate, clock)
    async with uow() as tx:
        if await tx.accounts.get(account_id) is None:
            raise AccountNotFound(f"account {account_id} does not exist")
        linked = await tx.certificates.link(account_id, certificate)
        if linked.revoked_at is not None:
            raise CertificateRevoked(
                f"the certificate was revoked at {format_timestamp(linked.revoked_at)}; link a new one"
            )
        await tx.commit()
    return linked


async def require_sandbox_admin(uow: UnitOfWorkFactory, account_id: int) -> None:
    """``NotSandboxAdmin`` unless the operator made the account a sandbox administrator."""
    async with uow() as tx:
        account = await tx.accounts.get(account_id)
    if account is None or not account.sandbox_admin:
        raise NotSandboxAdmin()


async def get_account(uow: UnitOfWorkFactory, account_id: int) -> Account:
    """The account: its holder's name, its branch and number (the console's header)."""
    async with uow() as tx:
        account = await tx.accounts.get(account_id)
    if account is None:
        raise AccountNotFound()
    return account


async def get_balance(uow: UnitOfWorkFactory, account_id: int) -> Balance:
    async with uow() as tx:
        balance = await tx.balances.get(account_id)
    if balance is None:
        raise AccountNotFound()
    return balance
