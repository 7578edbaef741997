"""The bare-framework floor of ``bench/transfers.py``, and the runner that serves an app on a server.

``app``: a Litestar ``POST /dict/pix`` that decodes the transfer's body into a msgspec struct and
answers it back (201): no database, no authentication, no middleware. What any API on this
framework and server can do at most on this machine.

    python bench/_echo_app.py uvicorn|granian TARGET PORT WORKERS [--factory]

serves ``TARGET`` (``module:attribute``; ``_echo_app:app`` for the floor, or
``pixservice.cli:worker_app --factory`` for the API) with ``WORKERS`` processes: uvicorn's with
uvloop and httptools, as ``pixweb serve``, or granian's (Rust HTTP, ASGI interface).
"""

from __future__ import annotations

import os
import sys
from decimal import Decimal

import msgspec
from litestar import Litestar, get, post

__all__ = ["app", "serve"]


class Payment(msgspec.Struct):
    currency: str
    amount: Decimal


class Transfer(msgspec.Struct, rename="camel"):
    pix_key: str
    payment: Payment


@post("/dict/pix", status_code=201)
async def echo(data: Transfer) -> Transfer:
    return data


@get("/pid")
async def pid() -> str:
    """Which process answered (the bench waits until every worker has)."""
    return str(os.getpid())


app = Litestar([echo, pid], debug=False)


def serve(server: str, target: str, port: int, workers: int, *, factory: bool) -> None:
    if server == "granian":
        from granian.constants import Interfaces
        from granian.server import Server

        Server(
            target,
            port=port,
            interface=Interfaces.ASGI,
            workers=workers,
            factory=factory,
            log_enabled=False,
        ).serve()
        return
    import uvicorn

    uvicorn.run(
        target,
        port=port,
        workers=workers,
        factory=factory,
        log_level="warning",
        access_log=False,
        loop="uvloop",
        http="httptools",
    )


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), factory="--factory" in sys.argv)
