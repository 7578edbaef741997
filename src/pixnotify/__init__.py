"""pixnotify: webhook delivery, as its own process (``pixnotify run``) or inside ``pixweb serve``.

It reads the transactional outbox: each event becomes one delivery per active registration of its
type (fan-out), then each delivery is signed (Standard Webhooks), sent and retried on its own
schedule until delivered or failed. See :mod:`pixnotify.worker` for the loop; its tables are
reached through the ``pixcore.webhooks.ports.DeliveryStore`` port (on PostgreSQL:
:mod:`pixinfra.persistence.deliveries`, the adapters' package the API uses too).

It imports neither Litestar nor ``pixweb``: what it shares with the API (settings, the database,
the embedded server, logging) is in :mod:`pixinfra`. ``pixweb serve`` runs
:func:`deliver_in_process` when its composer (:mod:`pixservice`) hands it over.
"""

from __future__ import annotations

from pixnotify.metrics import DeliveryMetrics
from pixnotify.probe import HttpProbe, probe_for
from pixnotify.worker import Notifier, Round, deliver_in_process

__all__ = [
    "DeliveryMetrics",
    "HttpProbe",
    "Notifier",
    "Round",
    "deliver_in_process",
    "probe_for",
]
