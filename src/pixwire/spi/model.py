"""The SPI's vocabulary: the payment, its status report and its return, as the network and its
participants exchange them (``pixwire.spi.documents`` writes and reads them in XML).

Amounts are integer centavos; identifiers are the SPI's own (``E...`` end-to-end ids, ``D...``
return ids, ``M...`` message ids, all 32 characters, from ``pixcore.identifiers``).
"""

from __future__ import annotations

import enum
import secrets
import string
from dataclasses import dataclass
from datetime import datetime

__all__ = [
    "NETWORK_ISPB",
    "AccountType",
    "Party",
    "Payment",
    "PaymentReturn",
    "Reason",
    "ReturnReason",
    "Status",
    "StatusReport",
    "new_message_id",
]


class AccountType(enum.StrEnum):
    """The pacs.008 account types (as the DICT's)."""

    CACC = "CACC"
    TRAN = "TRAN"
    SLRY = "SLRY"
    SVGS = "SVGS"


class Status(enum.StrEnum):
    """A payment's or return's status (pacs.002 ``TxSts``)."""

    PDNG = "PDNG"
    """Sent to the payee's institution, its answer awaited."""
    ACSP = "ACSP"
    """The payee's institution accepts the payment (its answer to a pacs.008); settlement follows."""
    ACSC = "ACSC"
    """Settled: the money moved between the settlement accounts."""
    RJCT = "RJCT"
    """Rejected, with its reason: no money moved."""


class Reason(enum.StrEnum):
    """Why a payment or a return was rejected (pacs.002 ``StsRsnInf``), the SPI's codes."""

    AB03 = "AB03"
    """The payee's institution did not answer in time."""
    AC03 = "AC03"
    """The creditor's account is not one the payee's institution has."""
    AC06 = "AC06"
    """The creditor's account is blocked."""
    AG03 = "AG03"
    """The transaction is not allowed on the creditor's account."""
    AM04 = "AM04"
    """The payer's settlement account does not cover the amount."""
    AM09 = "AM09"
    """A return over what is left of its payment."""
    BE01 = "BE01"
    """The creditor is not the account's owner."""
    DS04 = "DS04"
    """Refused by the payee's institution for another reason."""
    RR04 = "RR04"
    """Refused for a regulatory reason (the network's)."""


class ReturnReason(enum.StrEnum):
    """Why money is returned (pacs.004 ``RtrRsnInf``), the SPI's codes."""

    BE08 = "BE08"
    """The payee's institution's own error."""
    FR01 = "FR01"
    """Fraud (a MED)."""
    MD06 = "MD06"
    """Asked by the payee (a devolução)."""
    SL02 = "SL02"
    """A Pix Saque or Troco's withdrawal returned."""


@dataclass(frozen=True, slots=True)
class Party:
    """One side of a payment: the institution (ISPB), the account and its owner."""

    ispb: str
    branch: str | None
    account: str
    account_type: AccountType
    tax_id: str
    """A CPF (11 digits) or CNPJ (14)."""
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Payment:
    """pacs.008: a payment from the debtor's institution to the creditor's."""

    message_id: str
    end_to_end_id: str
    amount: int
    """Centavos, above zero."""
    debtor: Party
    creditor: Party
    created_at: datetime
    key: str | None = None
    """The creditor's PIX key, when the payment was made to one."""
    remittance: str | None = None
    """The payer's message to the payee (up to 140 characters)."""


@dataclass(frozen=True, slots=True)
class StatusReport:
    """pacs.002: the status of a payment (``return_id`` None) or of a return."""

    message_id: str
    end_to_end_id: str
    status: Status
    created_at: datetime
    reason: Reason | None = None
    return_id: str | None = None
    settled_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PaymentReturn:
    """pacs.004: money of a settled payment sent back by its creditor's institution."""

    message_id: str
    return_id: str
    end_to_end_id: str
    """The payment returned."""
    amount: int
    reason: ReturnReason
    created_at: datetime
    remittance: str | None = None


NETWORK_ISPB = "00038166"
"""The ISPB the SPI's own messages come from (the central bank's)."""

_ALPHANUMERIC = string.ascii_letters + string.digits


def new_message_id(ispb: str) -> str:
    """A message id: ``M``, the sender's ISPB and 23 random letters and digits (32 characters)."""
    return "M" + ispb + "".join(secrets.choice(_ALPHANUMERIC) for _ in range(23))
