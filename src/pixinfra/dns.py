"""Name resolution with the operating system's resolver: one implementation for the webhook
registration check (``HostResolver``) and the notifier's connections (``pixnotify.transport``).

It is I/O of the operating system, so it lives in ``pixinfra`` (never in the domain), where both
``pixweb`` and ``pixnotify`` may import it. ``getaddrinfo`` runs in the event loop's thread pool,
never blocking the loop.
"""

from __future__ import annotations

import asyncio
import socket

__all__ = ["SystemResolver"]


class SystemResolver:
    """The operating system's resolver (the event loop's ``getaddrinfo``).

    :meth:`addresses` is what a connection needs: every address, in the resolver's order, each
    once, and an exception when the name does not resolve. :meth:`resolve` is the ``HostResolver``
    port of registration: the addresses sorted, and none for a name that does not resolve, is not
    valid, or takes longer than ``timeout`` seconds.
    """

    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = timeout

    async def addresses(self, host: str, port: int) -> list[str]:
        """Raises ``OSError`` (``socket.gaierror``) or ``UnicodeError`` for a name that does not resolve."""
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return list(dict.fromkeys(str(info[4][0]) for info in infos))

    async def resolve(self, host: str, port: int) -> list[str]:
        try:
            async with asyncio.timeout(self.timeout):
                found = await self.addresses(host, port)
        except (OSError, UnicodeError, TimeoutError):
            return []
        return sorted(found)
