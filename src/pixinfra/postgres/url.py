"""``PIX_DATABASE_URL``, checked when the settings are read: one host or a list of them.

asyncpg (which every connection of the service goes through, Piccolo's included) accepts a list
of hosts, ``postgresql://user@h1:5432,h2:5432/pix?target_session_attrs=read-write``: it tries them
in order and keeps the first whose session matches ``target_session_attrs`` (``read-write``: the
primary). This module reads such a URL the way asyncpg does, so that a mistake (an empty host, a
port that is not one, an unknown ``target_session_attrs``) stops the process at start with a
message naming it, rather than surfacing later as a failed connection. No message quotes the
password.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["TARGET_SESSION_ATTRS", "DatabaseUrl", "parse_database_url"]

TARGET_SESSION_ATTRS = ("any", "primary", "standby", "prefer-standby", "read-write", "read-only")
"""The values asyncpg knows (``asyncpg.connect_utils.SessionAttribute``)."""

_IPV6 = re.compile(r"\[([^\]]+)\](?::(.*))?")


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """What a URL names, as asyncpg will read it."""

    addresses: tuple[tuple[str, int | None], ...]
    """Host (or socket folder) and port of each server, in the order they are tried (no port:
    asyncpg's default); empty: asyncpg's default server (``PGHOST``, else the local socket)."""

    database: str
    user: str | None
    target_session_attrs: str | None

    @property
    def hosts(self) -> tuple[str, ...]:
        """``host:port`` of each server (or its socket folder), as a URL writes it."""
        return tuple(
            (f"[{host}]" if ":" in host and not host.startswith("/") else host) + (f":{port}" if port else "")
            for host, port in self.addresses
        )

    def describe(self) -> str:
        """For the logs: servers, database and user; never a password."""
        servers = ", ".join(self.hosts) if self.hosts else "local socket"
        attrs = f" ({self.target_session_attrs})" if self.target_session_attrs else ""
        user = f" as {self.user}" if self.user else ""
        return f"PostgreSQL at {servers}{attrs}, database {self.database}{user}"


def _port(text: str, where: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65_535:
        raise ValueError(f"{where}: port {text!r} is not a number from 1 to 65535")
    return int(text)


def _hosts(hostlist: str, where: str) -> list[tuple[str, int | None]]:
    hosts: list[tuple[str, int | None]] = []
    for spec in hostlist.split(","):
        if spec.startswith("/"):
            hosts.append((unquote(spec), None))
            continue
        if spec.startswith("["):
            match = _IPV6.fullmatch(spec)
            if match is None:
                raise ValueError(f"{where}: {spec!r} is not an IPv6 address in brackets")
            address, port = match.group(1), match.group(2)
        else:
            address, colon, port_text = spec.partition(":")
            port = port_text if colon else None
        if not address:
            raise ValueError(f"{where}: an empty host in {hostlist!r} (hosts are separated by commas)")
        hosts.append((unquote(address), None if port is None else _port(unquote(port), where)))
    return hosts


def parse_database_url(url: str, where: str = "PIX_DATABASE_URL") -> DatabaseUrl:
    """The URL's servers, database, user and ``target_session_attrs``; ``ValueError`` with a
    message naming ``where`` and the mistake if asyncpg would refuse it or misread it."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise ValueError(f"{where} is not a URL: {exc}") from None
    if parts.scheme not in {"postgresql", "postgres"}:
        raise ValueError(f"{where} must start with postgresql:// (or postgres://), not {parts.scheme!r}")
    auth, at, hostlist = parts.netloc.partition("@")
    if not at:
        auth, hostlist = "", parts.netloc
    try:
        pairs = parse_qs(parts.query, strict_parsing=True) if parts.query else {}
    except ValueError:
        raise ValueError(f"{where}: its query ({parts.query!r}) is not name=value pairs") from None
    query = {name: values[-1] for name, values in pairs.items()}  # the last one wins, as in asyncpg

    hosts = _hosts(hostlist, where) if hostlist else []
    if not hosts and query.get("host"):
        hosts = _hosts(query["host"], where)
    if ports := query.get("port"):
        listed = [_port(port, where) for port in ports.split(",")]
        if len(listed) > 1 and len(listed) != len(hosts):
            raise ValueError(f"{where}: {len(listed)} ports for {len(hosts)} hosts")
        hosts = [(host, port or listed[min(n, len(listed) - 1)]) for n, (host, port) in enumerate(hosts)]

    attrs = query.get("target_session_attrs")
    if attrs is not None and attrs not in TARGET_SESSION_ATTRS:
        raise ValueError(
            f"{where}: target_session_attrs must be one of {', '.join(TARGET_SESSION_ATTRS)}, not {attrs!r}"
        )
    user = unquote(auth.partition(":")[0]) or query.get("user") or None
    database = unquote(parts.path.lstrip("/")) or query.get("dbname") or query.get("database") or "postgres"
    return DatabaseUrl(addresses=tuple(hosts), database=database, user=user, target_session_attrs=attrs)
