"""The notifications the service sends to registered URLs, as the OpenAPI document's ``webhooks``.

:func:`pixinfra.event_payloads.payload` writes the bodies (and ``ping_payload`` the test endpoint's
PING): the structs here describe them for readers and client generators, and a test decodes real
bodies with them and validates them against the served document
(tests/unit/webhooks/test_notification_schemas.py, tests/e2e/api/test_generated_clients.py).
``forbid_unknown_fields``: a key that ``payload`` writes and these structs do not know fails those
tests rather than going undocumented.

:data:`NOTIFIED_BY` maps each notification type to the registration ``eventType`` values whose
URLs receive it; a test checks it against the events' own ``webhook_type``.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec

from pixcore.events import NotificationType, RefundDirection
from pixcore.refunds.med import MedReason, MedStatus
from pixcore.transfers.rules import SpiError
from pixcore.webhooks.rules import REGISTRABLE, EventType
from pixinfra.event_payloads import PING
from pixweb.api.fields import MONEY_NUMBER, MoneyText
from pixweb.refunds.refunds import RefundOut

__all__ = ["API_SCHEMAS", "NOTIFICATIONS", "NOTIFIED_BY", "PING", "Notification", "webhooks_section"]


# msgspec writes these JSON Schema keywords as they are (OpenAPI 3.1 is JSON Schema 2020-12).
Id = Annotated[int, msgspec.Meta(extra_json_schema={"format": "int64"})]
Amount = MoneyText  # "123.45"
MaskedDocument = Annotated[str, msgspec.Meta(description="CPF or CNPJ, masked")]
Instant = Annotated[datetime, msgspec.Meta(tz=True)]  # RFC 3339 with its offset: format date-time


class Payment(msgspec.Struct, forbid_unknown_fields=True):
    amount: Amount
    currency: Literal["BRL"]


class RefundPayment(msgspec.Struct, forbid_unknown_fields=True):
    amount: Annotated[Decimal, msgspec.Meta(description="reais, an exact JSON number")]
    currency: Literal["BRL"]


class CreditorAccount(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    document: MaskedDocument
    ispb: str


class DebtorAccount(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    document: MaskedDocument


class TransferData(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    id: Id
    tx_id: None
    pix_key: str
    status: Literal["LIQUIDATED", "ERROR"]
    payment: Payment
    end_to_end_id: str
    credit_debit_type: Literal["DEBIT"]
    idempotency_key: Annotated[str, msgspec.Meta(extra_json_schema={"format": "uuid"})]
    creditor_account: CreditorAccount
    remittance_information: str
    error_code: SpiError | msgspec.UnsetType = msgspec.UNSET
    """Only when ``status`` is ERROR."""


class ReceiveData(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    id: Id
    tx_id: str | None
    status: Literal["LIQUIDATED"]
    payment: Payment
    end_to_end_id: str
    debtor_account: DebtorAccount


class RefundItem(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    status: Literal["LIQUIDATED"]
    payment: RefundPayment
    end_to_end_id: str
    event_date: Instant
    information: str


class RefundData(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    id: Id
    tx_id: str | None
    status: Literal["REFUNDED"]
    payment: Payment
    refunds: list[RefundItem]
    end_to_end_id: str
    credit_debit_type: RefundDirection


class MedData(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    id: Id
    end_to_end_id: str
    status: MedStatus
    reason: MedReason
    payment: Payment


class PingData(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    webhook_id: Id
    sent_at: Instant


class TransferNotification(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["TRANSFER"]
    data: TransferData


class ReceiveNotification(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["RECEIVE"]
    data: ReceiveData


class RefundNotification(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["REFUND"]
    data: RefundData


class MedNotification(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["MED"]
    data: MedData


class PingNotification(msgspec.Struct, forbid_unknown_fields=True):
    type: Literal["PING"]
    data: PingData


class NotifiedPart(msgspec.Struct, forbid_unknown_fields=True):
    """One part of the amount of the PIX."""

    valor: Amount


class NotifiedCash(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """The cash of a Pix Saque or Troco."""

    valor: Amount
    modalidade_agente: str
    prestador_do_servico_de_saque: str


class NotifiedComponents(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    """The standard's ``componentesValor`` (``pixweb.charges.schemas.ComponentesValorOut``):
    ``original`` always; a Pix Saque's or Troco's cash; a due-date charge's payment, each of the
    others when not zero."""

    original: NotifiedPart
    saque: NotifiedCash | None = None
    troco: NotifiedCash | None = None
    multa: NotifiedPart | None = None
    juros: NotifiedPart | None = None
    abatimento: NotifiedPart | None = None
    desconto: NotifiedPart | None = None


class NotifiedPix(msgspec.Struct, rename="camel", omit_defaults=True, forbid_unknown_fields=True):
    """The standard's ``Pix`` as ``GET /pix/{e2eid}`` shows it (``pixweb.charges.cob.CobPixOut``) at
    the moment of the notification: when it is received (no refund yet), and again each time one
    of its refunds reaches its final status (DEVOLVIDO or NAO_REALIZADO)."""

    end_to_end_id: str
    valor: Amount
    componentes_valor: NotifiedComponents
    horario: Instant
    devolucoes: Annotated[
        list[RefundOut],
        msgspec.Meta(
            description="Its refunds to the payer, oldest first: empty when it is received; on a"
            " refund's final status, each as it is then."
        ),
    ]
    txid: str | None = None
    chave: str | None = None


class PixNotification(msgspec.Struct, forbid_unknown_fields=True):
    """The standard's callback body (``{webhookUrl}/pix``): no envelope."""

    pix: list[NotifiedPix]


