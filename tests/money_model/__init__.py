"""A reference model of the money in the service: plain Python, integer centavos, no I/O.

It says what the service should do (the specification and its product decisions), not what
the code does: ``tests/e2e/money_model/test_money_model.py`` drives the real service and this
model side by side and compares them after every step.

The model knows our accounts (by index), each one's ``available`` and ``blocked``,
the records and notifications each should have (counted per type and status),
every transfer, receipt, refund, charge, recurring charge (Pix Automático) and MED
case with its status, the model's time, the sandbox payer's balance at their own
bank, and
``outside``: the outside world's balance (money that went out to other
institutions minus money that came in from them). The payer's bank is outside: a
recurring debit moves money from it into one of our accounts as any receipt does.
Money is conserved when the sum of our balances plus ``outside`` is zero.

Each operation returns the HTTP status the service must answer and changes the
model only when that status is a success.
"""

from __future__ import annotations

from tests.money_model.model import Model
from tests.money_model.records import (
    REFUND_WINDOW,
    Balance,
    Case,
    Charge,
    DueTerms,
    Receipt,
    RecurringCharge,
    Refund,
    Transfer,
    payer_day,
)

__all__ = [
    "REFUND_WINDOW",
    "Balance",
    "Case",
    "Charge",
    "DueTerms",
    "Model",
    "Receipt",
    "RecurringCharge",
    "Refund",
    "Transfer",
    "payer_day",
]
