"""The service's client of the network: mutual TLS with this institution's certificate, writes
signed with its key, every answer's signature verified against the network's certificate before
anything of it is read.

A refusal of the network (its ``problem``) is :class:`~pixwire.dict.model.DictProblem`; a network
that cannot be reached, times out or answers 5xx is
:class:`~pixcore.network.ports.NetworkUnavailable` (nothing is known: the caller tries again).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import Any

import aiohttp

from pixcore.errors import ValidationError
from pixcore.network.ports import NetworkUnavailable
from pixinfra.settings import NetworkAccess
from pixwire.dict.documents import read_problem
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.signatures import SignatureRefused, sign, verify
from pixwire.xml import Element, serialize

__all__ = ["NetworkClient"]

TIMEOUT = aiohttp.ClientTimeout(total=15)


@dataclass
class NetworkClient:
    access: NetworkAccess

    def __post_init__(self) -> None:
        context = ssl.create_default_context(cafile=str(self.access.authority))
        context.load_cert_chain(str(self.access.certificate), str(self.access.private_key))
        self._context = context
        self._key = self.access.private_key.read_bytes()
        self._certificate = self.access.certificate.read_bytes()
        self._network = self.access.network_certificate.read_bytes()
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(ssl=self._context, limit=32)
            self._session = aiohttp.ClientSession(connector=connector, timeout=TIMEOUT)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    def signed(self, root: Element) -> bytes:
        """``root`` signed by this institution, as a body."""
        return serialize(sign(root, key_pem=self._key, cert_pem=self._certificate))

    async def call(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        wait: float | None = None,
    ) -> tuple[int, Element]:
        """The network's answer (status and verified root); a ``problem`` is raised as
        ``DictProblem``; no answer, a 5xx or an answer not signed by the network is
        ``NetworkUnavailable``. ``wait``: seconds more the answer may take (a long poll)."""
        session = self._open()
        wanted: dict[str, Any] = {
            "params": params,
            "headers": {"Content-Type": "application/xml", **(headers or {})},
        }
        if wait is not None:  # a long poll: the answer may take ``wait`` seconds more
            wanted["timeout"] = aiohttp.ClientTimeout(total=(TIMEOUT.total or 0) + wait)
        try:
            async with session.request(method, self.access.url + path, data=body, **wanted) as answer:
                status, content = answer.status, await answer.read()
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise NetworkUnavailable(f"{method} {path}: {exc!r}") from exc
        if status >= 500:
            raise NetworkUnavailable(f"{method} {path}: the network answered {status}")
        try:
            root = verify(content, cert_pem=self._network)
        except SignatureRefused as exc:
            raise NetworkUnavailable(f"{method} {path}: the answer is not the network's ({exc})") from exc
        if root.tag.endswith("}problem"):
            raise read_problem(root)
        return status, root

    async def answer(
        self, method: str, path: str, *, body: bytes | None = None, params: dict[str, str] | None = None
    ) -> Element:
        """:meth:`call`'s root, where any refusal of the network is ``NetworkUnavailable`` (a step
        the service takes by itself: it is tried again later)."""
        try:
            _, root = await self.call(method, path, body=body, params=params)
        except DictProblem as problem:
            raise NetworkUnavailable(f"{method} {path} refused: {problem}") from problem
        return root

    async def made(self, path: str, document: Element) -> Element:
        """``document`` signed and posted: the root of what it made; a refusal for what it asks is
        a ``ValidationError`` naming the DICT's type and detail (an operator's command prints it),
        a busy or unreachable network ``NetworkUnavailable``."""
        try:
            _, root = await self.call("POST", path, body=self.signed(document))
        except DictProblem as problem:
            if problem.type in {ErrorType.SERVICE_UNAVAILABLE, ErrorType.RATE_LIMITED}:
                raise NetworkUnavailable(f"POST {path}: the network is busy: {problem}") from problem
            raise ValidationError(f"the DICT refuses it: {problem.type.value}: {problem.detail}") from problem
        return root
