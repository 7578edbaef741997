"""SQL on the webhook tables that both the API and the notifier run, written once.

A registration is deactivated by its owner (``DELETE /api/webhooks/{id}``, in
``pixweb.persistence.webhooks``) or by its receiver answering 410 Gone (``pixnotify.store``):
the same statement either way, which leaves an inactive registration (and its first
deactivation's time and reason) alone.
"""

from __future__ import annotations

__all__ = ["DEACTIVATE_WEBHOOK"]

DEACTIVATE_WEBHOOK = """
UPDATE webhooks SET is_active = false, updated_at = $3, deactivated_at = $3, deactivation_reason = $2
WHERE id = $1 AND is_active
"""
"""Arguments: the registration's id, the reason, the moment."""
