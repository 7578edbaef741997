""":class:`HttpProbe`: the ``pixcore.webhooks.ports.WebhookProbe`` port, the test event of
``POST /api/webhooks/{id}/test``.

It sends with what the notifier sends with: an HTTP client of :func:`pixnotify.transport.make_webhook_client`
(the address guard, no redirects, no proxies) and the Standard Webhooks headers of
:func:`pixnotify.sender.build_headers`, the PING written by :func:`pixinfra.event_payloads.ping_payload`
and encoded as every notification is (:func:`pixcore.webhooks.delivery.encode_body`). One attempt
within the notifier's timeout; the outcome is answered, not stored, and never retried.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from pixcore.clock import Clock, SystemClock
from pixcore.webhooks.delivery import encode_body
from pixcore.webhooks.ports import Ping, ProbeResult, WebhookProbe
from pixinfra.event_payloads import ping_payload
from pixinfra.settings import NotifierSettings, Settings
from pixnotify.sender import build_headers, post
from pixnotify.transport import Resolver, make_webhook_client, system_resolver

__all__ = ["HttpProbe", "probe_for"]


class HttpProbe:
    """Sends each test event on a client of its own (test events are rare: nothing to keep open)."""

    def __init__(
        self,
        *,
        allow_private: bool,
        config: NotifierSettings,
        resolver: Resolver = system_resolver,
        clock: Clock | None = None,
    ) -> None:
        self.clock: Clock = clock or SystemClock()  # webhook-timestamp: the wall clock's
        self.allow_private = allow_private
        # The notifier's timeout and TLS settings (private CA, client certificate), one connection.
        self.config = dataclasses.replace(config, concurrency=1)
        self.timeout = config.timeout
        self.resolver = resolver

    async def send(
        self,
        *,
        url: str,
        headers: Mapping[str, str],
        secrets: Sequence[str],
        msg_id: str,
        event: Ping,
    ) -> ProbeResult:
        body = encode_body(ping_payload(event))
        signed = build_headers(
            msg_id=msg_id,
            timestamp=int(self.clock.now().timestamp()),
            body=body,
            secrets=secrets,
            custom=headers,
        )
        async with make_webhook_client(
            self.config, allow_private=self.allow_private, resolver=self.resolver
        ) as client:
            outcome = await post(
                client,
                url,
                body,
                signed,
                deadline=self.timeout,
                client_cert=self.config.client_cert is not None,
            )
        code = outcome.status_code
        return ProbeResult(
            success=code is not None and 200 <= code <= 299,
            status_code=code,
            duration_ms=round(outcome.seconds * 1000),
            error=outcome.error if code is None else None,
        )


def probe_for(settings: Settings) -> WebhookProbe:
    """The probe of a process with these settings (``PIX_WEBHOOK_ALLOW_PRIVATE``, the notifier's
    timeout and TLS settings), as ``pixservice`` hands it to the API."""
    return HttpProbe(allow_private=settings.webhook_allow_private, config=settings.notifier)
