"""A JSON Schema validator (2020-12, OpenAPI 3.1's dialect) that judges ``multipleOf`` on the
number as written: the document's money is ``multipleOf: 0.01``, and a float division says that
``0.07`` is not a multiple of ``0.01`` (``7.000000000000001``). A JSON number read as a float
is judged by its shortest text (``repr``), which is the text the service wrote (at most 12
significant digits), as an exact ``Decimal``."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend


def _exact(number: float | Decimal) -> Decimal:
    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


def _multiple_of(_validator: Any, step: Any, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if isinstance(instance, bool) or not isinstance(instance, int | float | Decimal):
        return
    if _exact(instance) % _exact(step) != 0:
        yield ValidationError(f"{instance!r} is not a multiple of {step!r}")


ExactValidator = extend(jsonschema.Draft202012Validator, {"multipleOf": _multiple_of})
"""``jsonschema.Draft202012Validator`` but for ``multipleOf``, judged exactly."""
