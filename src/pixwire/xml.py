"""XML read with every door shut, and the few helpers the DICT's documents need.

A body is refused (:class:`BadXml`) when it is over :data:`MAX_BODY` bytes, declares a document type
(no DTD, so no entity of any kind, internal or external), or is not well formed. The parser
never reaches the network and never expands an entity; text keeps NUL out because XML 1.0 has
no NUL at all.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

__all__ = ["MAX_BODY", "BadXml", "child", "element", "parse", "serialize", "text_of"]

MAX_BODY = 64 * 1024
"""The largest body read (a DICT request is a few kilobytes, its signature included)."""

Element = Any
"""An lxml element (lxml publishes no public name for its element type)."""

_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False
)


class BadXml(ValueError):
    """A body that is no acceptable XML document."""


def parse(body: bytes) -> Element:
    """The root element of ``body``."""
    if len(body) > MAX_BODY:
        raise BadXml(f"the body is over {MAX_BODY} bytes")
    try:
        root = etree.fromstring(body, parser=_PARSER)
    except etree.XMLSyntaxError as exc:
        raise BadXml(f"not well-formed XML: {exc.msg}") from exc
    if root.getroottree().docinfo.doctype:
        raise BadXml("a document type declaration is not accepted")
    return root


def element(
    tag: str, *children: Element | None, text: str | None = None, attributes: dict[str, str] | None = None
) -> Element:
    """A new element with ``children`` (None ones left out) or ``text``, and ``attributes``."""
    made = etree.Element(tag, attrib=attributes or {})
    made.text = text
    made.extend(c for c in children if c is not None)
    return made


def leaf(tag: str, text: str | None) -> Element | None:
    """An element holding ``text``; None when ``text`` is None."""
    return None if text is None else element(tag, text=text)


def child(parent: Element, tag: str) -> Element | None:
    """The one child of ``parent`` named ``tag`` (in no namespace); :class:`BadXml` when repeated."""
    found = parent.findall(tag)
    if len(found) > 1:
        raise BadXml(f"{tag} is given {len(found)} times")
    return found[0] if found else None


def text_of(parent: Element, tag: str, *, required: bool = True) -> str | None:
    """The text of ``parent``'s child ``tag``; :class:`BadXml` when required and absent or empty."""
    found = child(parent, tag)
    text = None if found is None else (found.text or "")
    if required and not text:
        raise BadXml(f"{tag} is required")
    return text


def serialize(root: Element) -> bytes:
    """``root`` as a UTF-8 document with its declaration."""
    data: bytes = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
    return data
