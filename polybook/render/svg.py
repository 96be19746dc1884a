"""SVG made inert: parsed, then rebuilt from an allow-list of elements and attributes.

A cell's SVG output, and an SVG figure of the book, becomes a file of the site, which a
reader may open on its own (where a script would run with the site's origin, and every
outside reference would be fetched: the reader tracked). The file is written anew from what
the allow-list keeps: SVG's drawing elements (shapes, text, paths, gradients, patterns,
markers, clip paths, masks, filters, ``<use>``, ``<style>``) with their geometry and
presentation attributes. Dropped: scripts, foreign content, animations (``<set>`` can set
any attribute), elements of other namespaces, comments, processing instructions, event
handlers and every attribute not on the list. Each value that may reference something is
read as a browser reads it, CSS escapes and comments undone: a link (``href``) may only
point into the image (``#id``) or hold a raster image (``data:image/png;base64,…``), a
``url(…)`` only into the image; ``@import``, ``image-set(…)``, ``src(…)`` and the like are
dropped, with the declaration (or the ``<style>`` sheet) that holds them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

EMPTY_SVG = f'<svg xmlns="{SVG_NS}"/>'
_FILTERS = (
    "feBlend feColorMatrix feComponentTransfer feComposite feConvolveMatrix"
    " feDiffuseLighting feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB"
    " feFuncG feFuncR feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset"
    " fePointLight feSpecularLighting feSpotLight feTile feTurbulence"
)
_DRAWING = (
    "svg g defs symbol use title desc switch view a style path rect circle ellipse line"
    " polyline polygon text tspan textPath clipPath mask pattern marker linearGradient"
    " radialGradient stop filter image"
)
ELEMENTS = frozenset(f"{_DRAWING} {_FILTERS}".split())
_ATTRIBUTES = (
    # identity, structure and geometry
    "id class style lang tabindex viewBox preserveAspectRatio x y x1 y1 x2 y2 cx cy r rx"
    " ry fx fy fr width height d points pathLength transform version baseProfile"
    " gradientUnits gradientTransform spreadMethod offset patternUnits"
    " patternContentUnits patternTransform clipPathUnits maskUnits maskContentUnits"
    " markerUnits markerWidth markerHeight refX refY orient href requiredExtensions"
    " systemLanguage role aria-label aria-hidden focusable"
    # text
    " dx dy rotate textLength lengthAdjust startOffset method spacing side"
    " font-family font-size font-size-adjust font-stretch font-style font-variant"
    " font-weight letter-spacing word-spacing text-anchor text-decoration"
    " dominant-baseline alignment-baseline baseline-shift writing-mode direction"
    " unicode-bidi white-space"
    # presentation
    " fill fill-opacity fill-rule stroke stroke-dasharray stroke-dashoffset"
    " stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width"
    " opacity color display visibility overflow clip clip-path clip-rule mask filter"
    " marker-start marker-mid marker-end stop-color stop-opacity flood-color"
    " flood-opacity lighting-color color-interpolation color-interpolation-filters"
    " shape-rendering text-rendering image-rendering paint-order vector-effect"
    " mix-blend-mode isolation transform-origin cursor"
    # filters
    " filterUnits primitiveUnits in in2 result mode type values tableValues slope"
    " intercept amplitude exponent k k1 k2 k3 k4 operator order kernelMatrix divisor bias"
    " targetX targetY edgeMode preserveAlpha scale xChannelSelector yChannelSelector"
    " stdDeviation baseFrequency numOctaves seed stitchTiles surfaceScale diffuseConstant"
    " specularConstant specularExponent kernelUnitLength azimuth elevation z"
    " pointsAtX pointsAtY pointsAtZ limitingConeAngle radius"
)
ATTRIBUTES = frozenset(_ATTRIBUTES.split())
QUOTES = {'"': "&quot;", "\n": "&#10;", "\t": "&#9;"}
SAFE_HREF = re.compile(r"#[^\s]*|data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*")
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\r\n\f]?|\\(.)", re.DOTALL)
CSS_COMMENT = re.compile(r"/\*.*?(\*/|$)", re.DOTALL)
URL = re.compile(r"url\s*\(\s*(['\"]?)\s*(.*?)\s*\1\s*\)", re.IGNORECASE | re.DOTALL)
# A value without one of these (nor "binding") has no call, at-rule, declaration nor escape,
# as its CSS is read: it fetches nothing (most of a figure's values: numbers, colours).
QUIET_MARKS: tuple[str, ...] = ("(", "@", ":", "\\")
# What fetches without url(…), or runs: any of them makes a value unsafe.
FETCHING = re.compile(
    r"@import|image-set\s*\(|src\s*\(|expression\s*\(|-moz-binding|behavior\s*:|url\s*\(",
    re.IGNORECASE,
)


def _unescape(char: re.Match[str]) -> str:
    if char.group(1) is None:
        return char.group(2)
    code = int(char.group(1), 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def css_as_read(value: str) -> str:
    """``value`` as a browser's CSS parser reads it: escapes undone, comments removed."""
    return CSS_COMMENT.sub("", CSS_ESCAPE.sub(_unescape, value.replace("\x00", "\ufffd")))


