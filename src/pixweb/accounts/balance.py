"""Balances: the central-bank shape (``/accounts/balances``) and the standard one (``/balance``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get

from pixcore.accounts.accounts_service import get_balance
from pixcore.clock import Clock, format_timestamp
from pixcore.money import cents_to_decimal
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer
from pixweb.api.fields import Timestamp, doc
from pixweb.errors import error_responses

__all__ = ["BalanceController"]


class BalanceAmount(msgspec.Struct):
    available: Annotated[Decimal, doc("What can be sent now, in reais.")]
    blocked: Annotated[Decimal, doc("Held: transfers not settled yet and MED blocks, in reais.")]
    overdraft: Annotated[Decimal, doc("Always 0: accounts have no overdraft.")]


class BalanceItem(msgspec.Struct, rename="camel"):
    event_date: Annotated[Timestamp, doc("When it was read (UTC, ISO 8601).")]
    balance_amount: BalanceAmount


class AccountBalances(msgspec.Struct):
    data: Annotated[list[BalanceItem], doc("One item: the balance now.")]


class StandardBalance(msgspec.Struct, rename="camel"):
    gross_balance: Annotated[Decimal, doc("Available plus blocked, in reais.")]
    blocked_balance: Annotated[Decimal, doc("Held, in reais.")]
    net_balance: Annotated[Decimal, doc("Available, in reais.")]
    consulted_at: Annotated[Timestamp, doc("When it was read (UTC, ISO 8601).")]


class BalanceController(Controller):
    tags = ["Balance"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/accounts/balances",
        operation_id="getAccountBalances",
        responses=answer(
            200,
            AccountBalances,
            "The balance",
            {
                "data": [
                    {
                        "eventDate": "2026-03-15T14:35:00.000Z",
                        "balanceAmount": {"available": 1849.75, "blocked": 150.25, "overdraft": 0},
                    }
                ]
            },
        )
        | error_responses(401),
        summary="Balance, central-bank format",
        description="The account's balance now, in reais: available, blocked (held) and overdraft (0).",
    )
    async def account_balances(
        self, request: Request[Any, Any, Any], *, clock: Injected[Clock], uow: Injected[UnitOfWorkFactory]
    ) -> AccountBalances:
        balance = await get_balance(uow, principal_of(request).account_id)
        amount = BalanceAmount(
            available=cents_to_decimal(balance.available),
            blocked=cents_to_decimal(balance.blocked),
            overdraft=cents_to_decimal(0),
        )
        return AccountBalances(data=[BalanceItem(format_timestamp(clock.now()), amount)])

    @get(
        "/balance",
        operation_id="getBalance",
        responses=answer(
            200,
            StandardBalance,
            "The balance",
            {
                "grossBalance": 2000.0,
                "blockedBalance": 150.25,
                "netBalance": 1849.75,
                "consultedAt": "2026-03-15T14:35:00.000Z",
            },
        )
        | error_responses(401),
        summary="Balance, standard format",
        description="The same balance as `/accounts/balances`: gross (available plus blocked), blocked, net.",
    )
    async def balance(
        self, request: Request[Any, Any, Any], *, clock: Injected[Clock], uow: Injected[UnitOfWorkFactory]
    ) -> StandardBalance:
        balance = await get_balance(uow, principal_of(request).account_id)
        return StandardBalance(
            gross_balance=cents_to_decimal(balance.total),
            blocked_balance=cents_to_decimal(balance.blocked),
            net_balance=cents_to_decimal(balance.available),
            consulted_at=format_timestamp(clock.now()),
        )
