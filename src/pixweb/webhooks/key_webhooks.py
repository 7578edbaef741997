"""Webhooks per key, the standard Pix API's ``/webhook``: ``PUT``, ``GET`` and ``DELETE
/webhook/{chave}``, ``GET /webhook`` (docs/decisions/key-webhooks.md).

Each PIX received on a key with a webhook is POSTed to ``{webhookUrl}/pix`` as the standard's
``{"pix": [<Pix>]}``, signed and retried as the deliveries of ``/api/webhooks`` are (docs/webhooks.md).
Errors are the standard's ``application/problem+json`` (``WebhookOperacaoInvalida``,
``WebhookNaoEncontrado``, ``WebhookConsultaInvalida``).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, delete, get, put
from litestar.di import NamedDependency
from litestar.openapi.spec import Example
from litestar.params import Parameter

from pixcore.clock import Clock, format_timestamp
from pixcore.keys import KEY_PATTERN, MAX_KEY_LENGTH
from pixcore.queries.standard import WebhookQuery
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.key_webhook_service import (
    KeyWebhookField,
    KeyWebhookListing,
    KeyWebhookRequest,
    delete_key_webhook,
    list_key_webhooks,
    parse_key_webhook,
    read_key_webhook,
    set_key_webhook,
)
from pixcore.webhooks.ports import HostResolver
from pixcore.webhooks.rules import MAX_URL_LENGTH, STANDARD_SUFFIX, Webhook
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import MaybeTimestamp, Timestamp, doc, whole
from pixweb.api.listing import QUERIES
from pixweb.api.standard import PageOut
from pixweb.body_errors import judge_body
from pixweb.field_paths import wire_paths
from pixweb.paths import segment_text
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.webhooks.webhooks import allows_private
from pixweb.wire import PixResponse

__all__ = ["KeyWebhookController"]

_KEY_EXAMPLE = "maria.silva@example.com"
_URL_EXAMPLE = "https://pix.example.com/api/webhook/"

Chave = Annotated[
    str,
    Parameter(
        description="One of the account's PIX keys (CPF, CNPJ, e-mail, +55 phone or random key).",
        max_length=MAX_KEY_LENGTH,
        schema_extra={"pattern": whole(KEY_PATTERN)},
        examples=[Example(value=_KEY_EXAMPLE)],
    ),
]


class KeyWebhookIn(msgspec.Struct, rename="camel"):
    """The standard's ``WebhookSolicitado``."""

    webhook_url: Annotated[
        str,
        msgspec.Meta(max_length=MAX_URL_LENGTH),
        doc(
            "An absolute https:// URL (printable ASCII, no credentials, no fragment) whose host"
            " resolves to public addresses (with PIX_WEBHOOK_ALLOW_PRIVATE on, also loopback and"
            f" private hosts, over http:// too). Notifications are POSTed to it with `{STANDARD_SUFFIX}`"
            " added to its path.",
            example=_URL_EXAMPLE,
        ),
    ]


KEY_WEBHOOK_PATHS = wire_paths({KeyWebhookField.KEY: "chave", KeyWebhookField.URL: "webhookUrl"})
"""The path's ``{chave}`` and :class:`KeyWebhookIn`'s field, as ``parse_key_webhook`` names them."""


def request_of(body: KeyWebhookIn, request: Request[Any, Any, Any]) -> KeyWebhookRequest:
    """The path's key and the body, judged together by ``parse_key_webhook``."""
    return parse_key_webhook(
        key=segment_text(str(request.path_params.get("chave", ""))),
        webhook_url=body.webhook_url,
        allow_http=allows_private(request),
    )


judge_body(KeyWebhookIn, request_of)


class KeyWebhookOut(msgspec.Struct, rename="camel"):
    """The standard's ``WebhookCompleto``, with the key it is of."""

    webhook_url: Annotated[str, doc("The URL given; notifications go to it with `/pix` added.")]
    chave: Annotated[str, doc("The key, in its canonical form.")]
    criacao: Annotated[Timestamp, doc("When the webhook was set (UTC, RFC 3339).")]


class WebhookQueryOut(msgspec.Struct, rename="camel", omit_defaults=True):
    """The standard's ``ParametrosConsultaWebhooks``: the query as the service read it."""

    paginacao: PageOut
    inicio: Annotated[MaybeTimestamp, doc("The window's start (UTC), if given.")] = None
    fim: Annotated[MaybeTimestamp, doc("The window's end (UTC), if given.")] = None


class KeyWebhookList(msgspec.Struct):
    """The standard's ``WebhooksConsultados``."""

    parametros: WebhookQueryOut
    webhooks: Annotated[list[KeyWebhookOut], doc("The key webhooks of the page, oldest first.")]


def key_webhook_out(webhook: Webhook) -> KeyWebhookOut:
    if webhook.pix_key is None or webhook.webhook_url is None:
        raise ValueError("not a key's webhook")
    return KeyWebhookOut(
        webhook_url=webhook.webhook_url, chave=webhook.pix_key, criacao=format_timestamp(webhook.created_at)
    )


def listing_out(query: WebhookQuery, listing: KeyWebhookListing) -> KeyWebhookList:
    page = query.page
    return KeyWebhookList(
        parametros=WebhookQueryOut(
            paginacao=PageOut(
                pagina_atual=page.number,
                itens_por_pagina=page.size,
                quantidade_de_paginas=page.count(listing.total),
                quantidade_total_de_itens=listing.total,
            ),
            inicio=format_timestamp(query.start) if query.start else None,
            fim=format_timestamp(query.end) if query.end else None,
        ),
        webhooks=[key_webhook_out(w) for w in listing.webhooks],
    )


