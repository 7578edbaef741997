"""What the network's integration tests share: the parties' certificates (from ``trustme``), a
``pixnet`` application served over mutual TLS on a database of the module's, clients as each
participant, and signed requests and answers."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import trustme

from pixnet.directory.policies import Buckets
from pixwire import xml
from pixwire.dict.documents import ERROR_BASE, PROBLEM_NAMESPACE
from pixwire.signatures import sign, verify

CA = trustme.CA(key_type=trustme.KeyType.RSA)
BANK_A, BANK_B = "11111111", "22222222"
P = f"{{{PROBLEM_NAMESPACE}}}"


@dataclass(frozen=True)
class Party:
    cert: bytes
    key: bytes
    files: tuple[Path, Path]


def issue(ca: trustme.CA, name: str, folder: Path) -> Party:
    issued = ca.issue_cert(name, key_type=trustme.KeyType.RSA)
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    return Party(issued.cert_chain_pems[0].bytes(), issued.private_key_pem.bytes(), (cert, key))


@dataclass(frozen=True)
class Network:
    url: str
    dict_party: Party
    parties: dict[str, Party]
    database: str
    buckets: Buckets
    """The application's rate-limiting buckets (in its memory: a test reads where one stands)."""


def client(network: Network, who: str, ca: trustme.CA = CA) -> httpx.AsyncClient:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    party = network.parties[who]
    context.load_cert_chain(str(party.files[0]), str(party.files[1]))
    return httpx.AsyncClient(base_url=network.url, verify=context, timeout=10)


def signed(network: Network, who: str, body: bytes) -> bytes:
    party = network.parties[who]
    return xml.serialize(sign(xml.parse(body), key_pem=party.key, cert_pem=party.cert))


def answer(network: Network, response: httpx.Response) -> Any:
    """The answer's root, verified as the network's signature."""
    assert response.headers["content-type"].startswith("application/xml")
    return verify(response.content, cert_pem=network.dict_party.cert)


def problem(network: Network, response: httpx.Response) -> tuple[int, str, str]:
    root = answer(network, response)
    assert root.tag == f"{P}problem"
    return (
        response.status_code,
        root.findtext(f"{P}type").removeprefix(ERROR_BASE),
        root.findtext(f"{P}detail"),
    )
