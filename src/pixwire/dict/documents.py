"""The DICT's entry documents (``CreateEntryRequest``, ``CreateEntryResponse``,
``DeleteEntryRequest``, ``DeleteEntryResponse``) and its ``problem`` (RFC 7807 in XML), to and
from ``pixnet.directory.entries``.

A document that is no XML, or lacks a required element, is :class:`~pixwire.xml.BadXml` (the
DICT's ``BadRequest``); a value out of its domain (an unknown key type, a date that is none) is
the operation's own invalid-fields error, with the element named in its violations.
"""

from __future__ import annotations

import enum
import uuid
from datetime import UTC, datetime
from typing import TypeVar

from pixcore.clock import format_timestamp
from pixcore.keys import PixKeyType
from pixwire.dict.model import (
    AccountType,
    BrazilianAccount,
    CreateEntry,
    DeleteEntry,
    DictProblem,
    Entry,
    EntryReason,
    ErrorType,
    NewEntry,
    Owner,
    OwnerType,
    invalid_field,
)
from pixwire.dict.statistics import Statistics
from pixwire.xml import BadXml, Element, child, element, leaf, text_of

__all__ = [
    "ERROR_BASE",
    "MAX_CHECKED_KEYS",
    "PROBLEM_NAMESPACE",
    "PolicyState",
    "account_element",
    "check_keys_response",
    "create_entry_request",
    "create_entry_response",
    "delete_entry_request",
    "delete_entry_response",
    "get_entry_response",
    "moment",
    "one_of",
    "owner_element",
    "policies_response",
    "policy_response",
    "problem_document",
    "read_account",
    "read_check_keys",
    "read_create_entry",
    "read_delete_entry",
    "read_entry_response",
    "read_owner",
    "read_problem",
    "required",
]

ERROR_BASE = "https://dict.pi.rsfn.net.br/api/v1/error/"
PROBLEM_NAMESPACE = "urn:ietf:rfc:7807"
E = TypeVar("E", bound=enum.Enum)


def one_of(kind: type[E], value: str | None, field: str, invalid: ErrorType = ErrorType.ENTRY_INVALID) -> E:
    """``value`` as a member of ``kind``, else ``invalid`` naming ``field``."""
    try:
        return kind(value)
    except ValueError:
        raise invalid_field(field, f"one of {', '.join(str(m.value) for m in kind)}", invalid) from None


def moment(value: str | None, field: str, invalid: ErrorType = ErrorType.ENTRY_INVALID) -> datetime:
    """``value`` as an instant (UTC), else ``invalid`` naming ``field``."""
    try:
        parsed = datetime.fromisoformat(value or "")
    except ValueError:
        raise invalid_field(field, "a date-time (RFC 3339)", invalid) from None
    if parsed.tzinfo is None:
        raise invalid_field(field, "a date-time with its offset", invalid)
    return parsed.astimezone(UTC)


def required(parent: Element, tag: str) -> Element:
    found = child(parent, tag)
    if found is None:
        raise BadXml(f"{tag} is required")
    return found


def read_account(account: Element, invalid: ErrorType = ErrorType.ENTRY_INVALID) -> BrazilianAccount:
    return BrazilianAccount(
        participant=str(text_of(account, "Participant")),
        branch=text_of(account, "Branch", required=False) or None,
        number=str(text_of(account, "AccountNumber")),
        type=one_of(AccountType, text_of(account, "AccountType"), f"{account.tag}.AccountType", invalid),
        opened_at=moment(text_of(account, "OpeningDate"), f"{account.tag}.OpeningDate", invalid),
    )


def read_owner(owner: Element, invalid: ErrorType = ErrorType.ENTRY_INVALID) -> Owner:
    return Owner(
        type=one_of(OwnerType, text_of(owner, "Type"), f"{owner.tag}.Type", invalid),
        tax_id=str(text_of(owner, "TaxIdNumber")),
        name=str(text_of(owner, "Name")),
        trade_name=text_of(owner, "TradeName", required=False) or None,
    )


def account_element(account: BrazilianAccount, tag: str = "Account") -> Element:
    return element(
        tag,
        leaf("Participant", account.participant),
        leaf("Branch", account.branch),
        leaf("AccountNumber", account.number),
        leaf("AccountType", account.type.value),
        leaf("OpeningDate", format_timestamp(account.opened_at)),
    )


def owner_element(owner: Owner, tag: str = "Owner") -> Element:
    return element(
        tag,
        leaf("Type", owner.type.value),
        leaf("TaxIdNumber", owner.tax_id),
        leaf("Name", owner.name),
        leaf("TradeName", owner.trade_name),
    )


