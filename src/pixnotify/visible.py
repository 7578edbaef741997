"""Text a sender chose, made safe to print on a terminal (``pixnotify listen``).

A request's headers and body are anyone's text. Printed raw, ESC starts a terminal escape sequence
(clear the line, move the cursor), CR returns to the start of the line, BEL rings, and Unicode's
bidi and other format characters reorder or hide what follows: a forged line could rewrite itself
to read ``signature ok``. :func:`visible` shows each such character as an escape (``\\x1b``,
``\\r``, ``\\u202e``) and a backslash as ``\\\\``, so an escape in the output always means one: the
sender cannot write text that reads as the escape of something else. :func:`quoted` adds quotes
around it, with ``"`` escaped, and breaks each run of spaces (``" \\x20"``): quoted text can neither
close its quotes nor copy the two-space columns of a genuine line. :func:`json_text` escapes the same
characters in a JSON document, which stays the same JSON.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["json_text", "quoted", "visible"]

# Unicode categories that never print as themselves: controls (Cc: C0, DEL, C1), format characters
# (Cf: bidi embeddings, overrides and isolates, zero-width ones, tags), surrogates, private use,
# unassigned code points (a later version may make them format characters), line and paragraph
# separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in _HIDDEN


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every control, format or otherwise hidden character, and the backslash,
    written as an escape: ``"a\\x1b[2Kb"`` prints as ``a\\x1b[2Kb``."""
    if text.isprintable() and "\\" not in text:  # the usual case, in C
        return text
    return "".join(_escape(char) if char == "\\" or _hidden(char) else char for char in text)


def quoted(text: str) -> str:
    """:func:`visible` text in double quotes, ``"`` escaped, and every space but a single ASCII
    one written as an escape (``\x20`` after a space, ``\xa0``): ``'say "hi"   x'`` prints as
    ``"say \"hi\" \x20\x20x"``."""
    out: list[str] = []
    for char in visible(text):
        if char == '"':
            out.append('\\"')
        elif char == " " and out and out[-1] in {" ", "\\x20"}:
            out.append("\\x20")
        elif char != " " and unicodedata.category(char) == "Zs":
            out.append(_escape(char))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_NOT_ASCII_TEXT = re.compile(r"[^\x20-\x7e]")  # JSON's own syntax is printable ASCII


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    if not _hidden(char):
        return char
    code = ord(char)
    if code > 0xFFFF:  # JSON writes it as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_text(document: str) -> str:
    """A JSON document (``json.dumps(..., ensure_ascii=False)``) with each hidden character that
    JSON leaves raw (DEL, C1 controls, bidi and other format characters, U+2028, U+2029) written as
    its ``\\u`` escape: the same JSON, and nothing in it that a terminal would act on. They can only
    be inside strings, which is where ``\\u`` escapes mean them."""
    if document.isascii() and "\x7f" not in document:
        return document
    return _NOT_ASCII_TEXT.sub(_json_escape, document)
