"""Accounts, their balance and the credentials that act for them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pixcore.addresses import Address
from pixcore.keys import PixKey

__all__ = [
    "DEFAULT_ADDRESS",
    "REVOKED_SECRET",
    "Account",
    "Balance",
    "CertificateInfo",
    "ClientCredential",
    "Counterpart",
    "LinkedCertificate",
    "NewAccount",
    "OpenedAccount",
    "RotatedSecret",
]


DEFAULT_ADDRESS = Address(
    street="Avenida Paulista, 1000", city="SAO PAULO", state="SP", postal_code="01310100"
)
"""The address of an account opened without one (the demo's, a sandbox's, a test's): a real one
in São Paulo, the service's default city (``PIX_CITY``)."""


@dataclass(frozen=True, slots=True)
class NewAccount:
    """What is needed to open an account; the store assigns id, branch and number. Its holder's
    postal address is ``street``, ``city``, ``state``, ``postal_code`` (:attr:`Account.address`);
    without them, the rest of :data:`DEFAULT_ADDRESS`."""

    ispb: str
    name: str
    document: str
    city: str
    sandbox_admin: bool = False
    """The operator lets it move the sandbox clock."""
    street: str = DEFAULT_ADDRESS.street
    state: str = DEFAULT_ADDRESS.state
    postal_code: str = DEFAULT_ADDRESS.postal_code


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    ispb: str
    branch: str
    number: str
    name: str
    document: str
    city: str
    """The holder's city: its BR Codes' merchant city, and its address's."""
    street: str
    state: str
    postal_code: str
    created_at: datetime
    sandbox_admin: bool = False

    @property
    def address(self) -> Address:
        """The holder's postal address (a ``cobv``'s ``recebedor`` shows it)."""
        return Address(self.street, self.city, self.state, self.postal_code)


@dataclass(frozen=True, slots=True)
class Balance:
    """An account's money in centavos. ``available`` already excludes ``blocked``."""

    available: int
    blocked: int

    def __post_init__(self) -> None:
        if self.available < 0 or self.blocked < 0:
            raise ValueError("balances are never negative")

    @property
    def total(self) -> int:
        return self.available + self.blocked


REVOKED_SECRET = "revoked"  # noqa: S105 - a marker, not a secret
"""The stored hash of a revoked secret (``pixweb admin account revoke-secret``): no hash format, so
no secret verifies against it; the checks treat it as an unknown client."""


@dataclass(frozen=True, slots=True)
class ClientCredential:
    """An OAuth client of an account; the secret is kept only as a slow hash."""

    client_id: str
    account_id: int
    secret_hash: str


@dataclass(frozen=True, slots=True)
class CertificateInfo:
    """What the service needs of an X.509 client certificate, read by an adapter."""

    fingerprint: str  # SHA-256 of the DER, lowercase hex
    subject: str
    not_before: datetime
    not_after: datetime

    def is_valid_at(self, moment: datetime) -> bool:
        return self.not_before <= moment <= self.not_after


@dataclass(frozen=True, slots=True)
class LinkedCertificate:
    fingerprint: str
    account_id: int
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class OpenedAccount:
    """The result of opening an account: the only time the client secret is shown."""

    account: Account
    client_id: str
    client_secret: str
    keys: tuple[PixKey, ...]


@dataclass(frozen=True, slots=True)
class RotatedSecret:
    """A client's new secret: shown this once, stored only as a hash; the old one no longer works."""

    account_id: int
    client_id: str
    client_secret: str


@dataclass(frozen=True, slots=True)
class Counterpart:
    """The other side of a transaction, as statements show it."""

    name: str
    document: str
    ispb: str
    bank_name: str = ""
    branch: str = ""
    account_number: str = ""
