"""The SPI's settlement, on the network's PostgreSQL database.

A payment (pacs.008) goes from the payer's institution to the SPI, which keeps it waiting (PDNG)
and queues it for the payee's institution. The payee answers with a pacs.002: ``ACSP`` (it takes
the payment) or ``RJCT`` with its reason. On ``ACSP`` the SPI settles in one transaction: the
payer's settlement account is debited and the payee's credited, or, when the payer's does not
cover the amount, the payment is rejected (``AM04``). A payment the payee has not answered by its
deadline is rejected (``AB03``). Every outcome is queued as a pacs.002 for both institutions: what
a participant polls is the truth, whether or not it saw the answer to its request.

A return (pacs.004) is sent by the payee's institution of a settled payment; it settles at once
when the sender's settlement account covers it and it fits in what is left of the payment (else
``AM04``, ``AM09``), and is queued for the payer's institution.

Each message is idempotent by its identifier: a payment by its end-to-end id, a return by its
return id; the same content again answers the current status, other content under the same
identifier is refused. Settlement accounts are locked in ISPB order, so two payments crossing
between the same two institutions cannot deadlock. The accounts never go below zero (a CHECK, and
the guard before it) and every movement is a row of ``settlement_movements``: money is neither
made nor lost (:func:`check_ledger`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg

from pixwire.dict.model import DictProblem, ErrorType
from pixwire.spi.documents import document, read
from pixwire.spi.model import (
    NETWORK_ISPB,
    Payment,
    PaymentReturn,
    Reason,
    Status,
    StatusReport,
    new_message_id,
)
from pixwire.xml import parse, serialize

__all__ = ["Spi", "check_ledger", "compare_ledgers", "flows", "fund"]

MESSAGES_PER_POLL = 100
"""The most messages one poll answers."""


def _text(message: Payment | StatusReport | PaymentReturn) -> str:
    return serialize(document(message)).decode()


@dataclass
class Spi:
    """The SPI on ``pool``; ``now`` is the network's clock, ``payee_timeout`` how long a payee has
    to answer a payment."""

    pool: asyncpg.Pool[Any]
    now: Callable[[], datetime]
    payee_timeout: timedelta = timedelta(seconds=10)

    def __post_init__(self) -> None:
        self._arrived = asyncio.Event()

    def _report(
        self,
        end_to_end_id: str,
        status: Status,
        *,
        reason: Reason | None = None,
        return_id: str | None = None,
        settled_at: datetime | None = None,
    ) -> StatusReport:
        return StatusReport(
            message_id=new_message_id(NETWORK_ISPB),
            end_to_end_id=end_to_end_id,
            status=status,
            created_at=self.now(),
            reason=reason,
            return_id=return_id,
            settled_at=settled_at,
        )

    async def _queue(
        self, connection: Any, recipients: list[str], message: StatusReport | Payment | PaymentReturn
    ) -> None:
        body = _text(message)
        await connection.executemany(
            "INSERT INTO messages (recipient, body) VALUES ($1, $2)", [(r, body) for r in recipients]
        )

    def _notify(self) -> None:
        self._arrived.set()

    # --- payments -------------------------------------------------------------------------

    async def submit_payment(self, sender: str, payment: Payment) -> StatusReport:
        """A pacs.008 from ``sender``: its status now (PDNG when new)."""
        if payment.debtor.ispb != sender:
            raise DictProblem(ErrorType.FORBIDDEN, "a participant sends payments of its own accounts only")
        if payment.creditor.ispb == sender:
            raise DictProblem(
                ErrorType.BAD_REQUEST, "a payment between two accounts of one institution stays in it"
            )
        if not payment.end_to_end_id[1:9] == sender:
            raise DictProblem(ErrorType.BAD_REQUEST, "the EndToEndId is not the payer institution's")
        now = self.now()
        text = _text(payment)
        async with self.pool.acquire() as connection, connection.transaction():
            if not await connection.fetchval(
                "SELECT true FROM participants WHERE ispb = $1", payment.creditor.ispb
            ):
                raise DictProblem(ErrorType.NOT_FOUND, "the creditor's institution is no participant")
            inserted = await connection.fetchval(
                "INSERT INTO payments (end_to_end_id, message_id, payer, payee, amount, key, payee_tax_id,"
                " payee_branch, payee_account, document, status, deadline, created_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'PDNG', $11, $12)"
                " ON CONFLICT (end_to_end_id) DO NOTHING RETURNING true",
                payment.end_to_end_id,
                payment.message_id,
                sender,
                payment.creditor.ispb,
                payment.amount,
                payment.key,
                payment.creditor.tax_id,
                payment.creditor.branch,
                payment.creditor.account,
                text,
                now + self.payee_timeout,
                now,
            )
            if inserted:
                await self._queue(connection, [payment.creditor.ispb], payment)
        if inserted:
            self._notify()
            return self._report(payment.end_to_end_id, Status.PDNG)
        return await self._repeated_payment(payment)

    async def _repeated_payment(self, payment: Payment) -> StatusReport:
        row = await self.pool.fetchrow(
            "SELECT document, status, reason, settled_at FROM payments WHERE end_to_end_id = $1",
            payment.end_to_end_id,
        )
        if row is None:  # inserted by nobody, yet in conflict: it cannot be; say so rather than guess
            raise RuntimeError(f"payment {payment.end_to_end_id} conflicted but is not there")
        first = read(parse(row["document"].encode()))
        if not isinstance(first, Payment) or _content(first) != _content(payment):
            raise DictProblem(
                ErrorType.REQUEST_ID_ALREADY_USED, "this EndToEndId was sent with other content"
            )
        return self._status_of(payment.end_to_end_id, row)

    def _status_of(self, end_to_end_id: str, row: Any, return_id: str | None = None) -> StatusReport:
        return self._report(
            end_to_end_id,
            Status(row["status"]),
            reason=None if row["reason"] is None else Reason(row["reason"]),
            return_id=return_id,
            settled_at=row["settled_at"],
        )

    async def answer_payment(self, sender: str, answer: StatusReport) -> StatusReport:
        """The payee's pacs.002 (ACSP, or RJCT with a reason): the payment's outcome."""
        if answer.return_id is not None or answer.status not in {Status.ACSP, Status.RJCT}:
            raise DictProblem(
                ErrorType.BAD_REQUEST, "a payee answers a payment with ACSP, or RJCT and a reason"
            )
        if (answer.status is Status.RJCT) != (answer.reason is not None):
            raise DictProblem(
                ErrorType.BAD_REQUEST, "a rejection gives its reason (StsRsnInf), an acceptance none"
            )
        now = self.now()
        async with self.pool.acquire() as connection, connection.transaction():
            payment = await connection.fetchrow(
                "SELECT end_to_end_id, payer, payee, amount, key, payee_tax_id, payee_branch, payee_account,"
                " status, reason, settled_at FROM payments WHERE end_to_end_id = $1 FOR UPDATE",
                answer.end_to_end_id,
            )
            if payment is None:
                raise DictProblem(ErrorType.NOT_FOUND, "no payment has this EndToEndId")
            if payment["payee"] != sender:
                raise DictProblem(ErrorType.FORBIDDEN, "only the payee's institution answers a payment")
            if payment["status"] != Status.PDNG:
                return self._status_of(answer.end_to_end_id, payment)  # answered before, or expired
            if answer.reason is not None:  # a rejection (checked above: RJCT gives its reason)
                outcome = await self._reject(connection, payment, answer.reason, [payment["payer"]])
            else:
                outcome = await self._settle(connection, payment, now)
        self._notify()
        return outcome

    async def _reject(self, connection: Any, payment: Any, reason: Reason, tell: list[str]) -> StatusReport:
        await connection.execute(
            "UPDATE payments SET status = 'RJCT', reason = $2 WHERE end_to_end_id = $1",
            payment["end_to_end_id"],
            reason.value,
        )
        report = self._report(payment["end_to_end_id"], Status.RJCT, reason=reason)
        await self._queue(connection, tell, report)
        return report

    async def _settle(self, connection: Any, payment: Any, now: datetime) -> StatusReport:
        payer, payee, amount = payment["payer"], payment["payee"], payment["amount"]
        e2e = payment["end_to_end_id"]
        if not await _move(connection, payer, payee, amount, kind="PAYMENT", reference=e2e, at=now):
            return await self._reject(connection, payment, Reason.AM04, [payer, payee])
        await connection.execute(
            "UPDATE payments SET status = 'ACSC', settled_at = $2 WHERE end_to_end_id = $1", e2e, now
        )
        await connection.execute(
            "INSERT INTO directory_events (kind, key, tax_id, participant, branch, account_number, at)"
            " VALUES ('SETTLEMENTS', $1, $2, $3, $4, $5, $6)",
            payment["key"],
            payment["payee_tax_id"],
            payee,
            payment["payee_branch"],
            payment["payee_account"],
            now,
        )
        report = self._report(e2e, Status.ACSC, settled_at=now)
        await self._queue(connection, [payer, payee], report)
        return report

    async def expire(self) -> int:
        """Reject (``AB03``) the payments whose payee did not answer by their deadline; how many."""
        now = self.now()
        async with self.pool.acquire() as connection, connection.transaction():
            late = await connection.fetch(
                "SELECT end_to_end_id, payer, payee FROM payments WHERE status = 'PDNG' AND deadline <= $1"
                " ORDER BY deadline LIMIT 100 FOR UPDATE SKIP LOCKED",
                now,
            )
            for payment in late:
                await self._reject(connection, payment, Reason.AB03, [payment["payer"], payment["payee"]])
        if late:
            self._notify()
        return len(late)

    # --- returns --------------------------------------------------------------------------

    async def submit_return(self, sender: str, returned: PaymentReturn) -> StatusReport:
        """A pacs.004 from ``sender``, the payee's institution of a settled payment: its outcome."""
        now = self.now()
        text = _text(returned)
        async with self.pool.acquire() as connection, connection.transaction():
            payment = await connection.fetchrow(
                "SELECT end_to_end_id, payer, payee, amount, returned, status FROM payments"
                " WHERE end_to_end_id = $1 FOR UPDATE",
                returned.end_to_end_id,
            )
            if payment is None:
                raise DictProblem(ErrorType.NOT_FOUND, "no payment has this EndToEndId")
            if payment["payee"] != sender:
                raise DictProblem(ErrorType.FORBIDDEN, "only the payee's institution returns a payment")
            if payment["status"] != Status.ACSC:
                raise DictProblem(ErrorType.BAD_REQUEST, "only a settled payment is returned")
            before = await connection.fetchrow(
                "SELECT document, status, reason, settled_at FROM returns WHERE return_id = $1",
                returned.return_id,
            )
            if before is not None:
                first = read(parse(before["document"].encode()))
                if not isinstance(first, PaymentReturn) or _content(first) != _content(returned):
                    raise DictProblem(
                        ErrorType.REQUEST_ID_ALREADY_USED, "this return id was sent with other content"
                    )
                return self._status_of(returned.end_to_end_id, before, returned.return_id)
            status: Status = Status.ACSC
            reason: Reason | None = None
            settled_at: datetime | None = now
            if returned.amount > payment["amount"] - payment["returned"]:
                status, reason, settled_at = Status.RJCT, Reason.AM09, None
            elif not await _move(
                connection,
                sender,
                payment["payer"],
                returned.amount,
                kind="RETURN",
                reference=returned.return_id,
                at=now,
            ):
                status, reason, settled_at = Status.RJCT, Reason.AM04, None
            else:
                await connection.execute(
                    "UPDATE payments SET returned = returned + $2 WHERE end_to_end_id = $1",
                    returned.end_to_end_id,
                    returned.amount,
                )
            await connection.execute(
                "INSERT INTO returns (return_id, end_to_end_id, message_id, sender, receiver, amount,"
                " document, status, reason, created_at, settled_at)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                returned.return_id,
                returned.end_to_end_id,
                returned.message_id,
                sender,
                payment["payer"],
                returned.amount,
                text,
                status.value,
                None if reason is None else reason.value,
                now,
                settled_at,
            )
            report = self._report(
                returned.end_to_end_id,
                status,
                reason=reason,
                return_id=returned.return_id,
                settled_at=settled_at,
            )
            await self._queue(connection, [sender], report)
            if status is Status.ACSC:
                await self._queue(connection, [payment["payer"]], returned)
        self._notify()
        return report

    # --- what participants poll -----------------------------------------------------------

    async def messages(self, recipient: str, after: int, wait: float) -> tuple[list[tuple[int, str]], int]:
        """``recipient``'s messages after ``after`` (at most :data:`MESSAGES_PER_POLL`), waiting up to
        ``wait`` seconds for one when there is none; and the cursor to ask after next."""
        deadline = asyncio.get_running_loop().time() + wait
        while True:
            self._arrived.clear()
            rows = await self.pool.fetch(
                "SELECT id, body FROM messages WHERE recipient = $1 AND id > $2 ORDER BY id LIMIT $3",
                recipient,
                after,
                MESSAGES_PER_POLL,
            )
            left = deadline - asyncio.get_running_loop().time()
            if rows or left <= 0:
                found = [(row["id"], row["body"]) for row in rows]
                return found, (found[-1][0] if found else after)
            with contextlib.suppress(TimeoutError):  # woken by a message, or look again in 0.5 s
                await asyncio.wait_for(self._arrived.wait(), min(left, 0.5))


