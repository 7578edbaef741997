"""Mutual TLS: the network's server context, and the participant a connection's certificate names.

Every connection presents a client certificate issued by the network's certificate authority (the
handshake fails otherwise); the certificate's SHA-256 fingerprint then names the participant it was
registered for (``pixnet admin participant add``). A certificate the authority issued but no
participant registered is known to no one: ``Forbidden``.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

from pixnet.store.entries import der_fingerprint

__all__ = ["peer_fingerprint", "server_context"]


def server_context(*, certificate: Path, private_key: Path, authority: Path) -> ssl.SSLContext:
    """TLS 1.2 or later, the network's certificate and key, and a client certificate required and
    verified against ``authority``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(authority))
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(str(certificate), str(private_key))
    context.verify_mode = ssl.CERT_REQUIRED
    return context


def peer_fingerprint(transport: Any) -> str | None:
    """The hex SHA-256 of the DER certificate the connection's peer presented (None without one)."""
    if transport is None:
        return None
    ssl_object = transport.get_extra_info("ssl_object")
    der = None if ssl_object is None else ssl_object.getpeercert(binary_form=True)
    return None if der is None else der_fingerprint(der)
