"""Transaction queries (decisions §8): ``/api/transactions``, the pix-key list and look-up, and the
status record ``/api/pix/transaction/{id}``.

Query parameters arrive as raw strings and are parsed here, once, by ``pixcore.queries``
(one 400 lists every broken rule): the use cases receive a typed ``ListQuery`` and ``PixKey``.
Only the caller's own records are ever read; another account's is "not found".
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get
from litestar.params import FromPath, QueryParameter

from pixcore.clock import format_timestamp
from pixcore.money import cents_to_decimal, format_amount_string
from pixcore.queries import (
    ListKind,
    TransactionPage,
    TransactionView,
    display_status,
    display_type,
    movement_of,
    parse_list_query,
    parse_query_pix_key,
)
from pixcore.records import TransactionStatus, TransactionType
from pixcore.usecases.queries import find_by_pix_key, get_transaction, list_by_pix_key, list_transactions
from pixweb.api.deps import principal_of, services_of
from pixweb.errors import error_responses

__all__ = ["TransactionController"]


Page = Annotated[str | None, QueryParameter(name="page", description="Page number, from 1. Default 1.")]
StatusFilter = Annotated[
    str | None, QueryParameter(name="status", description="PENDING, CONFIRMED or ERROR (raw values).")
]
TypeFilter = Annotated[
    str | None,
    QueryParameter(name="type", description="PAYMENT, WITHDRAW, REFUND_IN or REFUND_OUT (raw values)."),
]
EndDate = Annotated[
    str | None,
    QueryParameter(
        name="endDate",
        description="ISO 8601 date or date and time (UTC if naive), inclusive; a date alone means its"
        " whole day. Default: now. At most 31 days after startDate.",
    ),
]


class BankOut(msgspec.Struct, rename={"bank_ispb": "bankISPB"}, gc=False):
    bank_ispb: str | None
    bankName: str | None  # noqa: N815 - the wire's names
    bankCode: str | None  # noqa: N815
    accountBranch: str | None  # noqa: N815
    accountNumber: str | None  # noqa: N815


class CounterpartOut(msgspec.Struct, gc=False):
    name: str | None
    document: str | None
    bank: BankOut


# The list items are untracked by the garbage collector (gc=False): trees of strings, numbers
# and these structs, never part of a cycle. A 1,000-record page would otherwise add 3,000
# objects to every collection that runs while it is built.
class TransactionOut(msgspec.Struct, rename="camel", gc=False):
    transaction_id: str
    external_id: str | None
    status: str
    operation_type: str
    movement_type: str
    original_amount: Decimal
    fee_amount: Decimal
    final_amount: Decimal
    end_to_end_id: str | None
    created_at: str
    processed_at: str | None
    counterpart: CounterpartOut


class MetadataOut(msgspec.Struct, rename="camel"):
    page: int
    size: int
    total: int
    total_pages: int
    has_next: bool
    has_previous: bool


class TransactionListOut(msgspec.Struct):
    data: list[TransactionOut]
    metadata: MetadataOut


class StatusRecordOut(msgspec.Struct, rename="camel"):
    id: str
    external_id: str | None
    type: str
    status: str
    original_amount: str
    fee_amount: str
    final_amount: str
    e2e_id: str | None
    counterpart_name: str | None
    counterpart_document: str | None
    counterpart_account_bank_code: str | None
    counterpart_account_branch: str | None
    counterpart_account_number: str | None
    counterpart_account_ispb: str | None
    counterpart_account_bank_name: str | None
    created_at: str
    updated_at: str
    processed_at: str | None


def _timestamp(moment: datetime) -> str:
    """``format_timestamp``, with a fast path for what the database returns (UTC): a large page
    formats thousands of these. Same text either way (a test compares them)."""
    if moment.tzinfo is UTC:
        return moment.isoformat(timespec="milliseconds")[:-6] + "Z"
    return format_timestamp(moment)


def _maybe_timestamp(moment: datetime | None) -> str | None:
    return _timestamp(moment) if moment is not None else None


def _amount_string(cents: int) -> str:
    # A credit's fee never exceeds its amount; should one, the sign is shown rather than a failure.
    return format_amount_string(cents) if cents >= 0 else "-" + format_amount_string(-cents)


# The display texts by raw value, looked up once here: a 1,000-record page asks 3,000 times.
_STATUS_TEXT = {status: display_status(status) for status in TransactionStatus}
_TYPE_TEXT = {kind: display_type(kind) for kind in TransactionType}
_MOVEMENT_TEXT = {kind: movement_of(kind).value for kind in TransactionType}


def transaction_out(view: TransactionView) -> TransactionOut:
    """A list item (and the pix-key look-up): display values, amounts as numbers, document masked."""
    return TransactionOut(
        transaction_id=str(view.id),
        external_id=view.external_id,
        status=_STATUS_TEXT[view.status],
        operation_type=_TYPE_TEXT[view.type],
        movement_type=_MOVEMENT_TEXT[view.type],
        original_amount=cents_to_decimal(view.amount),
        fee_amount=cents_to_decimal(view.fee),
        final_amount=cents_to_decimal(view.final_amount),
        end_to_end_id=view.end_to_end_id,
        created_at=_timestamp(view.created_at),
        processed_at=_maybe_timestamp(view.processed_at),
        counterpart=CounterpartOut(
            name=view.counterpart_name,
            document=view.masked_document,
            bank=BankOut(
                bank_ispb=view.counterpart_ispb,
                bankName=view.counterpart_bank,
                bankCode=None,  # not recorded: the ISPB identifies the institution
                accountBranch=view.counterpart_branch,
                accountNumber=view.counterpart_account,
            ),
        ),
    )


def list_out(page: TransactionPage) -> TransactionListOut:
    return TransactionListOut(
        data=[transaction_out(view) for view in page.items],
        metadata=MetadataOut(
            page=page.page,
            size=page.size,
            total=page.total,
            total_pages=page.total_pages,
            has_next=page.has_next,
            has_previous=page.has_previous,
        ),
    )


def status_record_out(view: TransactionView) -> StatusRecordOut:
    """The raw status record: raw type and status, amounts as strings, document masked."""
    return StatusRecordOut(
        id=str(view.id),
        external_id=view.external_id,
        type=view.type.value,
        status=view.status.value,
        original_amount=_amount_string(view.amount),
        fee_amount=_amount_string(view.fee),
        final_amount=_amount_string(view.final_amount),
        e2e_id=view.end_to_end_id,
        counterpart_name=view.counterpart_name,
        counterpart_document=view.masked_document,
        counterpart_account_bank_code=None,
        counterpart_account_branch=view.counterpart_branch,
        counterpart_account_number=view.counterpart_account,
        counterpart_account_ispb=view.counterpart_ispb,
        counterpart_account_bank_name=view.counterpart_bank,
        created_at=_timestamp(view.created_at),
        updated_at=_timestamp(view.updated_at),
        processed_at=_maybe_timestamp(view.processed_at),
    )


class TransactionController(Controller):
    tags = ["Transactions"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/api/transactions",
        operation_id="listTransactions",
        responses=error_responses(400, 401),
        summary="List the account's transactions",
    )
    async def list_transactions(
        self,
        request: Request[Any, Any, Any],
        *,
        page: Page = None,
        size: Annotated[str | None, QueryParameter(name="size", description="1 to 100. Default 20.")] = None,
        status: StatusFilter = None,
        kind: TypeFilter = None,
        start_date: Annotated[
            str | None,
            QueryParameter(
                name="startDate", description="ISO 8601, inclusive. Default: endDate minus 31 days."
            ),
        ] = None,
        end_date: EndDate = None,
        external_id: Annotated[
            str | None, QueryParameter(name="externalId", description="Only the record with this externalId.")
        ] = None,
        end_to_end_id: Annotated[
            str | None, QueryParameter(name="endToEndId", description="Only records with this endToEndId.")
        ] = None,
    ) -> TransactionListOut:
        """Newest first. Pages are stable while new transactions arrive when ``endDate`` is fixed."""
        services = services_of(request)
        query = parse_list_query(
            ListKind.TRANSACTIONS,
            now=services.clock.now(),
            page=page,
            size=size,
            status=status,
            type=kind,
            start_date=start_date,
            end_date=end_date,
            external_id=external_id,
            end_to_end_id=end_to_end_id,
        )
        found = await list_transactions(
            services.queries, account_id=principal_of(request).account_id, query=query
        )
        return list_out(found)

    @get(
        "/api/pix/transactions/pix-key/{pix_key:str}",
        operation_id="listTransactionsByPixKey",
        responses=error_responses(400, 401, 404),
        summary="List the account's transactions of one PIX key",
    )
    async def list_by_pix_key(
        self,
        request: Request[Any, Any, Any],
        pix_key: FromPath[str],
        *,
        page: Page = None,
        size: Annotated[str | None, QueryParameter(name="size", description="1 to 1000. Default 20.")] = None,
        status: StatusFilter = None,
        kind: TypeFilter = None,
        start_date: Annotated[
            str | None,
            QueryParameter(
                name="startDate", description="ISO 8601, inclusive. Default: endDate minus 30 days."
            ),
        ] = None,
        end_date: EndDate = None,
    ) -> TransactionListOut:
        """Records whose key is ``pixKey`` (the account's receiving key or the counterpart's),
        newest first; the newest 1000 matches at most."""
        services = services_of(request)
        key = parse_query_pix_key(pix_key)
        query = parse_list_query(
            ListKind.PIX_KEY,
            now=services.clock.now(),
            page=page,
            size=size,
            status=status,
            type=kind,
            start_date=start_date,
            end_date=end_date,
        )
        found = await list_by_pix_key(
            services.queries, account_id=principal_of(request).account_id, pix_key=key, query=query
        )
        return list_out(found)

    @get(
        "/api/pix/transactions/pix-key/{pix_key:str}/{identifier:str}",
        operation_id="getTransactionByPixKey",
        responses=error_responses(400, 401, 404),
        summary="One transaction of a PIX key, by endToEndId, id or externalId",
    )
    async def get_by_pix_key(
        self, request: Request[Any, Any, Any], pix_key: FromPath[str], identifier: FromPath[str]
    ) -> TransactionOut:
        found = await find_by_pix_key(
            services_of(request).queries,
            account_id=principal_of(request).account_id,
            pix_key=parse_query_pix_key(pix_key),
            identifier=identifier,
        )
        return transaction_out(found)

    @get(
        "/api/pix/transaction/{id:str}",
        operation_id="getTransactionStatus",
        responses=error_responses(400, 401, 404),
        summary="The status record of a transaction, by id or externalId",
    )
    async def get_status(self, request: Request[Any, Any, Any], id: FromPath[str]) -> StatusRecordOut:  # noqa: A002
        found = await get_transaction(
            services_of(request).queries, account_id=principal_of(request).account_id, identifier=id
        )
        return status_record_out(found)
