"""pixcore: the PIX domain, free of any framework.

Money, documents, keys and identifiers; accounts and their balances; the ports
(``pixcore.unit_of_work``, and the ``ports`` module of each feature) that persistence
and the outside world implement; the use
cases (``pixcore.usecases``); in-memory fakes of every port for tests
(``pixcore.testing``). It depends on nothing of the web stack, so a project can
embed it with ``pip install pixservice`` (no extras).
"""

from __future__ import annotations

from pixcore.accounts.rules import (
    Account,
    Balance,
    CertificateInfo,
    ClientCredential,
    LinkedCertificate,
    OpenedAccount,
)
from pixcore.clock import Clock, ManualClock, SystemClock, format_timestamp, parse_timestamp
from pixcore.documents import Document, DocumentKind, mask_document, parse_document
from pixcore.errors import PixError
from pixcore.identifiers import (
    new_end_to_end_id,
    new_return_id,
    new_txid,
    validate_e2eid_path,
    validate_end_to_end_id,
    validate_refund_id,
    validate_txid,
)
from pixcore.keys import PixKey, PixKeyType, parse_pix_key
from pixcore.money import (
    MAX_CENTS,
    cents_to_decimal,
    format_amount_string,
    parse_amount_number,
    parse_amount_string,
    require_positive,
)

__all__ = [
    "MAX_CENTS",
    "Account",
    "Balance",
    "CertificateInfo",
    "ClientCredential",
    "Clock",
    "Document",
    "DocumentKind",
    "LinkedCertificate",
    "ManualClock",
    "OpenedAccount",
    "PixError",
    "PixKey",
    "PixKeyType",
    "SystemClock",
    "cents_to_decimal",
    "format_amount_string",
    "format_timestamp",
    "mask_document",
    "new_end_to_end_id",
    "new_return_id",
    "new_txid",
    "parse_amount_number",
    "parse_amount_string",
    "parse_document",
    "parse_pix_key",
    "parse_timestamp",
    "require_positive",
    "validate_e2eid_path",
    "validate_end_to_end_id",
    "validate_refund_id",
    "validate_txid",
]
