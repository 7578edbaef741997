"""The ``pixweb`` command: the API's commands, with webhook delivery handed to ``pixweb serve``."""

from __future__ import annotations

from pixnotify import deliver_in_process
from pixweb.cli import Composition
from pixweb.cli import main as commands

__all__ = ["pixweb"]


def pixweb() -> None:
    """``pixweb``: :mod:`pixweb.cli`'s commands; ``serve`` delivers webhooks in its process too."""
    commands(obj=Composition(delivery=deliver_in_process))
