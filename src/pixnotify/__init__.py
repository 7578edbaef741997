"""pixnotify: webhook delivery, as its own process (``pixnotify run``) or inside ``pixweb serve``.

It reads the transactional outbox: each event becomes one delivery per active registration of its
type (fan-out), then each delivery is signed (Standard Webhooks), sent and retried on its own
schedule until delivered or failed. See :mod:`pixnotify.worker` for the loop.
"""

from __future__ import annotations

from pixnotify.metrics import DeliveryMetrics
from pixnotify.worker import Notifier, NotifierConfig, Round

__all__ = ["DeliveryMetrics", "Notifier", "NotifierConfig", "Round"]