def read_create_entry(root: Element) -> CreateEntry:
    """A ``CreateEntryRequest`` (its signature already verified and left out)."""
    if root.tag != "CreateEntryRequest":
        raise BadXml(f"a CreateEntryRequest was expected, not {root.tag}")
    entry = required(root, "Entry")
    account = required(entry, "Account")
    owner = required(entry, "Owner")
    request_id = text_of(root, "RequestId")
    try:
        parsed_id = uuid.UUID(request_id)
    except (ValueError, TypeError):
        raise invalid_field("RequestId", "a UUID") from None
    return CreateEntry(
        entry=NewEntry(
            key=text_of(entry, "Key", required=False) or None,
            key_type=one_of(PixKeyType, text_of(entry, "KeyType"), "KeyType"),
            account=read_account(account),
            owner=read_owner(owner),
        ),
        reason=one_of(EntryReason, text_of(root, "Reason"), "Reason"),
        request_id=parsed_id,
    )


def read_delete_entry(root: Element, key: str) -> DeleteEntry:
    """A ``DeleteEntryRequest`` for the path's ``key`` (its own ``Key`` must be the same)."""
    if root.tag != "DeleteEntryRequest":
        raise BadXml(f"a DeleteEntryRequest was expected, not {root.tag}")
    if text_of(root, "Key") != key:
        raise BadXml("the document's Key is not the path's")
    return DeleteEntry(
        key=key,
        participant=str(text_of(root, "Participant")),
        reason=one_of(EntryReason, text_of(root, "Reason"), "Reason"),
    )


def _entry(entry: Entry) -> Element:
    account, owner = entry.account, entry.owner
    return element(
        "Entry",
        leaf("Key", entry.key),
        leaf("KeyType", entry.key_type.value),
        account_element(account),
        owner_element(owner),
        leaf("CreationDate", format_timestamp(entry.created_at)),
        leaf("KeyOwnershipDate", format_timestamp(entry.owned_since)),
    )


def create_entry_response(entry: Entry, *, correlation_id: str, now: datetime) -> Element:
    """The ``CreateEntryResponse`` of ``entry`` (to be signed)."""
    return element(
        "CreateEntryResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        _entry(entry),
    )


def delete_entry_response(entry: Entry, *, correlation_id: str, now: datetime) -> Element:
    """The ``DeleteEntryResponse`` of ``entry`` (to be signed)."""
    return element(
        "DeleteEntryResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        leaf("Key", entry.key),
    )


def problem_document(
    type_: ErrorType, detail: str, *, correlation_id: str, violations: tuple[tuple[str, str], ...] = ()
) -> Element:
    """The DICT's ``problem`` (RFC 7807 in XML, its namespace) for a refusal."""
    ns = f"{{{PROBLEM_NAMESPACE}}}"

    def item(tag: str, text: str | None) -> Element | None:
        return leaf(f"{ns}{tag}", text)

    listed = [
        element(f"{ns}violation", item("property", field), item("reason", reason))
        for field, reason in violations
    ]
    return element(
        f"{ns}problem",
        item("type", ERROR_BASE + type_.value),
        item("title", type_.value),
        item("status", str(type_.status)),
        item("detail", detail),
        item("correlationId", correlation_id),
        element(f"{ns}violations", *listed) if listed else None,
    )


def _statistics(statistics: Statistics) -> Element:
    counters = [
        element(
            "Counter",
            attributes={
                "type": shown.type.value,
                "by": shown.by.value,
                "d3": str(shown.d3),
                "d30": str(shown.d30),
                "m6": str(shown.m6),
            },
        )
        for shown in (counter.shown() for counter in statistics.counters)
    ]
    return element(
        "Statistics",
        leaf("LastUpdated", format_timestamp(statistics.last_updated)),
        element("Counters", *counters),
    )


def get_entry_response(
    entry: Entry, statistics: Statistics, *, correlation_id: str, now: datetime
) -> Element:
    """The ``GetEntryResponse`` of ``entry`` with its anti-fraud counters (to be signed)."""
    return element(
        "GetEntryResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        _entry(entry),
        _statistics(statistics),
    )


MAX_CHECKED_KEYS = 200
"""The most keys one ``CheckKeysRequest`` asks about (the document's ``maxItems``)."""


