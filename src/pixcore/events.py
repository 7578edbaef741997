"""Notification payloads, as the spec's Events table draws them.

They are built here, at the moment money moves, and written to the outbox in
the same database transaction; the notifier only delivers them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pixcore.clock import format_timestamp
from pixcore.documents import mask_document
from pixcore.money import cents_to_decimal, format_amount_string

__all__ = ["med_event", "receive_event", "refund_event", "transfer_event"]

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


def refund_event(
    *,
    original_transaction_id: int,
    tx_id: str | None,
    original_amount: int,
    original_end_to_end_id: str,
    refund_amount: int,
    return_id: str,
    refunded_at: datetime,
    information: str | None,
    credit_debit_type: str,
) -> dict[str, Any]:
    """REFUND: a refund was processed; DEBIT for one we sent, CREDIT for one we received.

    ``refunds[].payment.amount`` is a number (a ``Decimal``, written exactly by the outbox).
    """
    return {
        "type": "REFUND",
        "data": {
            "id": original_transaction_id,
            "txId": tx_id,
            "status": "REFUNDED",
            "payment": _payment(original_amount),
            "refunds": [
                {
                    "status": "LIQUIDATED",
                    "payment": {"amount": cents_to_decimal(refund_amount), "currency": CURRENCY},
                    "endToEndId": return_id,
                    "eventDate": format_timestamp(refunded_at),
                    "information": information or "",
                }
            ],
            "endToEndId": original_end_to_end_id,
            "creditDebitType": credit_debit_type,
        },
    }


def med_event(*, case_id: int, end_to_end_id: str, status: str, reason: str, amount: int) -> dict[str, Any]:
    """MED: a special return case was opened (CREATED), ACCEPTED or REJECTED (decisions §9)."""
    return {
        "type": "MED",
        "data": {
            "id": case_id,
            "endToEndId": end_to_end_id,
            "status": status,
            "reason": reason,
            "payment": _payment(amount),
        },
    }
