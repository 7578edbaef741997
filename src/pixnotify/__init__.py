"""pixnotify: webhook delivery as its own process, reading the transactional outbox.

Nothing here yet: delivery arrives with the Webhooks issue. The package exists
so that the distribution's layout (pixcore, pixweb, pixnotify) is fixed from
the start.
"""

from __future__ import annotations

__all__: list[str] = []
