"""The `pixweb` command is composed in ``pixservice``: its ``serve`` hands the app the notifier's
delivery loop (``pixweb`` cannot import ``pixnotify`` itself). Without a composer the app gets
none, and says so when it starts."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import pixweb.app
import pixweb.cli
from pixnotify import HttpProbe
from pixservice.cli import deliver
from pixservice.cli import pixweb as pixweb_command


class Built(Exception):
    """Raised in place of building the app: the test has what it wanted to see."""


@pytest.fixture
def handed_over(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    seen: dict[str, Any] = {}

    def create_app(settings: object, **given: Any) -> None:
        seen.update(given)
        raise Built

    monkeypatch.setattr(pixweb.app, "create_app", create_app)
    monkeypatch.setattr(pixweb.cli, "stop_embedded", lambda: None)
    # A server that is never reached: serve only resolves it before building the app.
    monkeypatch.setenv("PIX_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    pixweb.cli.get_settings.cache_clear()
    sigterm = signal.getsignal(signal.SIGTERM)  # serve installs its own
    yield seen
    signal.signal(signal.SIGTERM, sigterm)
    pixweb.cli.get_settings.cache_clear()


def test_the_pixweb_command_hands_serve_the_notifier_s_loop(
    handed_over: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["pixweb", "serve", "--no-demo"])
    with pytest.raises(Built):
        pixweb_command()
    assert handed_over["delivery"] is deliver  # pixnotify's loop, imported when delivery starts
    assert isinstance(handed_over["probe"], HttpProbe)  # test events: sent as the notifier sends


def test_pixweb_s_own_commands_alone_hand_over_no_loop(handed_over: dict[str, Any]) -> None:
    with pytest.raises(Built):
        pixweb.cli.main(["serve", "--no-demo"], standalone_mode=False)
    assert handed_over["delivery"] is None
    assert handed_over["probe"] is None


async def test_the_composed_delivery_runs_the_notifier_s_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import pixnotify

    ran: list[tuple[object, ...]] = []

    async def loop(*given: object) -> None:
        ran.append(given)

    monkeypatch.setattr(pixnotify, "deliver_in_process", loop)
    given = (object(), object(), object(), object(), object())
    await deliver(*given)  # type: ignore[arg-type]
    assert ran == [given]
