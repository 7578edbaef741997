"""The network's settings, read once from the environment (``PIXNET_*``; docs/network.md).

===========================  =====================================================================
``PIXNET_DATABASE_URL``      the network's PostgreSQL database; unset: an embedded server in the data
                             folder, database ``pixnet``
``PIXNET_DATA_DIR``          the data folder of the embedded server (default ``.pixnet``)
``PIXNET_HOST``              the address ``pixnet serve`` listens on (default ``127.0.0.1``)
``PIXNET_PORT``              its port (default 16422, the DICT's in the document)
``PIXNET_CERTIFICATE``       the network's certificate (PEM): its TLS server certificate, and the
                             one its answers are signed with
``PIXNET_PRIVATE_KEY``       that certificate's RSA key (PEM)
``PIXNET_CA_CERTIFICATE``    the authority that issues the participants' client certificates (PEM)
``PIXNET_PAYEE_TIMEOUT``     seconds a payee's institution has to answer a payment (default 10)
``PIXNET_CLAIM_RESOLUTION``  seconds of a claim's resolution period (default 604800: 7 days)
``PIXNET_CLAIM_COMPLETION``  seconds of an ownership claim's completion period, after its
                             resolution period (default 2592000: 30 days)
===========================  =====================================================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NetworkSettings", "SettingsError"]

DEFAULT_PORT = 16422
DEFAULT_PAYEE_TIMEOUT = 10.0
DEFAULT_CLAIM_RESOLUTION = 7 * 86_400
DEFAULT_CLAIM_COMPLETION = 30 * 86_400


class SettingsError(ValueError):
    """A setting missing or wrong, said in a sentence that names it."""


def _file(name: str) -> Path:
    raw = os.environ.get(name, "").strip()
    if not raw:
        raise SettingsError(f"{name} is required: the path of a PEM file")
    path = Path(raw)
    if not path.is_file():
        raise SettingsError(f"{name} names {raw}, which is not a readable file")
    return path


def _seconds(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip() or str(default)
    if not raw.isdigit() or int(raw) > 10 * 365 * 86_400:
        raise SettingsError(f"{name} must be whole seconds, 0 to ten years, not {raw!r}")
    return int(raw)


@dataclass(frozen=True, slots=True)
class NetworkSettings:
    database_url: str | None
    data_dir: Path
    host: str
    port: int
    payee_timeout: float = DEFAULT_PAYEE_TIMEOUT
    claim_resolution: int = DEFAULT_CLAIM_RESOLUTION
    claim_completion: int = DEFAULT_CLAIM_COMPLETION

    @classmethod
    def from_environment(cls) -> NetworkSettings:
        raw_port = os.environ.get("PIXNET_PORT", "").strip() or str(DEFAULT_PORT)
        if not raw_port.isdigit() or not 0 < int(raw_port) < 65536:
            raise SettingsError(f"PIXNET_PORT must be a port number (1 to 65535), not {raw_port!r}")
        raw_timeout = os.environ.get("PIXNET_PAYEE_TIMEOUT", "").strip() or str(DEFAULT_PAYEE_TIMEOUT)
        try:
            timeout = float(raw_timeout)
        except ValueError:
            timeout = -1.0
        if not 0 < timeout <= 300:
            raise SettingsError(
                f"PIXNET_PAYEE_TIMEOUT must be seconds, above 0 and at most 300, not {raw_timeout!r}"
            )
        resolution = _seconds("PIXNET_CLAIM_RESOLUTION", DEFAULT_CLAIM_RESOLUTION)
        completion = _seconds("PIXNET_CLAIM_COMPLETION", DEFAULT_CLAIM_COMPLETION)
        return cls(
            database_url=os.environ.get("PIXNET_DATABASE_URL", "").strip() or None,
            data_dir=Path(os.environ.get("PIXNET_DATA_DIR", "").strip() or ".pixnet"),
            host=os.environ.get("PIXNET_HOST", "").strip() or "127.0.0.1",
            port=int(raw_port),
            payee_timeout=timeout,
            claim_resolution=resolution,
            claim_completion=completion,
        )

    @staticmethod
    def tls_files() -> tuple[Path, Path, Path]:
        """The certificate, its key and the participants' authority (``SettingsError`` if unset)."""
        return _file("PIXNET_CERTIFICATE"), _file("PIXNET_PRIVATE_KEY"), _file("PIXNET_CA_CERTIFICATE")
