"""d2l's roles as the reader reads them where Sphinx does not render the page (students'
notebooks, slides): ":numref:`sec_x`" becomes "Section 3.2", ":eqref:`eq_x`" "(3.1.4)",
":cite:`He.2016`" "(He et al., 2016)", each a Markdown link to the site where there is one.
Code (spans and fences) is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polybook.memo import FileMemo
from polybook.source.numbering import Target
from polybook.source.scan import CITE_ROLES, EXPLICIT, ROLE, ROLE_OR_CODE, scan

FORMATS = {"section": "Section {}", "figure": "Fig. {}", "table": "Table {}", "equation": "({})"}
KINDS = {"fig": "Fig.", "tab": "Table", "sec": "Section", "subsec": "Section", "chap": "Chapter"}
REFERENCES_PAGE = "references"
Link = Callable[[str, str], str]  # (page, anchor) -> URL, "" for none


def unresolved(target: str, role: str) -> str:
    """What a reference to ``target`` reads as when it names nothing: "Fig. “lstm 2”"."""
    prefix, _, rest = target.partition("_")
    kind = "" if prefix.lower() == "eq" else KINDS.get(prefix.lower()) if rest else None
    words = " ".join(re.split(r"[_\-]+", rest if kind is not None else target)).strip()
    if role == "eqref" or kind == "":
        return f"({words})"
    return f"{kind} “{words}”" if kind else f"“{words}”"


@dataclass(frozen=True)
class Citation:
    """What an author-year citation shows of a BibTeX entry."""

    authors: str  # "He", "He and Zhang", "He et al."
    year: str
    entry: str = ""  # the whole entry, as a list of references shows it


def _plain(text: str) -> str:
    """BibTeX's text without its braces and escapes."""
    return re.sub(r"\\[a-zA-Z]+\s*|[{}\\]", "", text).strip()


def _person(person: Any) -> str:
    """A person as a list of references names them: "He, Kaiming"."""
    last = _plain(" ".join(person.last_names))
    first = _plain(" ".join([*person.first_names, *person.middle_names]))
    return f"{last}, {first}" if first else last


def _entry(names: list[str], fields: Mapping[str, str], year: str) -> str:
    """An entry as a list of references shows it: "He, Kaiming; Zhang, Xiangyu (2016).
    Deep residual learning. *CVPR*."."""
    title = _plain(fields.get("title", ""))
    venue = _plain(
        fields.get("journal") or fields.get("booktitle") or fields.get("publisher") or ""
    )
    text = "; ".join(names) + (f" ({year})" if year else "") + "."
    text += f" {title}." if title else ""
    return text + (f" *{venue}*." if venue else "")


_CITATIONS: FileMemo[dict[str, Citation]] = FileMemo(4)  # while the file is unchanged


def read_citations(path: Path | None) -> dict[str, Citation]:
    """The entries of the BibTeX file at ``path`` (none when it is missing or unreadable),
    read once while the file is unchanged (the caller only reads them)."""
    if path is None or not path.is_file():
        return {}
    found = path.resolve()
    return _CITATIONS.value([found], lambda: _parse_citations(found))


def _parse_citations(path: Path) -> dict[str, Citation]:
    from pybtex.database import parse_file  # type: ignore[import-untyped]
    from pybtex.scanner import PybtexError  # type: ignore[import-untyped]

    try:
        data = parse_file(str(path), "bibtex")
    except (PybtexError, OSError, UnicodeDecodeError):
        return {}
    found = {}
    for key, entry in data.entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [re.sub(r"[{}\\]", "", " ".join(p.last_names)) for p in people]
        authors = f"{names[0]} et al." if len(names) > 2 else " and ".join(names) or key
        full = [_person(p) for p in people]
        year = str(entry.fields.get("year", ""))
        found[key] = Citation(authors, year, _entry(full, entry.fields, year))
    return found


@dataclass(frozen=True)
class Readable:
    """Rewrites roles in prose; ``link`` makes the URL of a place in the site."""

    targets: Mapping[str, Target]
    citations: Mapping[str, Citation] = field(default_factory=dict)
    link: Link = lambda page, anchor: ""

    def _linked(self, text: str, page: str, anchor: str) -> str:
        url = self.link(page, anchor)
        return f"[{text}]({url})" if url else text

    def _reference(self, role: str, spec: str) -> str:
        explicit = EXPLICIT.match(spec)
        title, label = (explicit.group(1), explicit.group(2)) if explicit else ("", spec)
        target = self.targets.get(label.strip())
        if target is None:
            return title.replace("%s", "").strip() or unresolved(label.strip(), role)
        number = target.number
        if role == "ref":
            text = title or target.title or FORMATS[target.kind].format(number)
        elif role == "eqref":
            text = f"({number})"
        elif title:
            text = title.replace("%s", number).replace("{number}", number)
        else:
            text = FORMATS[target.kind].format(number) if number else target.title
        return self._linked(text, target.page, target.anchor)

    def _citation(self, role: str, keys: str) -> str:
        cited = [(k.strip(), self.citations.get(k.strip())) for k in keys.split(",") if k.strip()]
        if role == "citet":
            parts = [f"{c.authors} ({c.year})" if c else f"[{k}]" for k, c in cited]
            text = "; ".join(parts)
        else:
            text = "(" + "; ".join(f"{c.authors}, {c.year}" if c else k for k, c in cited) + ")"
        return self._linked(text, REFERENCES_PAGE, "")

    def _role(self, match: re.Match[str]) -> str:
        role, spec = match.group(1), match.group(3)
        if role in CITE_ROLES:
            return self._citation(role, spec)
        return self._reference(role, spec)

    def line(self, text: str) -> str:
        """One prose line (outside code) with its roles as readers read them."""
        if ":" not in text:
            return text
        return ROLE_OR_CODE.sub(lambda m: m.group(0) if m.group(4) else self._role(m), text)

    def text(self, source: str) -> str:
        """``source`` (Markdown) with its roles as readers read them."""
        if ":" not in source or not ROLE.search(source):
            return source
        lines = source.split("\n")
        for number, text in scan(source, 0).lines():
            lines[number] = self.line(text)
        return "\n".join(lines)


def site_link(site_url: str, framework: str) -> Link:
    """Links into the published site (``[project] site_url``; none without it), its tabs set
    to ``framework``."""
    base = site_url.rstrip("/")

    def link(page: str, anchor: str) -> str:
        if not base:
            return ""
        return f"{base}/{page}.html?tab={framework}" + (f"#{anchor}" if anchor else "")

    return link
