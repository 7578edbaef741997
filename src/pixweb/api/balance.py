"""Balances: the central-bank shape (``/accounts/balances``) and the standard one (``/balance``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import msgspec
from litestar import Controller, Request, get

from pixcore.clock import format_timestamp
from pixcore.money import cents_to_decimal
from pixcore.usecases import get_balance
from pixweb.api.deps import principal_of, services_of
from pixweb.errors import error_responses

__all__ = ["BalanceController"]


class BalanceAmount(msgspec.Struct):
    available: Decimal
    blocked: Decimal
    overdraft: Decimal


class BalanceItem(msgspec.Struct, rename="camel"):
    event_date: str
    balance_amount: BalanceAmount


class AccountBalances(msgspec.Struct):
    data: list[BalanceItem]


class StandardBalance(msgspec.Struct, rename="camel"):
    gross_balance: Decimal
    blocked_balance: Decimal
    net_balance: Decimal
    consulted_at: str


class BalanceController(Controller):
    tags = ["Balance"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/accounts/balances",
        operation_id="getAccountBalances",
        responses=error_responses(401),
        summary="Balance, central-bank format",
    )
    async def account_balances(self, request: Request[Any, Any, Any]) -> AccountBalances:
        services = services_of(request)
        balance = await get_balance(services.uow, principal_of(request).account_id)
        amount = BalanceAmount(
            available=cents_to_decimal(balance.available),
            blocked=cents_to_decimal(balance.blocked),
            overdraft=cents_to_decimal(0),
        )
        return AccountBalances(data=[BalanceItem(format_timestamp(services.clock.now()), amount)])

    @get(
        "/balance",
        operation_id="getBalance",
        responses=error_responses(401),
        summary="Balance, standard format",
    )
    async def balance(self, request: Request[Any, Any, Any]) -> StandardBalance:
        services = services_of(request)
        balance = await get_balance(services.uow, principal_of(request).account_id)
        return StandardBalance(
            gross_balance=cents_to_decimal(balance.total),
            blocked_balance=cents_to_decimal(balance.blocked),
            net_balance=cents_to_decimal(balance.available),
            consulted_at=format_timestamp(services.clock.now()),
        )
