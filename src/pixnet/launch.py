"""The console script ``pixnet``: installed with the package whatever extras were asked for, so it
first checks that the ``network`` extra is there and names it when it is not."""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["main"]

MODULES = ("click", "asyncpg", "aiohttp", "lxml", "signxml")


def main() -> None:
    missing = [name for name in MODULES if importlib.util.find_spec(name) is None]
    if missing:
        sys.stderr.write(
            f"pixnet needs the 'network' extra of pixservice ({', '.join(missing)} not installed):"
            " pip install 'pixservice[network]'\n"
        )
        raise SystemExit(2)
    from pixnet.cli import main as run

    run()