Notification = (
    TransferNotification
    | ReceiveNotification
    | RefundNotification
    | MedNotification
    | PingNotification
    | PixNotification
)

NOTIFICATIONS: dict[str, type[msgspec.Struct]] = {
    NotificationType.TRANSFER: TransferNotification,
    NotificationType.RECEIVE: ReceiveNotification,
    NotificationType.REFUND: RefundNotification,
    NotificationType.MED: MedNotification,
    PING: PingNotification,
    NotificationType.PIX: PixNotification,
}
"""The body of each notification type, by its envelope ``type`` (PIX: sent without the envelope)."""

NOTIFIED_BY: dict[str, tuple[EventType, ...]] = {
    NotificationType.TRANSFER: (EventType.CASH_OUT,),
    NotificationType.RECEIVE: (EventType.CASH_IN,),
    NotificationType.REFUND: (EventType.REFUND_IN, EventType.REFUND_OUT),
    NotificationType.MED: (EventType.MED_CREATED, EventType.MED_ACCEPTED, EventType.MED_REJECTED),
    PING: REGISTRABLE,
    NotificationType.PIX: (EventType.PIX,),
}
"""The registration ``eventType`` values whose URLs receive each notification type."""

_WHEN = {
    NotificationType.TRANSFER: "A transfer made with `POST /dict/pix` settled (LIQUIDATED) or failed (ERROR,"
    " with `errorCode`).",
    NotificationType.RECEIVE: "A payment to the account was confirmed (`txId`: the charge it paid, if any).",
    NotificationType.REFUND: "A refund was processed: `creditDebitType` DEBIT for a refund the account sent"
    " (`refund_in`), CREDIT for one it received (`refund_out`).",
    NotificationType.MED: "A special return (MED) case against a receipt was opened (CREATED, `med_created`),"
    " accepted (ACCEPTED, `med_accepted`) or rejected (REJECTED, `med_rejected`).",
    NotificationType.PIX: "A PIX was received on a key with a webhook of the standard"
    " (`PUT /webhook/{chave}`): a payment of the key, or of a charge of it; and again when a refund"
    " of it reaches DEVOLVIDO or NAO_REALIZADO, with its `devolucoes`. POSTed to"
    " `{webhookUrl}/pix`, the standard's callback:"
    ' `{"pix": [<Pix>]}` without an envelope, each item as `GET /pix/{e2eid}` shows it.',
    PING: "`POST /api/webhooks/{id}/test`: a signed test to that registration's URL, whatever its event"
    " type; not retried.",
}

_SIGNATURES = "^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$"
_SIGNATURE_HEADERS: list[dict[str, Any]] = [
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "description": "The delivery's id (Standard Webhooks): the same on every retry; deduplicate on it.",
        "schema": {"type": "string"},
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "description": "Seconds since the Unix epoch when this attempt was signed.",
        "schema": {"type": "integer", "format": "int64"},
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "description": "Space-separated `v1,<base64 HMAC-SHA256>` of"
        " `{webhook-id}.{webhook-timestamp}.{body}` with the account's `whsec_` secret"
        " (`GET /api/webhooks/secret`); two while a rotated-out secret still signs.",
        "schema": {"type": "string", "pattern": _SIGNATURES},
    },
]


def _typed(schema: Any) -> None:
    """What msgspec leaves to the reader, said for generators: an ``enum`` (a ``Literal`` or an
    enum class) gets its JSON type, and a ``Decimal`` is the money number ``payload`` writes (msgspec
    would document its default encoding, a string)."""
    if isinstance(schema, dict):
        if "enum" in schema and "type" not in schema and all(isinstance(v, str) for v in schema["enum"]):
            schema["type"] = "string"
        if schema.get("type") == "string" and schema.get("format") == "decimal":
            schema.update(MONEY_NUMBER)
        for value in schema.values():
            _typed(value)
    elif isinstance(schema, list):
        for value in schema:
            _typed(value)


def _schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    """The notification bodies' schemas (``$ref`` into the document's components) and the
    components they need."""
    refs, components = msgspec.json.schema_components(
        list(NOTIFICATIONS.values()), ref_template="#/components/schemas/{name}"
    )
    _typed(components)
    return dict(zip(NOTIFICATIONS, refs, strict=True)), components


API_SCHEMAS = frozenset({"RefundOut", "HorarioOut"})
"""Structs of the API that a notification carries too (a PIX's ``devolucoes``): the API's schema
of each stands for both, so they are left out of :func:`webhooks_section`'s components."""


def webhooks_section() -> tuple[dict[str, Any], dict[str, Any]]:
    """The document's ``webhooks`` (one ``POST`` per notification type, keyed by the type) and the
    component schemas its bodies refer to (but :data:`API_SCHEMAS`, which the API's document has)."""
    bodies, every = _schemas()
    components = {name: schema for name, schema in every.items() if name not in API_SCHEMAS}
    section: dict[str, Any] = {}
    for kind, body in bodies.items():
        event_types = [event.value for event in NOTIFIED_BY[kind]]
        section[kind] = {
            "post": {
                "operationId": f"notify{kind.capitalize()}",
                "tags": ["Webhooks"],
                "summary": f"{kind} notification",
                "description": _WHEN[kind]
                if kind == NotificationType.PIX
                else f"{_WHEN[kind]} Sent to the URLs registered for eventType"
                f" {', '.join(f'`{event}`' for event in event_types)}, with their custom headers.",
                "x-event-types": event_types,
                "parameters": _SIGNATURE_HEADERS,
                "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
                "responses": {
                    "2XX": {
                        "description": "Received. Any other answer (or none within 15 s) is retried;"
                        " 410 deactivates the URL."
                    },
                },
                "security": [],
            }
        }
    return section, components
