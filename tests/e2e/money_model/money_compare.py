"""The comparison of the model-based test: the whole state of one example's accounts, read
from the service (through the API and behind it), against the reference model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.e2e.money_model.money_service import cents, ledger_ok, outside_world_total

if TYPE_CHECKING:
    from tests.e2e.money_model.money_driver import Driver

__all__ = ["differences"]


async def differences(driver: Driver) -> list[str]:
    """Every difference between the service and the model, as readable lines."""
    found: list[str] = []
    model, conn, ids = driver.model, driver.service.conn, driver.ids
    index = {account_id: i for i, account_id in enumerate(ids)}
    service_total = 0
    for i, balance in enumerate(model.accounts):
        answer = await driver.call(i, "GET", "/accounts/balances")
        amount = answer.body["data"][0]["balanceAmount"]
        seen = (cents(amount["available"]), cents(amount["blocked"]))
        service_total += sum(seen)
        if seen != (balance.available, balance.blocked):
            found.append(
                f"account {'ABC'[i]}: (available, blocked) is {seen}, "
                f"the model says {(balance.available, balance.blocked)}"
            )
    rows = await conn.fetch(
        "SELECT account_id, type, status, count(*) AS n FROM transactions"
        " WHERE account_id = ANY($1::bigint[]) GROUP BY 1, 2, 3",
        ids,
    )
    records = {(index[r["account_id"]], r["type"], r["status"]): r["n"] for r in rows}
    _differ(found, "records (account, type, status)", records, model.record_counts())
    rows = await conn.fetch(
        """
        SELECT account_id, event_type, count(*) AS n,
               CASE event_type WHEN 'RECEIVE' THEN ''
                               WHEN 'REFUND' THEN payload->'data'->>'creditDebitType'
                               ELSE payload->'data'->>'status' END AS detail
          FROM outbox WHERE account_id = ANY($1::bigint[]) AND event_type NOT IN ('REC', 'COBR')
         GROUP BY 1, 2, 4
        """,
        ids,
    )
    events = {(index[r["account_id"]], r["event_type"], r["detail"]): r["n"] for r in rows}
    _differ(found, "notifications (account, type, status)", events, model.event_counts())
    rows = await conn.fetch(
        "SELECT transaction_id, state FROM transfers WHERE account_id = ANY($1::bigint[])", ids
    )
    transfers = {r["transaction_id"]: r["state"] for r in rows}
    _differ(found, "transfers", transfers, {t.id: t.state for t in model.transfers})
    rows = await conn.fetch(
        "SELECT t.end_to_end_id, r.refund_id, r.status, r.amount FROM refunds r"
        " JOIN transactions t ON t.id = r.original_transaction_id"
        " WHERE r.account_id = ANY($1::bigint[]) AND r.kind = 'sent'",
        ids,
    )
    refunds = {(r["end_to_end_id"], r["refund_id"]): (r["status"], r["amount"]) for r in rows}
    wanted = {(f.receipt.e2e, f.refund_id): (f.status, f.amount) for f in model.refunds()}
    _differ(found, "refunds", refunds, wanted)
    rows = await conn.fetch(
        "SELECT location_id, status FROM charges WHERE account_id = ANY($1::bigint[])", ids
    )
    charges = {r["location_id"]: r["status"] for r in rows}
    _differ(found, "charges", charges, {c.location_id: c.status for c in model.charges})
    rows = await conn.fetch(
        "SELECT id, status, amount, blocked FROM med_cases WHERE account_id = ANY($1::bigint[])", ids
    )
    cases = {r["id"]: (r["status"], r["amount"], r["blocked"]) for r in rows}
    _differ(found, "MED cases", cases, {c.id: (c.status, c.amount, c.blocked) for c in model.cases})
    rows = await conn.fetch(
        "SELECT txid, status FROM recurring_charges WHERE account_id = ANY($1::bigint[])", ids
    )
    recurring = {r["txid"]: r["status"] for r in rows}
    _differ(found, "recurring charges", recurring, {c.txid: c.status for c in model.recurring})
    payer = await driver.payer_balance() if model.recurring or model.payer_balance else 0
    if payer != model.payer_balance:
        found.append(f"the payer's balance at their bank is {payer}, the model says {model.payer_balance}")
    ok, report = await ledger_ok(driver.service)
    if not ok:
        found.append(f"the ledger check fails: {report}")
    if service_total + model.outside != 0:
        found.append(
            f"money is not conserved: our balances sum to {service_total}, the outside world "
            f"(as the model keeps it) holds {model.outside}"
        )
    outside = await outside_world_total(driver.service, ids)
    if outside != model.outside:
        found.append(f"the service's ledger has the outside world at {outside}, the model {model.outside}")
    return found


def _differ(out: list[str], what: str, seen: dict[Any, Any], wanted: dict[Any, Any]) -> None:
    if seen != wanted:
        keys = sorted(set(seen) | set(wanted), key=str)
        lines = [
            f"{k}: service {seen.get(k)}, model {wanted.get(k)}" for k in keys if seen.get(k) != wanted.get(k)
        ]
        out.append(f"{what} differ: " + "; ".join(lines))
