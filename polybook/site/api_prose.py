"""Descriptions for saved names without a docstring, from the book's own prose: the sentence
before the code that names it (nearest first), else the first sentence of the prose that
all frameworks share just before that code. The API pages show it where the docstring
would be."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from polybook.memo import memoised
from polybook.source.model import Document, Prose, TabProse

# Per framework, per page path: (line, text, shared by all) of each prose block it reads.
PageProse = Sequence[tuple[int, str, bool]]
ProseIndex = Mapping[str, Mapping[str, PageProse]]

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\[*])")
ROLE = re.compile(r":(?:numref|ref|eqref|cite|label|citet|citep):`[^`]*`")  # cross-references
HEADING = re.compile(r"^#+\s.*$", re.M)
MARKUP = re.compile(r"\[\*\*|\*\*\]|\*\*")  # d2l's [**...**] marks, bold
SPACE_BEFORE = re.compile(r"\s+([.,;:!?])")
LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")  # a Markdown link: its text
MAX_CHARS = 400


def prose_index(
    documents: Sequence[Document], tabs: Sequence[str]
) -> dict[str, dict[str, list[tuple[int, str, bool]]]]:
    """Each framework's prose blocks by page, in page order."""
    index: dict[str, dict[str, list[tuple[int, str, bool]]]] = {fw: {} for fw in tabs}
    for doc in documents:
        for block in doc.blocks:
            if isinstance(block, Prose):
                readers: Sequence[str] = tabs
            elif isinstance(block, TabProse):
                readers = [fw for fw in block.frameworks if fw in index]
            else:
                continue
            for fw in readers:
                shared = isinstance(block, Prose)
                index[fw].setdefault(doc.path, []).append((block.line, block.text, shared))
    return index


@memoised(65536)
def _sentences(text: str) -> tuple[str, ...]:
    """The plain sentences of a prose block (each block split once a process: the API pages
    look through the same blocks for many names, at each build)."""
    plain = LINK.sub(r"\1", MARKUP.sub("", ROLE.sub("", HEADING.sub("", text))))
    plain = SPACE_BEFORE.sub(r"\1", " ".join(plain.split()))
    return tuple(s for s in SENTENCE_END.split(plain) if s and not s.startswith(":"))


def _names(name: str, sentence: str) -> bool:
    short = name.rpartition(".")[2]
    return any(f"`{n}`" in sentence or f"`{n}(" in sentence for n in {name, short})


def described(name: str, page: PageProse, line: int) -> str:
    """What the prose of ``page`` before ``line`` says of ``name``; "" if it has none."""
    before = [(text, shared) for start, text, shared in page if start < line][::-1]
    for text, _ in before:
        for sentence in _sentences(text):
            if _names(name, sentence):
                return sentence[:MAX_CHARS]
    nearest = [_sentences(text) for text, shared in before if shared][:1]
    return nearest[0][0][:MAX_CHARS] if nearest and nearest[0] else ""
