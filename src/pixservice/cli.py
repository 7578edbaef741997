"""The ``pixweb`` command: the API's commands, with webhook delivery handed to ``pixweb serve``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pixnotify import deliver_in_process, probe_for
from pixweb.cli import Composition, compose_worker_app
from pixweb.cli import main as commands

if TYPE_CHECKING:
    from litestar import Litestar

__all__ = ["COMPOSITION", "pixweb", "worker_app"]

COMPOSITION = Composition(
    delivery=deliver_in_process, probe=probe_for, worker_app="pixservice.cli:worker_app"
)


def pixweb() -> None:
    """``pixweb``: :mod:`pixweb.cli`'s commands; ``serve`` delivers webhooks in its process too,
    and sends test events."""
    commands(obj=COMPOSITION)


def worker_app() -> Litestar:
    """One process of ``pixweb serve --workers N``: the same composed app, from the environment."""
    return compose_worker_app(COMPOSITION)
