"""Name resolution on the event loop: the ``HostResolver`` of webhook registration."""

from __future__ import annotations

import asyncio
import socket

__all__ = ["LoopResolver"]


class LoopResolver:
    """Resolves with the event loop's ``getaddrinfo`` (in its thread pool, never blocking the loop).

    A name that does not resolve, is not valid, or takes longer than ``timeout``
    seconds resolves to nothing.
    """

    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = timeout

    async def resolve(self, host: str, port: int) -> list[str]:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.timeout):
                infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError, TimeoutError):
            return []
        return sorted({str(info[4][0]) for info in infos})
