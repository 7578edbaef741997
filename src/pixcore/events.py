"""Notification payloads, as the spec's Events table draws them.

They are built here, at the moment money moves, and written to the outbox in
the same database transaction; the notifier only delivers them.
"""

from __future__ import annotations

from typing import Any

from pixcore.documents import mask_document
from pixcore.money import format_amount_string

__all__ = ["receive_event", "transfer_event"]

CURRENCY = "BRL"


def _payment(amount: int) -> dict[str, str]:
    return {"amount": format_amount_string(amount), "currency": CURRENCY}


def transfer_event(
    *,
    transaction_id: int,
    pix_key: str,
    liquidated: bool,
    amount: int,
    end_to_end_id: str,
    idempotency_key: str,
    creditor_name: str,
    creditor_document: str,
    creditor_ispb: str,
    description: str | None,
    error_code: str | None = None,
) -> dict[str, Any]:
    """TRANSFER: a transfer made by ``POST /dict/pix`` was settled (LIQUIDATED) or failed (ERROR)."""
    data: dict[str, Any] = {
        "id": transaction_id,
        "txId": None,
        "pixKey": pix_key,
        "status": "LIQUIDATED" if liquidated else "ERROR",
        "payment": _payment(amount),
        "endToEndId": end_to_end_id,
        "creditDebitType": "DEBIT",
        "idempotencyKey": idempotency_key,
        "creditorAccount": {
            "name": creditor_name,
            "document": mask_document(creditor_document),
            "ispb": creditor_ispb,
        },
        "remittanceInformation": description or "",
    }
    if error_code:
        data["errorCode"] = error_code
    return {"type": "TRANSFER", "data": data}


def receive_event(
    *,
    transaction_id: int,
    tx_id: str | None,
    amount: int,
    end_to_end_id: str,
    debtor_name: str,
    debtor_document: str,
) -> dict[str, Any]:
    """RECEIVE: a payment to the account was confirmed."""
    return {
        "type": "RECEIVE",
        "data": {
            "id": transaction_id,
            "txId": tx_id,
            "status": "LIQUIDATED",
            "payment": _payment(amount),
            "endToEndId": end_to_end_id,
            "debtorAccount": {"name": debtor_name, "document": mask_document(debtor_document)},
        },
    }