def _content(message: Payment | PaymentReturn) -> tuple[object, ...]:
    """What a repeat must match: the message less its own message id and time."""
    if isinstance(message, Payment):
        return (
            message.end_to_end_id,
            message.amount,
            message.debtor,
            message.creditor,
            message.key,
            message.remittance,
        )
    return (message.return_id, message.end_to_end_id, message.amount, message.reason, message.remittance)


async def _move(
    connection: Any, source: str, target: str, amount: int, *, kind: str, reference: str, at: datetime
) -> bool:
    """``amount`` from ``source``'s settlement account to ``target``'s, both locked in ISPB order;
    False (nothing moved) when ``source``'s does not cover it."""
    rows = await connection.fetch(
        "SELECT ispb, balance FROM settlement_accounts WHERE ispb = ANY($1::text[]) ORDER BY ispb FOR UPDATE",
        [source, target],
    )
    balances = {row["ispb"]: row["balance"] for row in rows}
    if balances.get(source, 0) < amount or target not in balances:
        return False
    await connection.execute(
        "UPDATE settlement_accounts"
        " SET balance = balance + CASE WHEN ispb = $1 THEN -$3::bigint ELSE $3::bigint END, updated_at = $4"
        " WHERE ispb IN ($1, $2)",
        source,
        target,
        amount,
        at,
    )
    await connection.executemany(
        "INSERT INTO settlement_movements (ispb, amount, kind, reference, at) VALUES ($1, $2, $3, $4, $5)",
        [(source, -amount, kind, reference, at), (target, amount, kind, reference, at)],
    )
    return True


