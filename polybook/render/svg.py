"""SVG outputs made inert: no scripts, event handlers, foreign content or outside links.

A cell's SVG becomes a file of the site, which a reader may open on its own (where a script
in it would run with the site's origin), and is shown in the page as an ``<img>``. What
drawing libraries write (shapes, text, styles, clip paths, ``<use>`` of the image's own
parts, embedded raster images) stays.
"""

from __future__ import annotations

import re
from xml.dom import minidom
from xml.parsers.expat import ExpatError

# Elements that run code, embed other documents or animate links.
DROPPED = {"script", "foreignobject", "iframe", "object", "embed", "handler", "listener"}
ANIMATIONS = {"set", "animate", "animatemotion", "animatetransform"}
LINKS = {"href", "src"}  # by local name: href, xlink:href
SAFE_LINK = re.compile(r"^\s*(#|data:image/(png|jpeg|gif|webp)[;,])", re.IGNORECASE)
OUTSIDE_URL = re.compile(r"url\(\s*['\"]?(?!\s*#)|@import", re.IGNORECASE)


def _local(name: str) -> str:
    return name.rpartition(":")[2].lower()


def _unsafe_attribute(name: str, value: str) -> bool:
    local = _local(name)
    if local.startswith("on"):
        return True
    if local in LINKS:
        return not SAFE_LINK.match(value)
    if local in {"style", "attributename"}:
        return bool(OUTSIDE_URL.search(value)) or (
            local == "attributename" and (_local(value).startswith("on") or _local(value) in LINKS)
        )
    return False


def _clean(element: minidom.Element) -> None:
    for child in list(element.childNodes):
        if child.nodeType == child.PROCESSING_INSTRUCTION_NODE:
            element.removeChild(child)
        elif isinstance(child, minidom.Element):
            local = _local(child.tagName)
            animates_link = local in ANIMATIONS and _unsafe_attribute(
                "attributeName", child.getAttribute("attributeName")
            )
            styled_out = local == "style" and OUTSIDE_URL.search(_text(child))
            if local in DROPPED or animates_link or styled_out:
                element.removeChild(child)
                continue
            for name, value in list(child.attributes.items()):
                if _unsafe_attribute(name, value):
                    child.removeAttribute(name)
            _clean(child)


def _text(element: minidom.Element) -> str:
    kinds = (minidom.Text, minidom.CDATASection)
    return "".join(n.data for n in element.childNodes if isinstance(n, kinds))


def sanitize_svg(text: str) -> str | None:
    """``text`` made inert, or None where it is not a well-formed SVG (or declares
    entities, which could make it grow without bound)."""
    if "<!ENTITY" in text:
        return None
    try:
        document = minidom.parseString(text.encode("utf-8"))
    except (ExpatError, ValueError):
        return None
    root = document.documentElement
    if root is None or _local(root.tagName) != "svg":
        return None
    for name, value in list(root.attributes.items()):
        if _unsafe_attribute(name, value):
            root.removeAttribute(name)
    _clean(root)
    return str(root.toxml())
