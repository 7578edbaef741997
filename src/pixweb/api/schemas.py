"""The base of every wire struct: one place that sets how a field's Python name becomes its name on
the wire (the standard's camelCase: ``solicitacao_pagador`` is ``solicitacaoPagador``).

A feature's ``schemas`` subclass :class:`WireStruct` and add only what is their own (``omit_defaults``
on an answer with optional members, ``forbid_unknown_fields`` on a revision, ``kw_only``).
"""

from __future__ import annotations

import msgspec

__all__ = ["WireStruct"]


class WireStruct(msgspec.Struct, rename="camel"):
    """A request or answer body: snake_case in Python, camelCase on the wire."""
