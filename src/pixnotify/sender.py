"""One attempt: the signed POST of an event's bytes to one registration's URL.

The whole attempt (resolution, connection, request, response) has one deadline. Inside it,
tenacity retries only a failed connection, briefly: then nothing was sent, so retrying cannot
duplicate anything. Every other failure ends the attempt; the schedule stored with the delivery
decides when the next one is made.
"""

from __future__ import annotations

import asyncio
import codecs
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from pixcore.webhooks.delivery import MAX_RESPONSE_BODY, signature_header
from pixnotify.client import Answer, Client, ConnectFailed, DeliveryError
from pixnotify.failures import Target, describe_error

__all__ = ["CONNECT_TRIES", "MAX_RESPONSE_BYTES", "Client", "Outcome", "body_text", "build_headers", "post"]

CONNECT_TRIES = 3
FIRST_PAUSE = 0.1  # seconds before the second try; then tenacity's exponential wait
MAX_RESPONSE_BYTES = 65_536  # read and discarded; a longer answer closes the connection
_OURS = frozenset({"webhook-id", "webhook-timestamp", "webhook-signature", "content-type"})


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an attempt got: a status code, or an error (no response)."""

    status_code: int | None
    retry_after: str | None = None
    error: str | None = None
    seconds: float = 0.0
    body: str | None = None  # the start of the answer's body, as text (body_text)


_KEPT = 4 * MAX_RESPONSE_BODY  # raw bytes kept for the text: a character is at most 4 bytes of UTF-8
_DECOMPRESS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS, "x-gzip": zlib.MAX_WBITS | 16}


def body_text(start: bytes, content_encoding: str | None) -> str:
    """At most ``MAX_RESPONSE_BODY`` characters of the start of an answer's body: decompressed
    (gzip, deflate) no further than that, decoded as UTF-8 with replacement (a character cut at the
    end is dropped, not replaced)."""
    encoding = (content_encoding or "identity").strip().lower()
    if encoding in _DECOMPRESS:
        try:
            start = zlib.decompressobj(_DECOMPRESS[encoding]).decompress(start, _KEPT)
        except zlib.error:
            return f"(a {encoding} body that does not decompress)"
    elif encoding != "identity":
        return f"(a body in the {encoding} encoding)"
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(start, final=False)
    return text[:MAX_RESPONSE_BODY]


def build_headers(
    *,
    msg_id: str,
    timestamp: int,
    body: bytes,
    secrets: Sequence[str],
    custom: Mapping[str, str],
) -> list[tuple[str, str]]:
    """The Standard Webhooks headers and the content type, then the registration's own headers
    (never one that would replace ours)."""
    headers = [
        ("webhook-id", msg_id),
        ("webhook-timestamp", str(timestamp)),
        ("webhook-signature", signature_header(secrets, msg_id, timestamp, body)),
        ("content-type", "application/json"),
    ]
    headers += [(name, value) for name, value in custom.items() if name.lower() not in _OURS]
    return headers


async def _read(answer: Answer) -> Outcome:
    """The outcome of an answer: its status, ``Retry-After`` and the start of its body (at most
    ``MAX_RESPONSE_BYTES`` read)."""
    received = 0
    start = bytearray()
    async for chunk in answer.chunks:
        if len(start) < _KEPT:
            start += chunk[: _KEPT - len(start)]
        received += len(chunk)
        if received > MAX_RESPONSE_BYTES:
            break
    text = body_text(bytes(start), answer.header("content-encoding")) if start else None
    return Outcome(answer.status, answer.header("retry-after"), body=text)


async def _send_once(client: Client, url: str, body: bytes, headers: list[tuple[str, str]]) -> Outcome:
    async with client.post(url, body, headers) as answer:  # errors reading its body are the client's too
        return await _read(answer)


async def _send(client: Client, url: str, body: bytes, headers: list[tuple[str, str]]) -> Outcome:
    try:  # the common case, without tenacity's bookkeeping
        return await _send_once(client, url, body, headers)
    except ConnectFailed:
        await asyncio.sleep(FIRST_PAUSE)
    async for attempt in AsyncRetrying(
        retry=retry_if_exception_type(ConnectFailed),
        stop=stop_after_attempt(CONNECT_TRIES - 1),
        wait=wait_exponential(multiplier=0.1, max=1.0),
        reraise=True,
    ):
        with attempt:
            return await _send_once(client, url, body, headers)
    raise AssertionError("unreachable: tenacity re-raises the last error")  # pragma: no cover


async def post(
    client: Client,
    url: str,
    body: bytes,
    headers: list[tuple[str, str]],
    *,
    deadline: float,
    client_cert: bool = False,
) -> Outcome:
    """POST ``body`` within ``deadline`` seconds; never raises for a failure of the receiver's side:
    the outcome's ``error`` says, in words (:func:`pixnotify.failures.describe_error`), why there
    was no answer (``client_cert``: the notifier has a client certificate to present)."""
    began = time.monotonic()
    try:
        async with asyncio.timeout(deadline):
            outcome = await _send(client, url, body, headers)
    except (TimeoutError, DeliveryError) as exc:
        target = Target.of(url, timeout=deadline, client_cert=client_cert)
        outcome = Outcome(None, error=describe_error(exc, target, tls=url.startswith("https:")))
    seconds = time.monotonic() - began
    return Outcome(outcome.status_code, outcome.retry_after, outcome.error, seconds, outcome.body)
