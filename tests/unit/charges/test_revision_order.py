"""The standard's order for a ``PATCH`` (``found_first``), in the revise use cases of both kinds:
the charge is looked up before the body is judged, and ``{}`` reads the charge as it is."""

from __future__ import annotations

from typing import Any

import pytest

from pixcore.charges.cob import Charge, RevisionFields
from pixcore.charges.cob_service import ChargeView, create_charge, revise_charge
from pixcore.charges.cobv_requests import DueChargeRequest
from pixcore.charges.cobv_service import create_due_charge, revise_due_charge
from pixcore.clock import ManualClock
from pixcore.errors import ChargeNotFound, ValidationError
from pixcore.testing import InMemoryStore
from tests.unit.charges.test_due_batches import _account, _fields, _txid
from tests.unit.charges.test_usecases_charges import PREFIX, request

# A status besides another change: refused before any charge is looked up, unless found first.
_BAD = RevisionFields(status="REMOVIDA_PELO_USUARIO_RECEBEDOR", payer_request="x")
_MISSING = "nothinghere0000000000000001"


@pytest.mark.parametrize("due", [False, True], ids=["cob", "cobv"])
async def test_the_charge_is_found_first_only_when_asked(
    store: InMemoryStore, clock: ManualClock, due: bool
) -> None:
    account_id, uow = await _account(store), store.unit_of_work
    immediate = await create_charge(
        uow, clock, account_id=account_id, txid=None, request=request(), location_prefix=PREFIX
    )
    due_charge = await create_due_charge(
        uow,
        clock,
        account_id=account_id,
        txid=_txid(1),
        request=DueChargeRequest.parse(_fields(clock), now=clock.now()),
        location_prefix=PREFIX,
    )
    charge, other = (due_charge, immediate) if due else (immediate, due_charge)
    revise = revise_due_charge if due else revise_charge

    async def revised(
        txid: str, fields: RevisionFields[Any, Any], *, found_first: bool
    ) -> Charge | ChargeView:
        return await revise(
            uow,
            clock,
            account_id=account_id,
            txid=txid,
            fields=fields,
            location_prefix=PREFIX,
            found_first=found_first,
        )

    with pytest.raises(ValidationError):
        await revised(_MISSING, _BAD, found_first=False)
    with pytest.raises(ChargeNotFound):
        await revised(_MISSING, _BAD, found_first=True)
    with pytest.raises(ChargeNotFound):  # a charge of the other kind is not one of this route's
        await revised(other.txid, _BAD, found_first=True)
    with pytest.raises(ValidationError):
        await revised(charge.txid, RevisionFields(), found_first=False)
    assert await revised(charge.txid, RevisionFields(), found_first=True) == ChargeView(charge, ())
