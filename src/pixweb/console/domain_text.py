"""The domain's messages (``pixcore`` errors, in English as the API answers them) in the
console's language, as far as the catalogs know them.

A message is translated whole when the catalog has it; otherwise piece by piece: a summary
(``Invalid transfer: ...``) and each ``field: text`` detail separately, the field's name (the
wire's, as the API writes it) kept. A catalog text with ``%(name)s`` reads a message of that
shape (``at most 5.00 remains refundable``). Anything unknown stays as the domain said it.

:data:`TEXTS` marks the domain's texts for the catalogs: the common ones of the forms (amounts,
keys, documents, required fields) and the not-found and refused messages a page shows.
"""

from __future__ import annotations

import re
from functools import cache

from pixweb.console.language import SOURCE, Language, noop

__all__ = ["TEXTS", "in_language"]

TEXTS = (
    # Required fields, amounts, keys and documents: what the forms meet most.
    noop("required"),
    noop("required, a text"),
    noop("required, an object"),
    noop('required, a string with 2 decimals (e.g. "10.00")'),
    noop("required, 1 to %(limit)s characters"),
    noop("must be above zero"),
    noop("amount must be greater than zero"),
    noop("amount out of range"),
    noop("amount must have at most 2 decimals"),
    noop("amount must be a number"),
    noop("Invalid amount: a positive value in reais with at most 2 decimals is expected."),
    noop("at most %(amount)s remains refundable"),
    noop("not a valid PIX key"),
    noop("not a PIX key"),
    noop("not a key of your account"),
    noop("not a key of this account"),
    noop("an 11-digit key is a CPF, and this CPF is invalid"),
    noop("invalid CNPJ"),
    noop("invalid e-mail address"),
    noop("Invalid PIX key."),
    noop("Invalid CPF or CNPJ."),
    noop("must be a valid CPF of exactly 11 digits"),
    noop("must be %(low)s to %(high)s seconds"),
    noop("at most %(limit)s characters"),
    noop("a string of at most %(limit)s characters"),
    # The summaries around a form's details.
    noop("Invalid transfer"),
    noop("Invalid charge"),
    noop("Invalid cash-in"),
    noop("Invalid refund"),
    noop("Invalid directory entry"),
    noop("Invalid webhook registration"),
    noop("Invalid query parameters"),
    noop("Invalid MED"),
    noop("The request is invalid."),
    # Refusals and not-found.
    noop("Insufficient balance: the available amount does not cover this operation."),
    noop("The PIX key was not found in the key directory (DICT)."),
    noop("A transfer to the sender's own account is not allowed."),
    noop("Invalid client credentials."),
    noop("Not found."),
    noop("Transaction not found."),
    noop("Charge not found."),
    noop("Refund not found."),
    noop("Webhook not found."),
    noop("Webhook delivery not found."),
    noop("MED case not found."),
    noop("Recurrence not found."),
    noop("No received PIX of your account has this endToEndId."),
    noop("A cash-in with this externalId exists already."),
    noop("a cash-in with externalId %(id)s exists already"),
    noop("A charge with this txid exists already."),
    noop("The operation is not allowed in the current state."),
    noop("Too many requests: retry later."),
    noop("The sandbox is off in this service."),
    noop("There is no such page in the console."),
)
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_AMOUNT = re.compile(r"[0-9]{1,12}\.[0-9]{2}")
_PARTS = re.compile(r"(; |: )")  # between a summary and its details, and between details


@cache
def _shapes() -> list[tuple[re.Pattern[str], str]]:
    """Each catalog text with placeholders as a pattern that reads a message of its shape."""
    shapes = []
    for text in TEXTS:
        if _PLACEHOLDER.search(text):
            pieces = _PLACEHOLDER.split(text)  # literal, name, literal, name, ...
            pattern = "".join(
                re.escape(piece) if n % 2 == 0 else f"(?P<{piece}>[^;:]+?)" for n, piece in enumerate(pieces)
            )
            shapes.append((re.compile(pattern), text))
    return shapes


def _whole(text: str, lang: Language) -> str | None:
    """``text`` in ``lang`` if the catalog knows it whole (or its shape); None otherwise."""
    if not text:
        return None
    translated = lang.translations.gettext(text)
    if translated != text or text in TEXTS:
        return translated
    for pattern, source in _shapes():
        if found := pattern.fullmatch(text):
            values = found.groupdict()
            if _AMOUNT.fullmatch(values.get("amount", "")):
                values["amount"] = lang.reais(values["amount"])  # the API's 5.00 as the page writes money
            return lang.translations.gettext(source) % values
    return None


def in_language(text: str, lang: Language) -> str:
    """A domain message in ``lang``: whole if the catalog knows it, else each part it knows; in
    English, the catalogs' own language, exactly as the API says it."""
    if lang.code == SOURCE:
        return text
    whole = _whole(text, lang)
    if whole is not None:
        return whole
    parts = _PARTS.split(text)
    return "".join(part if n % 2 else (_whole(part, lang) or part) for n, part in enumerate(parts))