def reaches_out(value: str) -> bool:
    """Whether the CSS ``value`` (a sheet, a declaration, a presentation attribute) would
    fetch anything: a ``url(…)`` that does not point into the image, an import, an image
    set. Undecidable forms count as reaching out."""
    if not any(mark in value for mark in QUIET_MARKS) and "binding" not in value.lower():
        return False  # no call, at-rule, declaration nor escape: nothing can fetch
    text = css_as_read(value)
    inside = URL.sub(lambda m: "" if m.group(2).startswith("#") else "url(", text)
    return bool(FETCHING.search(inside))


def _style(value: str) -> str:
    """A ``style`` attribute less the declarations that reach out (as read, unescaped)."""
    kept = [d.strip() for d in css_as_read(value).split(";") if d.strip()]
    return "; ".join(d for d in kept if not reaches_out(d))


def _local(name: str) -> tuple[str, str]:
    """(namespace, local name) of an ElementTree name, ``{ns}local``."""
    if name.startswith("{"):
        namespace, _, local = name[1:].partition("}")
        return namespace, local
    return "", name


def _attribute(name: str, value: str) -> tuple[str, str] | None:
    """The attribute as written in the rebuilt file, or None where it is dropped."""
    namespace, local = _local(name)
    if local == "href" and namespace in (XLINK_NS, ""):
        safe = SAFE_HREF.fullmatch(value.strip())
        return ("xlink:href" if namespace else "href", value) if safe else None
    if namespace == XML_NS and local in ("space", "lang"):
        return f"xml:{local}", value
    if namespace or local not in ATTRIBUTES:
        return None
    if local == "style":
        kept = _style(value)
        return (local, kept) if kept else None
    return None if reaches_out(value) else (local, value)


def _rebuild(element: ET.Element, out: list[str]) -> None:
    """Append the allowed form of ``element`` (whose tag is allowed) to ``out``."""
    local = _local(element.tag)[1]
    attributes = [a for n, v in element.attrib.items() if (a := _attribute(n, v))]
    out.append(f"<{local}")
    out.extend(f' {name}="{escape(value, QUOTES)}"' for name, value in attributes)
    out.append(">")
    if local == "style":
        sheet = "".join(element.itertext())
        out.append("" if reaches_out(sheet) else escape(sheet))
    else:
        out.append(escape(element.text or ""))
        for child in element:
            namespace, name = _local(child.tag)
            if namespace == SVG_NS and name in ELEMENTS:
                _rebuild(child, out)
            out.append(escape(child.tail or ""))
    out.append(f"</{local}>")


def sanitize_svg(text: str) -> str | None:
    """``text`` rebuilt from the allow-list, or None where it is not a well-formed SVG (or
    declares entities, which could make it grow without bound)."""
    if "<!ENTITY" in text.upper():
        return None
    try:
        root = ET.fromstring(text.encode("utf-8"))
    except (ET.ParseError, ValueError):
        return None
    if _local(str(root.tag)) != (SVG_NS, "svg"):
        if _local(str(root.tag)) != ("", "svg"):
            return None
        root = _in_svg_namespace(root)  # an SVG that forgot its namespace
    out: list[str] = []
    _rebuild(root, out)
    head = f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}"'
    return head + out[0].removeprefix("<svg") + "".join(out[1:])


def _in_svg_namespace(root: ET.Element) -> ET.Element:
    """``root`` and its descendants without a namespace, put in SVG's."""
    for element in root.iter():
        if isinstance(element.tag, str) and not element.tag.startswith("{"):
            element.tag = f"{{{SVG_NS}}}{element.tag}"
    return root
