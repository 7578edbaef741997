"""What the app hands its handlers, by parameter name (Litestar's dependency injection).

:class:`Wiring` holds the objects of one app: those fixed when it is created (settings, metrics,
readiness probe, test-event probe) and those its lifespan builds (the :class:`Services`, the
database supervisor). :meth:`Wiring.providers` turns them into the app's ``dependencies``: one
``Provide`` a name, a plain function returning what is there (no thread, no per-request work). A
handler asks for one by name, ``uow: Injected[UnitOfWorkFactory]`` (``pixweb.api.deps``).
docs/decisions/dependency-injection.md says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from litestar.di import Provide
from litestar.types import AnyCallable

from pixcore.clock import Clock, SystemClock
from pixcore.webhooks.ports import WebhookProbe
from pixinfra.postgres.supervisor import Supervisor
from pixinfra.settings import Settings
from pixweb.observability.metrics import Metrics
from pixweb.observability.readiness import ReadinessProbe
from pixweb.services import Services

__all__ = ["SERVICE_NAMES", "Wiring"]

SERVICE_NAMES = tuple(field.name for field in fields(Services) if field.name not in ("settings", "clock"))
"""The :class:`Services` handed by their field's name (``settings`` and ``clock`` have providers of
their own, which answer before the lifespan has built the services)."""


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
        return {name: Provide(provide, sync_to_thread=False) for name, provide in found.items()}

    def _service(self, name: str) -> Callable[[], object]:
        return lambda: getattr(self.running(), name)


def _constant(value: object) -> Callable[[], object]:
    return lambda: value
