"""The SPI's routes: a participant sends its messages and polls the ones for it.

* ``POST /spi/v1/messages``: a signed pacs.008 (a payment: 201 and its status, ``PDNG``), pacs.002
  (the payee's answer to a payment: 200 and the payment's outcome) or pacs.004 (a return: 201 and
  its outcome); each answered with a pacs.002 signed by the network;
* ``GET /spi/v1/messages?after=<id>&wait=<seconds>``: the caller's messages after ``after`` (0 at
  first), in a batch signed by the network with the cursor to ask after next; with none yet, the
  answer waits up to ``wait`` seconds (at most 30) for one.

A message is checked against ``pixwire``'s ``spi.xsd`` once its signature, by the caller's
registered certificate, is verified.
"""

from __future__ import annotations

from aiohttp import web

from pixcore.errors import InvalidPixKey
from pixcore.keys import PixKeyType, parse_pix_key
from pixnet.server.common import NETWORK, caller, signed, signed_body
from pixwire.dict.model import DictProblem, ErrorType
from pixwire.spi.documents import batch, document, read
from pixwire.spi.model import Payment, PaymentReturn
from pixwire.xml import parse

__all__ = ["MAX_WAIT", "add_routes"]

SPI = "/spi/v1"
MAX_WAIT = 30.0
"""The longest a poll waits for a message, in seconds."""


def _key_type(key: str | None) -> PixKeyType | None:
    try:
        return None if key is None else parse_pix_key(key).type
    except InvalidPixKey:
        return None


async def send(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    message = read(await signed_body(request))
    sender = caller(request).ispb
    if isinstance(message, Payment):
        report, status = await network.spi.submit_payment(sender, message), 201
        network.buckets.payment_sent(sender, message.debtor.tax_id, _key_type(message.key))
    elif isinstance(message, PaymentReturn):
        report, status = await network.spi.submit_return(sender, message), 201
    else:
        report, status = await network.spi.answer_payment(sender, message), 200
    return signed(network, document(report), status)


def _number(request: web.Request, name: str, default: str, kind: type[int] | type[float]) -> float:
    raw = request.query.get(name, default)
    try:
        value = kind(raw)
    except ValueError:
        raise DictProblem(ErrorType.BAD_REQUEST, f"{name} must be a number, not {raw!r}") from None
    if value < 0:
        raise DictProblem(ErrorType.BAD_REQUEST, f"{name} must not be negative")
    return value


async def poll(request: web.Request) -> web.Response:
    network = request.app[NETWORK]
    after = int(_number(request, "after", "0", int))
    wait = min(_number(request, "wait", "0", float), MAX_WAIT)
    found, cursor = await network.spi.messages(caller(request).ispb, after, wait)
    answer = batch([(message_id, parse(body.encode())) for message_id, body in found], cursor)
    return signed(network, answer, 200)


def add_routes(app: web.Application) -> None:
    app.router.add_post(f"{SPI}/messages", send)
    app.router.add_get(f"{SPI}/messages", poll)
