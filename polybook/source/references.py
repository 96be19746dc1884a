"""Labels, references and figures of a whole book, checked without rendering it.

Labels come from ``:label:`` / ``:eqlabel:`` lines, references from ``:numref:``,
``:ref:`` and ``:eqref:`` roles, figures from ``![caption](path)`` images; each is kept
with its page and line, so problems are reported where the author wrote them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from polybook.diagnostics import Location, Reporter
from polybook.source.model import Document, Prose, TabProse

LABEL = re.compile(r"^\s*:(label|eqlabel):`([^`]+)`\s*$")
# An equation's label on its closing line, as some d2l pages write it: `$$ … $$ :eqlabel:`x``.
TRAILING_EQLABEL = re.compile(r"^(?P<math>.*\$\$)\s*:eqlabel:`(?P<label>[^`]+)`\s*$")
# A role's target is between backticks, one each side (some d2l pages write two).
REF = re.compile(r":(numref|ref|eqref):(``?)([^`]+)\2")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXPLICIT = re.compile(r"<([^<>]+)>\s*$")  # :numref:`Title %s <label>`
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Mention:
    """A label, reference or image path at a place in the book."""

    name: str
    kind: str
    location: Location


def _prose_lines(doc: Document) -> list[tuple[int, str]]:
    """(source line, text) of every prose line outside fenced examples."""
    found: list[tuple[int, str]] = []
    for block in doc.blocks:
        if not isinstance(block, (Prose, TabProse)):
            continue
        fence = ""
        for offset, text in enumerate(block.text.split("\n")):
            opener = FENCE.match(text)
            if fence:
                if opener and opener.group(1).startswith(fence):
                    fence = ""
                continue
            if opener:
                fence = opener.group(1)
                continue
            found.append((block.line + offset, text))
    return found


def mentions(doc: Document) -> list[Mention]:
    """Labels, references and images of one page, in order."""
    found: list[Mention] = []
    for line, text in _prose_lines(doc):
        where = Location(doc.path, line)
        label = LABEL.match(text)
        if label:
            found.append(Mention(label.group(2).strip(), label.group(1), where))
            continue
        if trailing := TRAILING_EQLABEL.match(text):
            found.append(Mention(trailing.group("label").strip(), "eqlabel", where))
        for role, _, target in REF.findall(text):
            explicit = EXPLICIT.search(target)
            name = explicit.group(1) if explicit else target
            found.append(Mention(name.strip(), role, where))
        for src in IMAGE.findall(text):
            found.append(Mention(src, "image", where))
    return found


def check_references(root: Path, documents: tuple[Document, ...], reporter: Reporter) -> None:
    """Duplicate labels, references to no label, and images that are not there."""
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
        if mention.kind in ("numref", "ref", "eqref") and mention.name not in labels:
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