async def fund(connection: Any, ispb: str, amount: int, reference: str, at: datetime) -> int:
    """The operator funds (``amount`` above zero) or draws from (below zero) ``ispb``'s settlement
    account; its balance after. ``LookupError`` for no such participant, ``ValueError`` when a
    withdrawal is more than the balance."""
    if amount == 0:
        raise ValueError("an amount of zero moves nothing")
    async with connection.transaction():
        balance = await connection.fetchval(
            "SELECT balance FROM settlement_accounts WHERE ispb = $1 FOR UPDATE", ispb
        )
        if balance is None:
            raise LookupError(f"no participant has the ISPB {ispb}")
        if balance + amount < 0:
            raise ValueError(f"the settlement account holds {balance} centavos, less than {-amount}")
        await connection.execute(
            "UPDATE settlement_accounts SET balance = balance + $2, updated_at = $3 WHERE ispb = $1",
            ispb,
            amount,
            at,
        )
        await connection.execute(
            "INSERT INTO settlement_movements (ispb, amount, kind, reference, at)"
            " VALUES ($1, $2, $3, $4, $5)",
            ispb,
            amount,
            "FUNDING" if amount > 0 else "WITHDRAWAL",
            reference,
            at,
        )
    return int(balance + amount)


async def check_ledger(connection: Any) -> dict[str, Any]:
    """The settlement's books, proved from the rows: each account's balance is the sum of its
    movements; every payment or return that moved money moved it once, from one account to
    another (its movements sum to zero, two of them); each settled payment has its pair, each
    rejected one none; what a payment has returned is the sum of its settled returns; and all the
    accounts together hold what the operator put in, less what it drew."""
    async with connection.transaction(isolation="repeatable_read", readonly=True):
        mismatched = await connection.fetch(
            "SELECT a.ispb, a.balance, coalesce(sum(m.amount), 0)::bigint AS moved"
            " FROM settlement_accounts a LEFT JOIN settlement_movements m ON m.ispb = a.ispb"
            " GROUP BY a.ispb, a.balance HAVING a.balance <> coalesce(sum(m.amount), 0) ORDER BY a.ispb"
        )
        unbalanced = await connection.fetch(
            "SELECT reference FROM settlement_movements WHERE kind IN ('PAYMENT', 'RETURN')"
            " GROUP BY reference HAVING sum(amount) <> 0 OR count(*) <> 2 ORDER BY reference"
        )
        payments = await connection.fetch(
            "SELECT p.end_to_end_id FROM payments p"
            " WHERE (p.status = 'ACSC') <> EXISTS (SELECT FROM settlement_movements m"
            "  WHERE m.kind = 'PAYMENT' AND m.reference = p.end_to_end_id)"
            " OR p.returned <> (SELECT coalesce(sum(r.amount), 0) FROM returns r"
            "  WHERE r.end_to_end_id = p.end_to_end_id AND r.status = 'ACSC')"
            " ORDER BY 1"
        )
        totals = await connection.fetchrow(
            "SELECT (SELECT coalesce(sum(balance), 0) FROM settlement_accounts)::bigint AS held,"
            " (SELECT coalesce(sum(amount), 0) FROM settlement_movements"
            "  WHERE kind IN ('FUNDING', 'WITHDRAWAL'))::bigint AS funded"
        )
    return {
        "ok": not mismatched and not unbalanced and not payments and totals["held"] == totals["funded"],
        "held": totals["held"],
        "funded": totals["funded"],
        "mismatchedAccounts": [dict(row) for row in mismatched],
        "unbalancedReferences": [row["reference"] for row in unbalanced],
        "inconsistentPayments": [row["end_to_end_id"] for row in payments],
    }


