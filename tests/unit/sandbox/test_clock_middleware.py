"""Which requests read the sandbox clock from the database: every one that may use the clock."""

from __future__ import annotations

from typing import Any

import pytest

from pixweb.sandbox.clock_middleware import SharedClockMiddleware


def _scope(path: str) -> Any:
    return {"type": "http", "path": path}


@pytest.mark.parametrize(
    "path",
    [
        "/schema",
        "/schema/openapi.json",
        "/.well-known/jwks.json",
        "/health/live",
        "/health/ready",
        "/metrics",
    ],
)
def test_routes_that_never_read_the_clock_skip_the_read(path: str) -> None:
    assert SharedClockMiddleware.should_bypass_for_scope(_scope(path))


@pytest.mark.parametrize(
    "path",
    [
        "/api/auth/token",
        "/oauth/token",
        "/balance",
        "/dict/pix",
        "/qr/v2/" + "0" * 32,
        "/sandbox/clock",
        "/metrics/x",
    ],
)
def test_every_other_route_reads_the_clock_first(path: str) -> None:
    assert not SharedClockMiddleware.should_bypass_for_scope(_scope(path))