_WEBHOOK_OUT = {"webhookUrl": _URL_EXAMPLE, "chave": _KEY_EXAMPLE, "criacao": "2026-03-15T14:40:51.310Z"}
_LIST_OUT = {
    "parametros": {
        "inicio": "2026-03-01T00:00:00.000Z",
        "fim": "2026-03-31T23:59:59.000Z",
        "paginacao": {
            "paginaAtual": 0,
            "itensPorPagina": 100,
            "quantidadeDePaginas": 1,
            "quantidadeTotalDeItens": 1,
        },
    },
    "webhooks": [_WEBHOOK_OUT],
}
_PUT_PROBLEMS = {400: "WebhookOperacaoInvalida", 404: "WebhookNaoEncontrado"}
_READ_PROBLEMS = {400: "RequisicaoInvalida", 404: "WebhookNaoEncontrado"}
_LIST_PROBLEMS = {400: "WebhookConsultaInvalida"}


class KeyWebhookController(Controller):
    path = "/webhook"
    tags = ["Webhooks per key"]  # noqa: RUF012 - Litestar reads class attributes

    @put(
        "/{chave:str}",
        operation_id="setKeyWebhook",
        responses=answer(200, KeyWebhookOut, "The key's webhook, set", _WEBHOOK_OUT)
        | problem_responses(_PUT_PROBLEMS, 400, 401, 413),
        status_code=200,
        summary="Set the webhook of one of the account's keys",
        description=(
            "The standard's `PUT /webhook/{chave}`: each PIX received on the key from now on (a payment"
            ' of the key or of a charge of it) is POSTed to `{webhookUrl}/pix` as `{"pix": [<Pix>]}`,'
            " signed (Standard Webhooks, the account's secret of `GET /api/webhooks/secret`) and"
            " retried as `/api/webhooks` deliveries are. A key has one webhook: a new URL replaces it."
            " 400 (`WebhookOperacaoInvalida`, every broken rule a `violacoes` item): not a key, not a"
            " key of this account, or a URL the service will not send to."
        ),
        opt={PROBLEMS: _PUT_PROBLEMS},
    )
    async def set(
        self,
        request: Request[Any, Any, Any],
        chave: Chave,
        data: Annotated[KeyWebhookIn, json_body("The webhook.", {"webhookUrl": _URL_EXAMPLE})],
        *,
        clock: Injected[Clock],
        resolver: Injected[HostResolver],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[KeyWebhookOut]:
        webhook = await set_key_webhook(
            uow,
            clock,
            resolver,
            account_id=principal_of(request).account_id,
            request=parse_key_webhook(
                key=segment_text(chave),
                webhook_url=data.webhook_url,
                allow_http=settings.webhook_allow_private,
            ),
            allow_private=settings.webhook_allow_private,
        )
        return PixResponse(key_webhook_out(webhook))

    @get(
        "/{chave:str}",
        operation_id="getKeyWebhook",
        responses=answer(200, KeyWebhookOut, "The key's webhook", _WEBHOOK_OUT)
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        summary="Read the webhook of one of the account's keys",
        description=(
            "The standard's `GET /webhook/{chave}`. 404 (`WebhookNaoEncontrado`): the key has no"
            " webhook (another account's key never has one here)."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def read(
        self, request: Request[Any, Any, Any], chave: Chave, *, uow: Injected[UnitOfWorkFactory]
    ) -> Response[KeyWebhookOut]:
        webhook = await read_key_webhook(
            uow, account_id=principal_of(request).account_id, key=segment_text(chave)
        )
        return PixResponse(key_webhook_out(webhook))

    @delete(
        "/{chave:str}",
        operation_id="deleteKeyWebhook",
        responses=problem_responses(_READ_PROBLEMS, 400, 401, 404),
        status_code=204,
        summary="Delete the webhook of one of the account's keys",
        description=(
            "The standard's `DELETE /webhook/{chave}`: nothing more is sent to it. 404"
            " (`WebhookNaoEncontrado`): the key has no webhook."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def remove(
        self,
        request: Request[Any, Any, Any],
        chave: Chave,
        *,
        clock: Injected[Clock],
        uow: Injected[UnitOfWorkFactory],
    ) -> None:
        await delete_key_webhook(
            uow, clock, account_id=principal_of(request).account_id, key=segment_text(chave)
        )

    @get(
        "/",
        operation_id="listKeyWebhooks",
        responses=answer(200, KeyWebhookList, "A page of the key webhooks, oldest first", _LIST_OUT)
        | problem_responses(_LIST_PROBLEMS, 400, 401),
        summary="List the webhooks of the account's keys",
        description=(
            "The standard's `GET /webhook`: the account's key webhooks set between `inicio` and `fim`"
            " (each optional, inclusive), oldest first; `paginacao.paginaAtual` from 0,"
            " `paginacao.itensPorPagina` 1 to 1000 (default 100). 400: `WebhookConsultaInvalida`."
        ),
        opt={PROBLEMS: _LIST_PROBLEMS},
        dependencies=QUERIES["webhook"],
    )
    async def index(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[WebhookQuery],
        *,
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[KeyWebhookList]:
        listing = await list_key_webhooks(uow, account_id=principal_of(request).account_id, query=filters)
        return PixResponse(listing_out(filters, listing))
