"""What is answered at the edge is in the error shape and says nothing of the machine.

A file missing under ``/console/static/`` is the ordinary 404, without the folder the package is
installed in (Litestar's static files name it in their error). A request line with raw bytes outside
ASCII never reaches the app: uvicorn's parser refuses it, and ``pixweb serve`` answers that 400 in
the error shape too (``pixweb.http_protocol``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import pixweb
from tests.e2e.conftest import Api
from tests.security.conftest import Served, assert_error

INSTALLED = str(Path(pixweb.__file__).resolve().parent)
STATIC = Path(INSTALLED) / "console" / "static"


@pytest.mark.parametrize(
    "path",
    [
        "/console/static/nothing-here.css",
        "/console/static/js/nothing-here.js",
        "/console/static/..%2f..%2fapp.py",
        "/console/static/%2e%2e/routes.py",
    ],
)
async def test_a_missing_static_file_is_a_404_that_names_no_path(api: Api, path: str) -> None:
    response = await api.client.get(path)
    body = assert_error(response, 404)
    assert body["message"] == "No such resource."
    assert INSTALLED not in response.text
    assert "site-packages" not in response.text
    assert "/static" not in body["message"]


async def test_a_present_static_file_is_still_served(api: Api) -> None:
    name = STATIC / "console.css"
    response = await api.client.get("/console/static/console.css")
    assert response.status_code == 200
    assert response.content == name.read_bytes()


async def _raw(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    received = b""
    try:
        while chunk := await asyncio.wait_for(reader.read(65_536), 60):
            received += chunk
    except ConnectionResetError:
        pass
    writer.close()
    return received


@pytest.mark.parametrize(
    "target",
    [
        b"/console/caf\xc3\xa9",  # UTF-8, but not percent-encoded
        b"/balance/\xff\xfe",  # not UTF-8 at all
        b"/health/live?q=\x80",  # in the query
    ],
)
async def test_raw_bytes_outside_ascii_in_the_request_line_are_a_400_in_the_error_shape(
    served: Served, target: bytes
) -> None:
    received = await _raw(served.port, b"GET " + target + b" HTTP/1.1\r\nHost: pix.test\r\n\r\n")
    status_line, _, rest = received.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 400 Bad Request", received[:300]
    headers_text, _, body = rest.partition(b"\r\n\r\n")
    headers = dict(line.split(b": ", 1) for line in headers_text.split(b"\r\n"))
    assert headers[b"content-type"] == b"application/json"
    assert headers[b"connection"] == b"close"
    error = json.loads(body)
    assert set(error) == {"statusCode", "message", "error"}
    assert error["statusCode"] == 400
    assert error["error"] == "Bad Request"
    assert "percent-encode" in error["message"]


async def test_the_same_bytes_percent_encoded_reach_the_app_and_get_its_400(served: Served) -> None:
    received = await _raw(
        served.port, b"GET /health/live?q=%ff HTTP/1.1\r\nHost: pix.test\r\nConnection: close\r\n\r\n"
    )
    status_line, _, rest = received.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 400 Bad Request", received[:300]
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["statusCode"] == 400
    assert "the query string is not valid UTF-8" in body["message"]
