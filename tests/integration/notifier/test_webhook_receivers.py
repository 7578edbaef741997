"""Receivers a developer or an institution runs, reached by the real notifier client over real sockets on
127.0.0.1 (no database: the in-memory delivery store).

* ``http://`` to loopback is delivered with ``PIX_WEBHOOK_ALLOW_PRIVATE`` on, refused (in words
  naming the setting) without it, and never to a name that resolves to a public address.
* A TLS receiver whose certificate comes from a private CA (trustme) and that requires a client
  certificate: delivered with ``PIX_WEBHOOK_CA_FILE`` and ``PIX_WEBHOOK_CLIENT_CERT``/``_KEY``;
  refused without them, and the attempt's logged error says why.
"""

from __future__ import annotations

import http.server
import json
import logging
import ssl
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import trustme

from pixcore.clock import ManualClock
from pixcore.testing import InMemoryDeliveryStore
from pixcore.webhooks.rules import DeliveryStatus, EventType
from pixinfra.settings import NotifierSettings
from pixnotify import Notifier
from tests.integration.receiver import running_receiver

SECRET = "whsec_" + "c2VjcmV0LWtleS1vZi10aGUtY3VycmVudC1vbmU="
ACCOUNT = 1
EVENT = {"type": "RECEIVE", "data": {"id": 7, "status": "LIQUIDATED", "payment": {"amount": "12.00"}}}


async def loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


async def public(host: str, port: int) -> list[str]:
    return ["93.184.216.34"]


def store_with(url: str) -> tuple[InMemoryDeliveryStore, int]:
    store = InMemoryDeliveryStore()
    store.set_secret(ACCOUNT, SECRET)
    store.add_webhook(ACCOUNT, url, EventType.CASH_IN)
    return store, store.emit(ACCOUNT, EVENT, EventType.CASH_IN)


def notifier(
    store: InMemoryDeliveryStore, *, allow_private: bool, resolver: Any = loopback, **config: Any
) -> Notifier:
    settings = NotifierSettings(**{"timeout": 5.0, "lease": 30.0} | config)
    return Notifier(
        store, settings, allow_private=allow_private, clock=ManualClock(datetime.now(UTC)), resolver=resolver
    )


# -- plain http to a development receiver ------------------------------------------------------------


async def test_http_to_loopback_is_delivered_with_the_setting_on() -> None:
    async with running_receiver() as receiver:
        store, event = store_with(receiver.url("/dev"))
        async with notifier(store, allow_private=True) as running:
            await running.run_once()
        (got,) = receiver.at("/dev")
        assert got.verify(SECRET) == EVENT
        (row,) = store.deliveries_of(event)
        assert (row.status, row.last_status_code) == (DeliveryStatus.DELIVERED, 200)


async def test_http_to_loopback_is_refused_with_the_setting_off_and_says_which_setting() -> None:
    async with running_receiver() as receiver:
        store, event = store_with(receiver.url("/dev"))
        async with notifier(store, allow_private=False) as running:
            await running.run_once()
        assert receiver.received == []
        (row,) = store.deliveries_of(event)
        assert (row.status, row.last_error) == (
            DeliveryStatus.PENDING,
            "address refused: 127.0.0.1 is loopback (PIX_WEBHOOK_ALLOW_PRIVATE is off)",
        )


async def test_http_to_a_name_that_resolves_to_a_public_address_is_never_sent() -> None:
    store, event = store_with("http://hooks.pix.test/dev")
    async with notifier(store, allow_private=True, resolver=public) as running:
        await running.run_once()
    (row,) = store.deliveries_of(event)
    assert row.last_error == (
        "address refused: hooks.pix.test resolves to 93.184.216.34, which is public: plain http:// is only "
        "for loopback and private hosts, use https://"
    )


# -- a private PKI, mutual TLS ----------------------------------------------------------------------


