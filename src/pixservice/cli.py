"""The ``pixweb`` command: the API's commands, with webhook delivery handed to ``pixweb serve``."""

from __future__ import annotations

from pixnotify import deliver_in_process, probe_for
from pixweb.cli import Composition
from pixweb.cli import main as commands

__all__ = ["pixweb"]


def pixweb() -> None:
    """``pixweb``: :mod:`pixweb.cli`'s commands; ``serve`` delivers webhooks in its process too,
    and sends test events."""
    commands(obj=Composition(delivery=deliver_in_process, probe=probe_for))
