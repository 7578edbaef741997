"""The SPI's messages in XML, checked against ``spi.xsd`` on the way in and on the way out.

:func:`read` takes a message's root (its signature, if any, verified by the caller first), checks it
against the schema and gives the typed message; :func:`document` makes the root of a typed message,
checked the same way, ready to be signed. :func:`batch` and :func:`read_batch` are the polled batch
of a participant's messages. A document the schema refuses is :class:`~pixwire.xml.BadXml`, its
message the schema's first complaint.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from lxml import etree

from pixcore.clock import format_timestamp
from pixcore.money import format_amount_string, parse_amount_string
from pixwire.spi.model import (
    AccountType,
    Party,
    Payment,
    PaymentReturn,
    Reason,
    ReturnReason,
    Status,
    StatusReport,
)
from pixwire.xml import BadXml, Element, element, leaf

__all__ = ["Message", "batch", "document", "read", "read_batch", "validate"]

SCHEMA = Path(__file__).with_name("spi.xsd")
Message = Payment | StatusReport | PaymentReturn


@cache
def _schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMA)))


def validate(root: Element) -> None:
    """:class:`BadXml` unless ``root`` is a document ``spi.xsd`` describes."""
    schema = _schema()
    if not schema.validate(root):
        error = schema.error_log.last_error
        raise BadXml(f"not a valid SPI message: {error.message if error else 'refused by the schema'}")


def _text(parent: Element, path: str) -> str:
    found = parent.find(path)
    return "" if found is None or found.text is None else str(found.text)


def _optional(parent: Element, path: str) -> str | None:
    return _text(parent, path) or None


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)  # the schema has checked it is a dateTime


def _moment_text(moment: datetime | None) -> str | None:
    return None if moment is None else format_timestamp(moment)


def _header(message_id: str, created_at: datetime) -> Element:
    return element("GrpHdr", leaf("MsgId", message_id), leaf("CreDtTm", format_timestamp(created_at)))


def _amount(tag: str, cents: int) -> Element:
    return element(tag, text=format_amount_string(cents), attributes={"Ccy": "BRL"})


def _person(tag: str, party: Party) -> Element:
    return element(tag, leaf("Nm", party.name), leaf("TaxId", party.tax_id))


def _account(tag: str, party: Party, key: str | None = None) -> Element:
    return element(
        tag,
        leaf("Issr", party.branch),
        leaf("Id", party.account),
        leaf("Tp", party.account_type.value),
        leaf("Prxy", key),
    )


def _party(info: Element, side: str) -> Party:
    return Party(
        ispb=_text(info, f"{side}Agt"),
        branch=_optional(info, f"{side}Acct/Issr"),
        account=_text(info, f"{side}Acct/Id"),
        account_type=AccountType(_text(info, f"{side}Acct/Tp")),
        tax_id=_text(info, f"{side}/TaxId"),
        name=_optional(info, f"{side}/Nm"),
    )


def document(message: Message) -> Element:
    """The XML of ``message``, checked against the schema (to be signed by its sender)."""
    if isinstance(message, Payment):
        root = element(
            "FIToFICstmrCdtTrf",
            _header(message.message_id, message.created_at),
            element(
                "CdtTrfTxInf",
                leaf("EndToEndId", message.end_to_end_id),
                _amount("IntrBkSttlmAmt", message.amount),
                _person("Dbtr", message.debtor),
                _account("DbtrAcct", message.debtor),
                leaf("DbtrAgt", message.debtor.ispb),
                leaf("CdtrAgt", message.creditor.ispb),
                _person("Cdtr", message.creditor),
                _account("CdtrAcct", message.creditor, message.key),
                leaf("RmtInf", message.remittance),
            ),
        )
    elif isinstance(message, StatusReport):
        root = element(
            "FIToFIPmtStsRpt",
            _header(message.message_id, message.created_at),
            element(
                "TxInfAndSts",
                leaf("OrgnlEndToEndId", message.end_to_end_id),
                leaf("RtrId", message.return_id),
                leaf("TxSts", message.status.value),
                leaf("StsRsnInf", None if message.reason is None else message.reason.value),
                leaf(
                    "AccptncDtTm",
                    None if message.settled_at is None else format_timestamp(message.settled_at),
                ),
            ),
        )
    else:
        root = element(
            "PmtRtr",
            _header(message.message_id, message.created_at),
            element(
                "TxInf",
                leaf("RtrId", message.return_id),
                leaf("OrgnlEndToEndId", message.end_to_end_id),
                _amount("RtrdIntrBkSttlmAmt", message.amount),
                leaf("RtrRsnInf", message.reason.value),
                leaf("AddtlInf", message.remittance),
            ),
        )
    validate(root)
    return root


def read(root: Element) -> Message:
    """The typed message of ``root``, which the schema must describe (:class:`BadXml` if not)."""
    validate(root)
    message_id, created_at = _text(root, "GrpHdr/MsgId"), _moment(_text(root, "GrpHdr/CreDtTm"))
    if root.tag == "FIToFICstmrCdtTrf":
        info = root.find("CdtTrfTxInf")
        return Payment(
            message_id=message_id,
            end_to_end_id=_text(info, "EndToEndId"),
            amount=parse_amount_string(_text(info, "IntrBkSttlmAmt")),
            debtor=_party(info, "Dbtr"),
            creditor=_party(info, "Cdtr"),
            created_at=created_at,
            key=_optional(info, "CdtrAcct/Prxy"),
            remittance=_optional(info, "RmtInf"),
        )
    if root.tag == "FIToFIPmtStsRpt":
        info = root.find("TxInfAndSts")
        reason, settled = _optional(info, "StsRsnInf"), _optional(info, "AccptncDtTm")
        return StatusReport(
            message_id=message_id,
            end_to_end_id=_text(info, "OrgnlEndToEndId"),
            status=Status(_text(info, "TxSts")),
            created_at=created_at,
            reason=None if reason is None else Reason(reason),
            return_id=_optional(info, "RtrId"),
            settled_at=None if settled is None else _moment(settled),
        )
    if root.tag == "PmtRtr":
        info = root.find("TxInf")
        return PaymentReturn(
            message_id=message_id,
            return_id=_text(info, "RtrId"),
            end_to_end_id=_text(info, "OrgnlEndToEndId"),
            amount=parse_amount_string(_text(info, "RtrdIntrBkSttlmAmt")),
            reason=ReturnReason(_text(info, "RtrRsnInf")),
            created_at=created_at,
            remittance=_optional(info, "AddtlInf"),
        )
    raise BadXml(f"not an SPI message: {root.tag}")  # the schema has no other root


def batch(messages: list[tuple[int, Element]], next_cursor: int) -> Element:
    """A participant's polled batch: each message with its id, and the cursor to ask after next."""
    root = element(
        "Messages",
        leaf("Next", str(next_cursor)),
        *(element("Message", body, attributes={"Id": str(message_id)}) for message_id, body in messages),
    )
    validate(root)
    return root


def read_batch(root: Element) -> tuple[list[tuple[int, Message]], int]:
    """The messages of a polled batch (id and message), and the cursor to ask after next."""
    validate(root)
    found = []
    for item in root.findall("Message"):
        body = next(iter(item))
        found.append((int(item.get("Id")), read(body)))
    return found, int(_text(root, "Next"))
