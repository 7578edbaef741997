"""Piccolo tables. The schema itself (CHECK constraints, indexes) is in the migrations."""

from __future__ import annotations

from piccolo.columns import BigInt, BigSerial, Boolean, Text, Timestamptz, Varchar
from piccolo.table import Table

from pixweb.persistence.engine import DB

__all__ = ["TABLES", "AccountRow", "BalanceRow", "ClientCertificateRow", "ClientCredentialRow", "PixKeyRow"]


class AccountRow(Table, tablename="accounts", db=DB):
    id = BigSerial(primary_key=True)
    ispb = Varchar(length=8)
    branch = Varchar(length=4)
    number = Varchar(length=20)
    name = Varchar(length=140)
    document = Varchar(length=14)
    city = Varchar(length=60)
    created_at = Timestamptz()
    sandbox_admin = Boolean(default=False)


class BalanceRow(Table, tablename="balances", db=DB):
    account_id = BigInt(primary_key=True)
    available = BigInt()
    blocked = BigInt()
    updated_at = Timestamptz()


class PixKeyRow(Table, tablename="pix_keys", db=DB):
    id = BigSerial(primary_key=True)
    account_id = BigInt()
    key_type = Varchar(length=5)
    key_value = Varchar(length=77)
    created_at = Timestamptz()


class ClientCredentialRow(Table, tablename="client_credentials", db=DB):
    client_id = Varchar(length=64, primary_key=True)
    account_id = BigInt()
    secret_hash = Text()
    created_at = Timestamptz()


class ClientCertificateRow(Table, tablename="client_certificates", db=DB):
    fingerprint = Varchar(length=64, primary_key=True)
    account_id = BigInt()
    subject = Text()
    not_before = Timestamptz()
    not_after = Timestamptz()
    linked_at = Timestamptz()
    revoked_at = Timestamptz(null=True, default=None)


TABLES: tuple[type[Table], ...] = (
    AccountRow,
    BalanceRow,
    PixKeyRow,
    ClientCredentialRow,
    ClientCertificateRow,
)
