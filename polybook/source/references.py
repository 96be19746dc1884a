"""Labels, references and figures of a whole book, checked without rendering it.

Labels come from ``:label:`` / ``:eqlabel:`` lines, references from ``:numref:``,
``:ref:`` and ``:eqref:`` roles, figures from ``![caption](path)`` images; each is kept
with its page and line, so problems are reported where the author wrote them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from polybook.diagnostics import Location, Reporter
from polybook.source.model import Document
from polybook.source.scan import ROLE_OR_CODE, UNCLOSED_ROLE

REFERENCE_ROLES = ("numref", "ref", "eqref")


@dataclass(frozen=True)
class Mention:
    """A label, reference or image path at a place in the book."""

    name: str
    kind: str
    location: Location


def mentions(doc: Document) -> list[Mention]:
    """Labels, references and images of one page, in order."""
    index = doc.index
    found = [
        *(
            Mention(label.name, label.kind, Location(doc.path, label.line))
            for label in index.labels
        ),
        *(
            Mention(role.target, role.role, Location(doc.path, role.line))
            for role in index.roles
            if role.role in REFERENCE_ROLES
        ),
        *(Mention(image.src, "image", Location(doc.path, image.line)) for image in index.images),
    ]
    return sorted(found, key=lambda mention: mention.location.line)


def unclosed_roles(doc: Document) -> list[tuple[int, str]]:
    """(line, role) of each role whose backtick never closes on its line (``:numref:`fig_a,``
    read on as text): what is left of a prose line once its roles and code spans are out."""
    found: list[tuple[int, str]] = []
    for number, text in doc.index.lines():
        if ":`" in text:
            rest = ROLE_OR_CODE.sub("", text)
            found.extend((number, m.group(1)) for m in UNCLOSED_ROLE.finditer(rest))
    return found


def check_references(root: Path, documents: tuple[Document, ...], reporter: Reporter) -> None:
    """Duplicate labels, references to no label, roles never closed, and images that are
    not there."""
    for doc in documents:
        for number, role in unclosed_roles(doc):
            message = f":{role}:` opened here has no closing backtick: it shows as text"
            reporter.warn(Location(doc.path, number), message, "ref.unclosed")
    all_mentions = [m for doc in documents for m in mentions(doc)]
    labels: dict[str, Mention] = {}
    for mention in all_mentions:
        if mention.kind not in ("label", "eqlabel"):
            continue
        first = labels.setdefault(mention.name, mention)
        if first is not mention:
            reporter.warn(
                mention.location,
                f"label {mention.name!r} is already defined at {first.location}",
                "ref.duplicate",
            )
    for mention in all_mentions:
        if mention.kind in REFERENCE_ROLES and mention.name not in labels:
            reporter.warn(
                mention.location,
                f":{mention.kind}:`{mention.name}` points to no :label: or :eqlabel:",
                "ref.missing",
            )
        elif mention.kind == "image" and "://" not in mention.name:
            base = PurePosixPath(mention.location.path).parent
            target = root / base / mention.name
            if not target.is_file():
                reporter.warn(
                    mention.location, f"figure {mention.name} is not there", "figure.missing"
                )
