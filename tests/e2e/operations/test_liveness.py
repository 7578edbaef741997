"""``/health/live`` on an embedded database that cannot be restarted: the supervisor's server faked
(tests/unit/embedded_fakes.py), the app's own route answering."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from pixinfra.settings import Settings
from pixweb.app import create_app
from tests.unit.embedded_fakes import FakeServer, supervised


async def test_health_live_is_503_once_the_embedded_database_cannot_be_restarted(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url="postgresql://unused@127.0.0.1/x")
    server = FakeServer(alive_checks=0, failing_starts=7)
    supervisor, script, _ = supervised(server, rounds=8)
    answers: list[httpx.Response] = []
    unsupervised = httpx.ASGITransport(app=create_app(settings))
    async with httpx.AsyncClient(transport=unsupervised, base_url="http://t") as http:
        assert (await http.get("/health/live")).status_code == 200  # no supervisor: nothing to supervise
    app = create_app(settings, overrides={"supervisor": supervisor})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:

        async def wait(stop: asyncio.Event, seconds: float) -> None:
            await script.wait(stop, seconds)
            answers.append(await http.get("/health/live"))

        supervisor.wait = wait
        await supervisor.run(asyncio.Event())

    assert script.pauses == [0.5, 1, 2, 4, 8, 10, 10, 0.5]
    assert [answer.status_code for answer in answers] == [200] * 5 + [503, 503, 200]
    assert answers[5].json() == {
        "statusCode": 503,
        "message": "The embedded database is down and 6 restart attempts did not bring it back.",
        "error": "Service Unavailable",
    }
    assert answers[5].headers["retry-after"] == "10"
    assert answers[-1].json() == {"status": "ok"}