async def flows(connection: Any) -> dict[tuple[str, str], int]:
    """What each institution has sent each other through the SPI, net, in centavos:
    ``(x, y) -> n`` is the settled payments and returns from ``x`` to ``y`` less those from ``y``
    to ``x`` (both directions of each pair are listed)."""
    rows = await connection.fetch(
        "SELECT source, target, sum(amount)::bigint AS moved FROM ("
        " SELECT payer AS source, payee AS target, amount FROM payments WHERE status = 'ACSC'"
        " UNION ALL"
        " SELECT sender, receiver, amount FROM returns WHERE status = 'ACSC') AS settled"
        " GROUP BY source, target"
    )
    net: dict[tuple[str, str], int] = {}
    for row in rows:
        source, target, moved = row["source"], row["target"], int(row["moved"])
        net[source, target] = net.get((source, target), 0) + moved
        net[target, source] = net.get((target, source), 0) - moved
    return net


def compare_ledgers(
    settled: dict[tuple[str, str], int], participants: set[str], ledgers: dict[str, dict[str, Any]]
) -> list[str]:
    """Where the institutions' own books and the SPI disagree, one sentence each. ``ledgers``: each
    institution's ``pixweb admin ledger check`` report, by its ISPB. Money is conserved across the
    network when every report holds and, for each pair of participants, what an institution's books
    say went out to the other (its outside account for that ISPB) is what the SPI settled from one
    to the other."""
    problems = []
    for ispb, report in sorted(ledgers.items()):
        if ispb not in participants:
            problems.append(f"{ispb} is no participant of the network")
            continue
        if not report.get("ok"):
            problems.append(f"{ispb}'s own ledger check fails")
        outside = {row["institution"]: int(row["balance"]) for row in report.get("outside", [])}
        for other in sorted(participants - {ispb}):
            books, spi = outside.get(other, 0), settled.get((ispb, other), 0)
            if books != spi:
                problems.append(f"{ispb}'s books say {books} went to {other}; the SPI settled {spi}")
    return problems
