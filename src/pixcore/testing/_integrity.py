"""The error of a write the database would refuse when no domain error names the rule."""

from __future__ import annotations

__all__ = ["IntegrityError"]


class IntegrityError(Exception):
    """The database would refuse this write, and no domain error names the rule."""
