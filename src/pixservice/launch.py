"""The console scripts ``pixweb`` and ``pixnotify``. A package's scripts are installed with it
whatever extras were asked for, so each first checks that its extra is there, and names the extra
to install when it is not, instead of failing on an import."""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["NEEDS", "pixnotify", "pixweb", "require"]

# The command, the extra that installs it, and modules of that extra it cannot start without.
NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pixweb": ("web", ("click", "asyncpg", "litestar", "uvicorn", "aiohttp")),
    "pixnotify": ("notify", ("click", "asyncpg", "aiohttp")),
}


def require(command: str) -> None:
    """Exit with status 2 and a sentence naming the extra when one of its modules is missing."""
    extra, modules = NEEDS[command]
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        sys.stderr.write(
            f"{command} needs the {extra!r} extra of pixservice ({', '.join(missing)} not installed):"
            f" pip install 'pixservice[{extra}]'\n"
        )
        raise SystemExit(2)


def pixweb() -> None:
    require("pixweb")
    from pixservice.cli import pixweb as run

    run()


def pixnotify() -> None:
    require("pixnotify")
    from pixnotify.cli import main

    main()
