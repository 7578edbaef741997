"""``OPTIONS`` answers with every method of its path, on every path of the app.

Litestar 2's default ``OPTIONS`` handler kept one handler's methods (``/cob/{txid}`` said
``OPTIONS, PATCH``); pixweb.allow answers from the whole routing table instead.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from litestar.routes import HTTPRoute

from pixcore.clock import SystemClock
from pixinfra.postgres.pool import Database
from pixinfra.settings import Settings
from tests.e2e.conftest import Api, running_api


@pytest.fixture
async def every_route(database: Database, tmp_path: Path) -> AsyncIterator[Api]:
    """The app with every route it can have (the sandbox's too)."""
    settings = Settings(database_url=database.url, data_dir=tmp_path, run_workers=False, sandbox=True)
    async with running_api(settings, SystemClock(), database) as running:
        yield running


def _concrete(path: str) -> str:
    """A path with each parameter given a value of its type (``{id:int}`` -> ``1``)."""
    return re.sub(r"\{\w+:(\w+)\}", lambda m: "1" if m.group(1) == "int" else "A1b2C3d4", path)


def _declared(route: HTTPRoute) -> set[str]:
    """The methods the path's own handlers declare, and OPTIONS."""
    return {m for handler in route.route_handlers for m in handler.http_methods} | {"OPTIONS"}


async def test_options_lists_every_method_of_every_path(every_route: Api) -> None:
    assert every_route.app is not None
    routes = [r for r in every_route.app.routes if isinstance(r, HTTPRoute)]
    answered = {}
    for route in routes:
        response = await every_route.client.options(_concrete(route.path))
        assert response.status_code == 204, (route.path, response.status_code, response.text)
        allowed = {m.strip() for m in response.headers["allow"].split(",")}
        assert allowed == _declared(route), route.path
        answered[route.path_format] = allowed
    # The paths with several handlers (Litestar 2 answered one handler's methods) and the sandbox's are
    # among those checked.
    assert answered["/cob/{txid}"] == {"GET", "OPTIONS", "PATCH", "PUT"}
    assert answered["/api/webhooks"] == {"GET", "OPTIONS", "POST"}
    assert answered["/pix/{e2eid}/devolucao/{refund_id}"] == {"GET", "OPTIONS", "PUT"}
    assert answered["/sandbox/payments"] == {"OPTIONS", "POST"}
    assert len(answered) == len(routes)


async def test_options_needs_no_token_and_other_methods_still_do(every_route: Api) -> None:
    response = await every_route.client.options("/balance")
    assert (response.status_code, response.headers["allow"]) == (204, "GET, OPTIONS")
    assert response.content == b""
    assert (await every_route.client.get("/balance")).status_code == 401
