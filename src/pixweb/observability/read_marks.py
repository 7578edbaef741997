"""Read-your-writes: after a request that may have written, its account's mark is recorded
(``pixinfra.postgres.replica.ReadRouter.mark``) before the answer leaves, so that the client's
next read, in this process or another, waits for the replica to hold the write.

A plain ASGI middleware around the app: any method but GET, HEAD and OPTIONS, answered below
500, by an API principal or a signed-in console session. Nothing without a read replica.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from litestar.enums import ScopeType

from pixinfra.postgres.replica import ReadRouter

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ReadMarks", "account_in"]

SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def account_in(scope: Scope) -> int | None:
    """The account a request acted for: the API principal's, or the console session's."""
    account = getattr(scope.get("user"), "account_id", None)
    if account is None:
        session = (scope.get("state") or {}).get("console_session")
        account = getattr(session, "account_id", None)
    return account if isinstance(account, int) else None


class ReadMarks:
    """The middleware described in the module docstring; ``router``: the running services'
    (None before the lifespan has built them)."""

    def __init__(self, app: ASGIApp, router: Callable[[], ReadRouter | None]) -> None:
        self.app = app
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        router = self.router()
        if (
            scope["type"] != ScopeType.HTTP
            or scope.get("method") in SAFE
            or router is None
            or not router.routes_reads
        ):
            await self.app(scope, receive, send)
            return

        async def send_after_mark(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 500:
                account = account_in(scope)
                if account is not None:
                    await router.mark(account)
            await send(message)

        await self.app(scope, receive, send_after_mark)
