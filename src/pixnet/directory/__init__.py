"""The DICT: entries (and, in time, claims, infraction reports, refunds and policies)."""
