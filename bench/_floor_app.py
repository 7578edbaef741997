"""The floor of ``bench/queries.py``: the least any service on uvicorn can do for each case.

A bare ASGI app, no framework, no authentication, no read model: ``GET /case/{n}`` runs
statement ``n`` (the very SQL and arguments of that case, from the pickle file named by
``FLOOR_CASES``) on an asyncpg pool of the database ``FLOOR_DATABASE_URL`` (released without
a reset query, as the service's is) and answers with its rows as JSON arrays, encoded by
msgspec. Served by uvicorn with the same event loop and HTTP parser as ``pixweb serve``.

    FLOOR_CASES=cases.pickle FLOOR_DATABASE_URL=postgresql://... python bench/_floor_app.py PORT
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import uvicorn

STATEMENTS: list[tuple[str, list[Any]]] = pickle.loads(Path(os.environ["FLOOR_CASES"]).read_bytes())  # noqa: S301 - our own file
ENCODER = msgspec.json.Encoder()
NOT_FOUND = b"no such case"
state: dict[str, asyncpg.Pool[asyncpg.Record]] = {}


async def keep_session(_: asyncpg.Connection[asyncpg.Record]) -> None:
    """No reset query on release (as ``pixinfra.postgres.pool.keep_session``)."""


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            state["pool"] = await asyncpg.create_pool(
                os.environ["FLOOR_DATABASE_URL"], min_size=1, max_size=2, reset=keep_session
            )
            await send({"type": "lifespan.startup.complete"})
        await state["pool"].close()
        await send({"type": "lifespan.shutdown.complete"})
        return
    _, _, number = scope["path"].rpartition("/")
    if not number.isdigit() or int(number) >= len(STATEMENTS):
        status, body = 404, NOT_FOUND
    else:
        sql, args = STATEMENTS[int(number)]
        async with state["pool"].acquire() as conn:
            rows = await conn.fetch(sql, *args)
        status, body = 200, ENCODER.encode([tuple(row) for row in rows])
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
