"""The words of a failed attempt (``pixnotify.failures``), from real exceptions raised by the real
client over real sockets on 127.0.0.1 where that is cheap; and the TLS settings' checks."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trustme

from pixinfra.settings import NotifierSettings
from pixnotify.client import ConnectionClosed, TimedOut
from pixnotify.failures import Target, describe_answer, describe_error
from pixnotify.sender import post
from pixnotify.transport import make_webhook_client, webhook_ssl_context

PIXNOTIFY = Path(sys.executable).parent / "pixnotify"


async def loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def attempt(url: str, *, allow_private: bool = True, seconds: float = 2.0) -> str | None:
    """The error of one attempt with the notifier's client."""
    async with make_webhook_client(
        NotifierSettings(timeout=seconds), allow_private=allow_private, resolver=loopback
    ) as c:
        outcome = await post(c, url, b"{}", [("content-type", "application/json")], deadline=seconds)
    assert outcome.status_code is None
    return outcome.error


async def test_a_closed_port_is_connection_refused() -> None:
    port = closed_port()
    assert await attempt(f"http://127.0.0.1:{port}/") == f"connection refused by 127.0.0.1:{port}"
    assert await attempt(f"https://hooks.pix.test:{port}/") == f"connection refused by hooks.pix.test:{port}"


@pytest.fixture
async def untrusted_tls() -> AsyncIterator[int]:
    """A TLS server whose certificate no public root signed."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("hooks.pix.test").configure_cert(context)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    async with server:
        yield server.sockets[0].getsockname()[1]


async def test_an_untrusted_certificate_is_tls_verification_failed(untrusted_tls: int) -> None:
    error = await attempt(f"https://hooks.pix.test:{untrusted_tls}/")
    assert error == "TLS verification failed for host hooks.pix.test: unable to get local issuer certificate"


@pytest.fixture
async def silent() -> AsyncIterator[int]:
    """A server that reads and never answers (until the test ends: then it hangs up)."""
    holding: list[asyncio.Task[None]] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        holding.append(task)  # the handler's own task
        try:
            await reader.read(1)
            await asyncio.sleep(30)
        finally:
            writer.close()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]
        server.close()
        for task in holding:
            task.cancel()
        await asyncio.gather(*holding, return_exceptions=True)


async def test_a_receiver_that_never_answers_timed_out(silent: int) -> None:
    error = await attempt(f"http://127.0.0.1:{silent}/", seconds=0.3)
    assert error is not None
    assert error.startswith("timed out after 0.3 s")


async def test_a_private_address_is_refused_naming_the_setting() -> None:
    error = await attempt("https://10.0.0.1/", allow_private=False)
    assert error == "address refused: 10.0.0.1 is private (PIX_WEBHOOK_ALLOW_PRIVATE is off)"


async def test_a_link_local_name_is_refused_with_its_kind() -> None:
    async def metadata(host: str, port: int) -> list[str]:
        return ["169.254.169.254"]

    async with make_webhook_client(NotifierSettings(), allow_private=False, resolver=metadata) as c:
        outcome = await post(c, "https://hooks.pix.test/", b"{}", [], deadline=2)
    assert outcome.error == (
        "address refused: hooks.pix.test resolves to 169.254.169.254, which is link-local "
        "(PIX_WEBHOOK_ALLOW_PRIVATE is off)"
    )


def test_the_phase_of_a_timeout_is_named() -> None:
    target = Target.of("https://hooks.pix.test:8443/x", timeout=15)
    assert describe_error(TimedOut("connect", "t"), target, tls=True) == (
        "timed out after 15 s connecting to hooks.pix.test:8443"
    )
    assert describe_error(TimedOut("read", "t"), target, tls=True) == (
        "timed out after 15 s waiting for the answer of hooks.pix.test:8443"
    )
    assert describe_error(TimeoutError(), target, tls=True) == "timed out after 15 s"


def test_an_answer_is_its_status() -> None:
    assert describe_answer(500) == "answered 500"
    assert describe_answer(302) == "answered 302 (a redirect: not followed)"


# -- the TLS settings -------------------------------------------------------------------------------


def test_a_client_key_without_its_certificate_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    trustme.CA().issue_cert("n.pix.test").private_key_pem.write_to_path(str(key))
    with pytest.raises(ValueError, match="PIX_WEBHOOK_CLIENT_KEY is set without PIX_WEBHOOK_CLIENT_CERT"):
        NotifierSettings(client_key=key)


def test_a_missing_or_non_pem_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"PIX_WEBHOOK_CA_FILE=.*nope\.pem: no such file"):
        NotifierSettings(ca_file=tmp_path / "nope.pem")
    (tmp_path / "text.pem").write_text("not a certificate")
    with pytest.raises(ValueError, match=r"PIX_WEBHOOK_CLIENT_CERT=.*text\.pem: not a PEM file"):
        NotifierSettings(client_cert=tmp_path / "text.pem")


def test_a_key_that_is_not_the_certificates_is_refused(tmp_path: Path) -> None:
    ca = trustme.CA()
    ca.issue_cert("a.pix.test").cert_chain_pems[0].write_to_path(str(tmp_path / "a.pem"))
    ca.issue_cert("b.pix.test").private_key_pem.write_to_path(str(tmp_path / "b-key.pem"))
    config = NotifierSettings(client_cert=tmp_path / "a.pem", client_key=tmp_path / "b-key.pem")
    with pytest.raises(ValueError, match="not a certificate and its private key"):
        webhook_ssl_context(config)


def test_the_notifier_refuses_to_start_with_a_clear_error(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PIX_WEBHOOK_CLIENT_KEY": str(tmp_path / "key.pem")}
    done = subprocess.run(
        [str(PIXNOTIFY), "run"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert '"error": "InvalidSetting"' in done.stderr
    assert "PIX_WEBHOOK_CLIENT_KEY is set without PIX_WEBHOOK_CLIENT_CERT" in done.stderr


def test_a_receivers_certificate_required_alert_points_at_the_setting() -> None:
    alert = ssl.SSLError(1, "[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required")
    read = ConnectionClosed("TLS")
    read.__cause__ = alert
    target = Target.of("https://hooks.pix.test/", timeout=15)
    assert describe_error(read, target, tls=True) == (
        "TLS handshake with hooks.pix.test:443 failed: the receiver asked for a client certificate "
        "(PIX_WEBHOOK_CLIENT_CERT is not set)"
    )
    with_cert = Target.of("https://hooks.pix.test/", timeout=15, client_cert=True)
    assert describe_error(read, with_cert, tls=True).startswith(
        "TLS handshake with hooks.pix.test:443 failed: "
    )


async def test_a_204_followed_by_a_body_is_an_invalid_answer() -> None:
    """A 204 has no body (RFC 9112, 6.3): bytes after it are read as the next answer, which they are
    not. The notifier's parser (aiohttp's llhttp) refuses the answer, and the attempt log says why
    rather than "connection closed"."""

    async def sloppy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(sloppy, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, make_webhook_client(NotifierSettings(timeout=2), allow_private=True) as c:
        outcome = await post(c, f"http://127.0.0.1:{port}/", b"", [], deadline=2)
    assert outcome.status_code is None
    assert outcome.error is not None
    assert outcome.error.startswith(f"invalid HTTP answer from 127.0.0.1:{port}: Bad status line")
