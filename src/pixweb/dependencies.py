"""What the app hands its handlers, by parameter name (Litestar's dependency injection).

:class:`Wiring` holds the objects of one app: those fixed when it is created (settings, metrics,
readiness probe, test-event probe) and those its lifespan builds (the :class:`Services`, the
database supervisor). :meth:`Wiring.providers` turns them into the app's ``dependencies``: one
``Provide`` a name, a plain function returning what is there (no thread, no per-request work). A
handler asks for one by name, ``uow: Injected[UnitOfWorkFactory]`` (``pixweb.api.deps``).

Litestar resolves the independent dependencies of a handler concurrently, in a task group, which
costs far more than the providers themselves; so the providers of :data:`CHAINS` each name the one
before as a parameter, and a handler's are resolved one after the other (docs/decisions/
dependency-injection.md).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeAlias

from litestar.di import NamedDependency, Provide
from litestar.types import AnyCallable

from pixcore.clock import Clock, SystemClock
from pixcore.webhooks.ports import WebhookProbe
from pixinfra.postgres.supervisor import Supervisor
from pixinfra.settings import Settings
from pixweb.observability.metrics import Metrics
from pixweb.observability.readiness import ReadinessProbe
from pixweb.services import Services

__all__ = ["CHAINS", "SERVICE_NAMES", "Wiring"]

SERVICE_NAMES = tuple(field.name for field in fields(Services) if field.name not in ("settings", "clock"))
"""The :class:`Services` handed by their field's name (``settings`` and ``clock`` have providers of
their own, which answer before the lifespan has built the services)."""


CHAINS = (
    (
        "clock",
        "uow",
        "settings",
        "receipts",
        "charge_payments",
        "queries",
        "reads",
        "tokens",
        "probe",
        "resolver",
        "verifier",
        "token_limits",
        "sandbox_directory",
        "keeper",
        "console_sessions",
        "directory",
        "database",
        "hasher",
        "certificate_status",
    ),
    ("clock", "readiness", "metrics"),
)
"""The providers resolved one after the other, the most used first (a handler pays for its chain up
to its last name). Both start at ``clock``, which answers before the lifespan has built the
services, so the health routes (the second chain) answer without them. ``transfers`` (the hot
``POST /dict/pix``, alone) and ``supervisor`` (``GET /health/live``, alone) are never asked for
with another, and stand apart."""


@dataclass(slots=True)
class Wiring:
    settings: Settings
    metrics: Metrics
    readiness: ReadinessProbe
    probe: WebhookProbe | None
    """What sends test events (``POST /api/webhooks/{id}/test``); None: that route answers 503."""
    services: Services | None = None
    """Built by the lifespan once the database is open."""
    supervisor: Supervisor | None = None
    """The embedded database's supervisor, while the lifespan runs one."""

    def running(self) -> Services:
        if self.services is None:
            raise RuntimeError("the app's services are built by its lifespan, which has not started")
        return self.services

    def clock(self) -> Clock:
        """The service clock; the wall clock before the lifespan has built the services."""
        return self.services.clock if self.services is not None else SystemClock()

    def providers(self, overrides: Mapping[str, object] | None = None) -> dict[str, Provide | AnyCallable]:
        """The app's ``dependencies``; ``overrides``: values handed in place of the app's own under
        those names (tests)."""
        found: dict[str, Callable[[], object]] = {name: self._service(name) for name in SERVICE_NAMES}
        found |= {
            "settings": lambda: self.settings,
            "clock": self.clock,
            "metrics": lambda: self.metrics,
            "readiness": lambda: self.readiness,
            "probe": lambda: self.probe,
            "supervisor": lambda: self.supervisor,
        }
        found |= {name: _constant(value) for name, value in (overrides or {}).items()}
        for chain in CHAINS:
            found |= {name: _after(previous, found[name]) for previous, name in itertools.pairwise(chain)}
        return {name: Provide(provide, sync_to_thread=False) for name, provide in found.items()}

    def _service(self, name: str) -> Callable[[], object]:
        return lambda: getattr(self.running(), name)


def _constant(value: object) -> Callable[[], object]:
    return lambda: value


_PREVIOUS: TypeAlias = NamedDependency[Any]
"""The annotation of a chained provider's parameter: a dependency by name, not validated."""


def _after(previous: str, provide: Callable[[], object]) -> Callable[..., object]:
    """``provide`` as a provider taking (and ignoring) the value of ``previous``: Litestar resolves
    ``previous`` first, never both at once."""

    def provider(**_: object) -> object:
        return provide()

    parameter = inspect.Parameter(previous, inspect.Parameter.KEYWORD_ONLY, annotation=_PREVIOUS)
    provider.__dict__["__signature__"] = inspect.Signature([parameter])
    provider.__annotations__ = {previous: _PREVIOUS, "return": Any}
    return provider
