"""``X-SSL-Client-Cert`` holds one certificate, sent once.

A proxy that adds its header beside the client's, instead of replacing it, forwards two: the
client's (any certificate it likes) and the proxy's (the one of the TLS handshake). Read
first-wins, the client's would decide. So the header sent twice, or one value holding two PEM
blocks (however it is encoded, or several values joined with a comma as a proxy may join
them), is a 400 in the service's error shape wherever the header is read, even when the right
certificate comes first; no token is issued and no request passes.
"""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

import httpx
import pytest

from pixcore.errors import MalformedCertificate, MoreThanOneCertificate
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.security.certificates import certificate_header, create_self_signed, read_certificate_header
from tests.e2e.conftest import Api
from tests.security.conftest import assert_error, signed_in
from tests.support import Client, new_client

HEADER = "X-SSL-Client-Cert"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
VARIANTS = ["two headers", "two PEMs, URL-encoded", "two PEMs, form-encoded", "two PEMs, raw", "joined"]


def _headers(variant: str, client: Client) -> list[tuple[str, str]]:
    """The client's own certificate first, then a stranger's, as ``variant`` carries them."""
    own = client.cert_pem.decode()
    other = create_self_signed("stranger")[1].decode()
    match variant:
        case "two headers":
            return [(HEADER, quote(own, safe="")), (HEADER, quote(other, safe=""))]
        case "two PEMs, URL-encoded":
            return [(HEADER, quote(own + other, safe=""))]
        case "two PEMs, form-encoded":
            return [(HEADER, quote_plus(own + other))]
        case "two PEMs, raw":  # not encoded; a header line holds no newline, so spaces
            return [(HEADER, (own + other).replace("\n", " ").strip())]
        case "joined":  # two headers joined into one, as a proxy may
            return [(HEADER, f"{quote(own, safe='')}, {quote(other, safe='')}")]
    raise AssertionError(variant)


def _assert_refused(response: httpx.Response) -> None:
    body = assert_error(response, 400, reasons=("Bad Request",))
    assert "X-SSL-Client-Cert" in body["message"]
    assert "access_token" not in response.text


@pytest.mark.parametrize("variant", VARIANTS)
async def test_the_token_endpoint_refuses_more_than_one_certificate(
    pg_uow: UnitOfWorkFactory, api: Api, variant: str
) -> None:
    client = await new_client(pg_uow)
    refused = await api.client.post(
        "/api/auth/token", json=client.credentials, headers=_headers(variant, client)
    )
    _assert_refused(refused)
    alone = await api.client.post(
        "/api/auth/token", json=client.credentials, headers={HEADER: client.cert_header}
    )
    assert alone.status_code == 201, alone.text  # the same request with its one certificate


@pytest.mark.parametrize("variant", VARIANTS)
async def test_the_oauth_endpoint_refuses_more_than_one_certificate(
    pg_uow: UnitOfWorkFactory, api: Api, variant: str
) -> None:
    client = await new_client(pg_uow)
    form = {
        "grant_type": "client_credentials",
        "client_id": client.opened.client_id,
        "client_secret": client.opened.client_secret,
    }
    refused = await api.client.post("/oauth/token", data=form, headers=_headers(variant, client))

    assert refused.status_code == 400, refused.text
    body = refused.json()
    assert set(body) == {"error", "error_description", "statusCode", "message"}  # RFC 6749 §5.2 and ours
    assert (body["error"], body["statusCode"]) == ("invalid_request", 400)
    assert "X-SSL-Client-Cert" in body["message"]
    assert "access_token" not in refused.text


@pytest.mark.parametrize("variant", VARIANTS)
async def test_a_bearer_request_refuses_more_than_one_certificate(
    pg_uow: UnitOfWorkFactory, api: Api, variant: str
) -> None:
    signed = await signed_in(pg_uow, api.client)
    refused = await api.client.get(
        "/balance", headers=[*signed.auth.items(), *_headers(variant, signed.client)]
    )
    _assert_refused(refused)
    alone = await api.client.get("/balance", headers=signed.auth | {HEADER: signed.client.cert_header})
    assert alone.status_code == 200, alone.text


@pytest.mark.parametrize("variant", VARIANTS)
async def test_the_console_sign_in_refuses_more_than_one_certificate(
    pg_uow: UnitOfWorkFactory, api: Api, variant: str
) -> None:
    client = await new_client(pg_uow)
    form = await api.client.get("/console/sign-in")
    found = CSRF.search(form.text)
    assert found is not None
    fields = {
        "csrf": found.group(1),
        "client_id": client.opened.client_id,
        "client_secret": client.opened.client_secret,
    }

    refused = await api.client.post("/console/sign-in", data=fields, headers=_headers(variant, client))

    assert refused.status_code == 400, refused.text
    assert "X-SSL-Client-Cert" in refused.text  # the message, on the sign-in page
    assert "Traceback" not in refused.text
    assert (await api.client.get("/console")).status_code == 303  # still signed out


def test_the_reader_takes_one_certificate_and_nothing_after_it() -> None:
    pem = create_self_signed("one")[1].decode()
    assert pem.endswith("-----END CERTIFICATE-----\n")
    assert read_certificate_header(quote(pem, safe="")).fingerprint  # its own newline is fine
    with pytest.raises(MalformedCertificate, match="more than its certificate"):
        read_certificate_header(quote(pem + "trailing text", safe=""))
    with pytest.raises(MoreThanOneCertificate):
        read_certificate_header(quote(pem + "-----BEGIN PRIVATE KEY-----", safe=""))
    with pytest.raises(MoreThanOneCertificate):
        certificate_header(["a", "b"])
    assert certificate_header([]) is None
    assert certificate_header(["a"]) == "a"
