"""Webhooks: registrations, webhooks per key, and how one delivery is made and judged."""