def read_check_keys(root: Element) -> list[str]:
    """The keys a ``CheckKeysRequest`` asks about (1 to 200, as sent)."""
    if root.tag != "CheckKeysRequest":
        raise BadXml(f"a CheckKeysRequest was expected, not {root.tag}")
    keys = [found.text or "" for found in required(root, "Keys").findall("Key")]
    if not 1 <= len(keys) <= MAX_CHECKED_KEYS:
        raise BadXml(f"Keys holds 1 to {MAX_CHECKED_KEYS} Key elements, not {len(keys)}")
    return keys


def check_keys_response(answers: list[tuple[str, bool]], *, correlation_id: str, now: datetime) -> Element:
    """The ``CheckKeysResponse``: each key asked, with whether it has an entry (to be signed)."""
    keys = [
        element("Key", text=key, attributes={"hasEntry": "true" if has else "false"}) for key, has in answers
    ]
    return element(
        "CheckKeysResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        element("Keys", *keys),
    )


def _entry_of(element_: Element) -> Entry:
    """An ``Entry`` element (of a creation's or a look-up's response) as the DICT keeps it."""
    account = required(element_, "Account")
    owner = required(element_, "Owner")
    return Entry(
        key=str(text_of(element_, "Key")),
        key_type=one_of(PixKeyType, text_of(element_, "KeyType"), "KeyType"),
        account=read_account(account),
        owner=read_owner(owner),
        created_at=moment(text_of(element_, "CreationDate"), "CreationDate"),
        owned_since=moment(text_of(element_, "KeyOwnershipDate"), "KeyOwnershipDate"),
        request_id=uuid.UUID(int=0),  # a response does not say it: only the DICT keeps it
    )


def read_entry_response(root: Element) -> Entry:
    """The entry of a ``CreateEntryResponse`` or ``GetEntryResponse`` (the participant's side)."""
    if root.tag not in {"CreateEntryResponse", "GetEntryResponse"}:
        raise BadXml(f"an entry's response was expected, not {root.tag}")
    return _entry_of(required(root, "Entry"))


def create_entry_request(request: CreateEntry) -> Element:
    """The ``CreateEntryRequest`` of ``request`` (to be signed by the participant)."""
    asked, account, owner = request.entry, request.entry.account, request.entry.owner
    return element(
        "CreateEntryRequest",
        element(
            "Entry",
            leaf("Key", asked.key),
            leaf("KeyType", asked.key_type.value),
            account_element(account),
            owner_element(owner),
        ),
        leaf("Reason", request.reason.value),
        leaf("RequestId", str(request.request_id)),
    )


def delete_entry_request(request: DeleteEntry) -> Element:
    """The ``DeleteEntryRequest`` of ``request`` (to be signed by the participant)."""
    return element(
        "DeleteEntryRequest",
        leaf("Key", request.key),
        leaf("Participant", request.participant),
        leaf("Reason", request.reason.value),
    )


def read_problem(root: Element) -> DictProblem:
    """The refusal a ``problem`` document states (an unknown type is ``BadRequest``'s)."""
    ns = f"{{{PROBLEM_NAMESPACE}}}"
    if root.tag != f"{ns}problem":
        raise BadXml(f"a problem was expected, not {root.tag}")
    named = (root.findtext(f"{ns}type") or "").removeprefix(ERROR_BASE)
    try:
        type_ = ErrorType(named)
    except ValueError:
        type_ = ErrorType.BAD_REQUEST
    return DictProblem(type_, root.findtext(f"{ns}detail") or named)


def _policy(name: str, available: int, capacity: int, refill: int, period_seconds: int) -> Element:
    return element(
        "Policy",
        leaf("AvailableTokens", str(available)),
        leaf("Capacity", str(capacity)),
        leaf("RefillTokens", str(refill)),
        leaf("RefillPeriodSec", str(period_seconds)),
        leaf("Name", name),
    )


PolicyState = tuple[str, int, int, int, int]
"""A bucket's state as the documents give it: name, available tokens, capacity, refill tokens and
refill period in seconds."""


def policies_response(
    category: str, policies: list[PolicyState], *, correlation_id: str, now: datetime
) -> Element:
    """The ``ListPoliciesResponse``: the participant's category and each bucket's state."""
    return element(
        "ListPoliciesResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        leaf("Category", category),
        element("Policies", *(_policy(*state) for state in policies)),
    )


def policy_response(category: str, policy: PolicyState, *, correlation_id: str, now: datetime) -> Element:
    """The ``GetPolicyResponse``: one bucket's state."""
    return element(
        "GetPolicyResponse",
        leaf("ResponseTime", format_timestamp(now)),
        leaf("CorrelationId", correlation_id),
        leaf("Category", category),
        _policy(*policy),
    )