class Answer(http.server.BaseHTTPRequestHandler):
    """Reads a POST and answers 204, recording the client certificate's subject."""

    received: list[tuple[bytes, Any]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        peer = self.connection.getpeercert()  # an ssl.SSLSocket: the listening socket was wrapped
        self.received.append((body, peer))
        self.send_response(204)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


class Pki:
    def __init__(self, folder: Path) -> None:
        self.ca = trustme.CA()
        self.ca_file = folder / "ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        notifier_cert = self.ca.issue_cert("notifier.pix.test")
        self.client_cert = folder / "client-cert.pem"
        self.client_key = folder / "client-key.pem"
        for blob in notifier_cert.cert_chain_pems:
            blob.write_to_path(str(self.client_cert), append=True)
        notifier_cert.private_key_pem.write_to_path(str(self.client_key))


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return Pki(tmp_path)


@pytest.fixture
def mtls_receiver(pki: Pki) -> Iterator[tuple[int, list[tuple[bytes, Any]]]]:
    """A TLS receiver on 127.0.0.1 for hooks.pix.test, its certificate from the private CA, that
    requires a client certificate from that CA."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    pki.ca.issue_cert("hooks.pix.test").configure_cert(context)
    pki.ca.configure_trust(context)
    context.verify_mode = ssl.CERT_REQUIRED
    received: list[tuple[bytes, Any]] = []
    handler = type("Handler", (Answer,), {"received": received})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def attempt_errors(caplog: pytest.LogCaptureFixture) -> list[str | None]:
    return [
        getattr(r, "error", None) for r in caplog.records if getattr(r, "event", None) == "webhook.attempt"
    ]


async def test_a_private_ca_and_a_client_certificate_are_delivered(
    pki: Pki, mtls_receiver: tuple[int, list[tuple[bytes, Any]]]
) -> None:
    port, received = mtls_receiver
    store, event = store_with(f"https://hooks.pix.test:{port}/mtls")
    config = {"ca_file": pki.ca_file, "client_cert": pki.client_cert, "client_key": pki.client_key}
    async with notifier(store, allow_private=True, **config) as running:
        await running.run_once()
    (row,) = store.deliveries_of(event)
    assert (row.status, row.last_status_code) == (DeliveryStatus.DELIVERED, 204)
    ((body, peer),) = received
    assert json.loads(body) == EVENT
    assert ("DNS", "notifier.pix.test") in peer["subjectAltName"]  # the notifier presented its certificate


async def test_without_the_private_ca_tls_verification_fails_and_says_so(
    pki: Pki, mtls_receiver: tuple[int, list[tuple[bytes, Any]]], caplog: pytest.LogCaptureFixture
) -> None:
    port, received = mtls_receiver
    store, event = store_with(f"https://hooks.pix.test:{port}/mtls")
    config = {"client_cert": pki.client_cert, "client_key": pki.client_key}
    with caplog.at_level(logging.WARNING, logger="pixnotify.worker"):
        async with notifier(store, allow_private=True, **config) as running:
            await running.run_once()
    assert received == []
    (row,) = store.deliveries_of(event)
    expected = "TLS verification failed for host hooks.pix.test: self-signed certificate in certificate chain"
    assert (row.status, row.last_error) == (DeliveryStatus.PENDING, expected)
    assert attempt_errors(caplog) == [expected]


async def test_without_a_client_certificate_the_error_points_at_the_setting(
    pki: Pki, mtls_receiver: tuple[int, list[tuple[bytes, Any]]], caplog: pytest.LogCaptureFixture
) -> None:
    port, received = mtls_receiver
    store, event = store_with(f"https://hooks.pix.test:{port}/mtls")
    with caplog.at_level(logging.WARNING, logger="pixnotify.worker"):
        async with notifier(store, allow_private=True, ca_file=pki.ca_file) as running:
            await running.run_once()
    assert received == []
    (row,) = store.deliveries_of(event)
    assert row.status is DeliveryStatus.PENDING
    # TLS 1.3: the receiver refuses the (empty) client certificate after the client's side of the
    # handshake is done: the notifier reads the receiver's alert, or (when the receiver has hung up
    # first) sees the connection close before an answer. Each says which setting is missing.
    alert = (
        f"TLS handshake with hooks.pix.test:{port} failed: the receiver asked for a client certificate "
        "(PIX_WEBHOOK_CLIENT_CERT is not set)"
    )
    closed = (
        f"connection closed by hooks.pix.test:{port} before an answer (a receiver that requires a client "
        "certificate does this: PIX_WEBHOOK_CLIENT_CERT is not set)"
    )
    assert row.last_error in (alert, closed)
    assert attempt_errors(caplog) == [row.last_error]


async def test_the_address_check_stays_in_force_over_tls(
    pki: Pki, mtls_receiver: tuple[int, list[tuple[bytes, Any]]]
) -> None:
    port, received = mtls_receiver
    store, event = store_with(f"https://hooks.pix.test:{port}/mtls")
    config = {"ca_file": pki.ca_file, "client_cert": pki.client_cert, "client_key": pki.client_key}
    async with notifier(store, allow_private=False, **config) as running:
        await running.run_once()
    assert received == []
    (row,) = store.deliveries_of(event)
    assert row.last_error == (
        "address refused: hooks.pix.test resolves to 127.0.0.1, which is loopback "
        "(PIX_WEBHOOK_ALLOW_PRIVATE is off)"
    )
