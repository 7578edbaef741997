"""Litestar resolves a handler's independent dependencies at once, in a task group, which costs
more than the providers (pixweb.dependencies): no handler of the app has two of the app's own
providers to resolve at the same depth."""

from __future__ import annotations

from collections import Counter

from litestar.di import Provide
from litestar.routes import HTTPRoute

from pixinfra.settings import Settings
from pixweb.app import create_app
from pixweb.dependencies import CHAINS

OWN = frozenset(name for chain in CHAINS for name in chain)


def _depth(name: str, providers: dict[str, Provide]) -> int:
    parameters = providers[name].parsed_fn_signature.parameters
    return 1 + max((_depth(sub, providers) for sub in parameters if sub in providers), default=0)


def _needed(names: set[str], providers: dict[str, Provide]) -> set[str]:
    found = set(names)
    for name in names:
        found |= _needed(
            {p for p in providers[name].parsed_fn_signature.parameters if p in providers}, providers
        )
    return found


def test_each_handler_resolves_the_app_s_providers_one_after_the_other() -> None:
    app = create_app(Settings(run_workers=False, sandbox=True, console=True))
    shared = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            providers = handler.resolve_dependencies()
            asked = {name for name in handler.parsed_fn_signature.parameters if name in providers}
            # Only the app's own providers: a list's query parameters (``filters`` and what it is
            # made of, pixweb.api.listing) are the route's and resolve beside them.
            depths = Counter(_depth(name, providers) for name in _needed(asked, providers) if name in OWN)
            if any(count > 1 for count in depths.values()):
                shared.append(f"{route.path} {handler.handler_name}")
    assert shared == []


def test_the_chains_name_each_provider_once_and_share_only_their_start() -> None:
    names = [name for chain in CHAINS for name in chain[1:]]
    assert len(set(names)) == len(names)
    assert {chain[0] for chain in CHAINS} == {"clock"}
    assert "clock" not in names
