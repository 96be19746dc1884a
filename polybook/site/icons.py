"""Small line icons for the header's links (``[html] header_links``), drawn for polybook, in
the place of the Font Awesome icons d2lbook's books name: inline SVG in the page (no font,
no network: the site works from ``file://``), in the text's colour, hidden from screen
readers (the link's text names it). An icon not drawn here is left out."""

from __future__ import annotations

# Each icon's shapes in a 16 by 16 box: stroked lines, or filled where the element says so.
FILL = 'fill="currentColor" stroke="none"'
_SHAPES: dict[str, str] = {
    "file-pdf": (
        '<path d="M4 1.5h5.5L13 5v9.5H4z"/><path d="M9.5 1.5V5H13"/>'
        f'<rect x="2" y="8" width="9" height="4.5" rx="1" {FILL}/>'
    ),
    "file": '<path d="M4 1.5h5.5L13 5v9.5H4z"/><path d="M9.5 1.5V5H13M6 8.5h4.5M6 11h4.5"/>',
    "github": (
        '<circle cx="8" cy="8" r="6.5"/>'
        f'<path {FILL} d="M4.8 7.2 4.9 4l2 1.4a5 5 0 0 1 2.2 0l2-1.4.1 3.2c.6.7.8 1.4.7'
        ' 2.1-.3 1.9-1.8 2.9-3.9 2.9S4.4 11.2 4.1 9.3c-.1-.7.1-1.4.7-2.1z"/>'
    ),
    "python": (
        f'<path {FILL} d="M7.8 1.2c-2.6 0-3 1.1-3 2.3V5h3.3v.6H3.5C2.2 5.6 1.2 6.6 1.2 8.2s.9'
        " 2.7 2.2 2.7h1.2V9.3c0-1.2 1-2.2 2.2-2.2h3c1 0 1.8-.8 1.8-1.8V3.5c0-1.2-1-2.3-3.8-2.3z"
        'M6.3 2.4a.6.6 0 1 1 0 1.2.6.6 0 0 1 0-1.2z"/>'
        f'<path {FILL} d="M8.2 14.8c2.6 0 3-1.1 3-2.3V11H7.9v-.6h4.6c1.3 0 2.3-1 2.3-2.6s-.9-2.7'
        "-2.2-2.7h-1.2v1.6c0 1.2-1 2.2-2.2 2.2h-3c-1 0-1.8.8-1.8 1.8v1.8c0 1.2 1 2.3 3.8 2.3z"
        'M9.7 13.6a.6.6 0 1 1 0-1.2.6.6 0 0 1 0 1.2z"/>'
    ),
    "external-link": ('<path d="M12.5 9v4.5h-10v-10H7"/><path d="M9.5 2.5h4v4M13.5 2.5l-6 6"/>'),
    "book": (
        '<path d="M8 4.5C6.5 3.3 4.5 3 2 3v9.5c2.5 0 4.5.3 6 1.5 1.5-1.2 3.5-1.5 6-1.5V3'
        'c-2.5 0-4.5.3-6 1.5zM8 4.5V14"/>'
    ),
    "graduation-cap": (
        '<path d="M8 2.5 15 6 8 9.5 1 6z"/><path d="M4 7.5V11c0 1 1.8 2 4 2s4-1 4-2V7.5M15 6v4"/>'
    ),
    "download": '<path d="M8 2v8M4.5 6.5 8 10l3.5-3.5M2.5 11v2.5h11V11"/>',
    "home": '<path d="M2 7.5 8 2.5l6 5M3.5 6.5v7h9v-7M6.5 13.5v-4h3v4"/>',
    "link": (
        '<path d="M6.5 9.5l3-3M7 4.5l1-1a2.5 2.5 0 0 1 3.5 3.5l-1 1M9 11.5l-1 1A2.5 2.5 0 0 1'
        ' 4.5 9l1-1"/>'
    ),
    "envelope": '<rect x="1.5" y="3.5" width="13" height="9" rx="1"/><path d="M1.5 4 8 9l6.5-5"/>',
    "comments": '<path d="M2 3.5h12V11H7l-3 2.5V11H2z"/>',
    "code": '<path d="M5.5 4.5 2 8l3.5 3.5M10.5 4.5 14 8l-3.5 3.5M9 3 7 13"/>',
    "video": (
        f'<rect x="1.5" y="3.5" width="13" height="9" rx="2"/><path {FILL} d="M6.5 6v4l3.5-2z"/>'
    ),
    "globe": (
        '<circle cx="8" cy="8" r="6.5"/><path d="M1.5 8h13M8 1.5c-3.5 3.5-3.5 9.5 0 13'
        'M8 1.5c3.5 3.5 3.5 9.5 0 13"/>'
    ),
}
# Font Awesome's names (versions 4 to 6) of each icon drawn here.
ALIASES: dict[str, str] = {
    "file-pdf-o": "file-pdf",
    "file-o": "file",
    "file-alt": "file",
    "file-lines": "file",
    "file-text": "file",
    "github-alt": "github",
    "github-square": "github",
    "square-github": "github",
    "external-link-alt": "external-link",
    "external-link-square": "external-link",
    "external-link-square-alt": "external-link",
    "arrow-up-right-from-square": "external-link",
    "up-right-from-square": "external-link",
    "square-up-right": "external-link",
    "book-open": "book",
    "book-reader": "book",
    "user-graduate": "graduation-cap",
    "file-download": "download",
    "cloud-download": "download",
    "cloud-download-alt": "download",
    "file-arrow-down": "download",
    "house": "home",
    "envelope-o": "envelope",
    "comment": "comments",
    "comment-alt": "comments",
    "discourse": "comments",
    "youtube": "video",
    "play": "video",
    "globe-americas": "globe",
    "language": "globe",
}
# Classes that style an icon rather than name it.
_STYLES = {"fa", "fas", "far", "fab", "fal", "fat", "fad", "fa-solid", "fa-regular"}
_STYLES |= {"fa-brands", "fa-light", "fa-thin", "fa-duotone", "fa-fw", "fa-lg", "fa-sm"}
_STYLES |= {"fa-xs", "fa-spin", "fa-pulse", "fa-border", *(f"fa-{n}x" for n in range(1, 11))}


def icon_name(classes: str) -> str:
    """The icon of a Font Awesome class list (``fas fa-file-pdf`` → ``file-pdf``) drawn here,
    or ``""``."""
    for word in classes.lower().split():
        if word.startswith("fa-") and word not in _STYLES:
            name = ALIASES.get(word[3:], word[3:])
            return name if name in _SHAPES else ""
    return ""


def icon_svg(classes: str) -> str:
    """The inline SVG of the icon ``classes`` names, or ``""`` when none is drawn here."""
    name = icon_name(classes)
    if not name:
        return ""
    return (
        f'<svg class="pb-icon pb-icon-{name}" viewBox="0 0 16 16" width="16" height="16"'
        ' aria-hidden="true" focusable="false" fill="none" stroke="currentColor"'
        f' stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round">'
        f"{_SHAPES[name]}</svg>"
    )
