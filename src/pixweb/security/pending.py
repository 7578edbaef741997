"""A grouped ``POST /dict/pix``'s pending certificate check, in the request's scope
(docs/decisions/transfer-group-write.md).

The clock middleware (``pixweb.sandbox.clock_middleware``) leaves the caller's
:class:`~pixcore.accounts.ports.PendingCredential` here instead of reading its certificate status; the
bearer check (``pixweb.auth``) sees it and does not ask; the handler takes it
(:func:`hand_pending_credential`) to give to the request's group, which checks it. A request that
never hands it on is checked alone by the middleware before its answer goes out.
"""

from __future__ import annotations

from typing import Any

from pixcore.accounts.ports import PendingCredential

__all__ = ["hand_pending_credential", "leave_pending_credential", "pending_credential", "was_handed"]

_PENDING = "pix.certificate_pending"
_HANDED = "pix.certificate_handed"


def leave_pending_credential(scope: Any, pending: PendingCredential) -> None:
    """Leave the caller's credential for the request's group to check."""
    scope.setdefault("state", {})[_PENDING] = pending


def was_handed(scope: Any) -> bool:
    """True once the handler took the pending credential for the request's group."""
    return bool(scope.get("state", {}).get(_HANDED))


def pending_credential(scope: Any, account_id: int, fingerprint: str) -> PendingCredential | None:
    """The caller's credential whose certificate status the request's group is to check, if any."""
    found: PendingCredential | None = scope.get("state", {}).get(_PENDING)
    if found is None or (found.account_id, found.fingerprint) != (account_id, fingerprint):
        return None
    return found


def hand_pending_credential(scope: Any, account_id: int, fingerprint: str) -> PendingCredential | None:
    """:func:`pending_credential`, taken by the handler to hand to the request's group, which checks
    it (so the answer needs no check of its own)."""
    found = pending_credential(scope, account_id, fingerprint)
    if found is not None:
        scope["state"][_HANDED] = True
    return found
