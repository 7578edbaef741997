"""Webhooks on the wire: ``/api/webhooks``, the standard's ``/webhook`` per key, and the
notifications sent."""
