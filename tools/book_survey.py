"""A book built as a new user would build it, and what came of it: exit status, time,
tracebacks, warnings by kind, and the site's pages that show raw d2l markup in their prose.

    python -m tools.book_survey BOOK [--target html|pdf] [--tab all] [--eval]

Works on a temporary copy of ``BOOK`` (never the book itself), with nothing executed unless
``--eval`` is given (``[build] eval_notebook = False`` set in the copy's ``config.ini``).
Prints one Markdown table row, then the raw-markup pages and the warning kinds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

KIND = re.compile(r"\[(polybook\.[\w.-]+)\]")
# Marks an author writes that a reader should never see in the prose of a page.
RAW_MARKS = {
    "slide mark": re.compile(r"^[\[(]\*\*$|\[\*\*|\*\*\]|\(\*\*(?!kw)|\*\*\)"),
    "tab mark": re.compile(r":(begin|end)_tab:|%%tab\b"),
    "role": re.compile(r":(numref|eqref|ref|label|eqlabel|cite|citet|citep):`"),
    "cell fence": re.compile(r"\{\.python \.input"),
    "pandoc div": re.compile(r"^:{3,}(\s|$)|\{\.slide\b|\{\.cols?\b|\{\.cover\}|\{\.divider\}"),
    "pandoc span": re.compile(r"\]\{\.[\w-]+\}"),
    "attribute": re.compile(r"\{\.unnumbered\}|\{width=|\{height="),
    "cell placeholder": re.compile(r"^@!?[a-z0-9][\w-]*(@[a-z]+)?$"),
}
HEADER = [
    "book",
    "target",
    "exit",
    "time",
    "pages",
    "tracebacks",
    "raw-markup pages",
    "warnings",
    "errors",
]
SKIPPED = {"pre", "code", "script", "style", "textarea", "kbd", "samp", "footer"}


class _ProseText(HTMLParser):
    """The text of a page outside code, scripts and styles, a line a text node."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.lines: list[str] = []
        self.last = ""  # the last character of text outside code

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED:
            self.depth += 1
        elif tag in ("strong", "del", "s") and not self.depth and self.last in ("[", "("):
            self.lines.append(f"{self.last}**")  # a slide mark shown, not read: [**text**]

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth:
            self.last = data[-1:] if data else self.last
            self.lines.extend(line.strip() for line in data.splitlines() if line.strip())


def raw_markup(site: Path) -> dict[str, list[str]]:
    """Pages of ``site`` (relative paths) whose prose shows raw marks, by kind of mark, each
    with the first line that shows it."""
    found: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        reader = _ProseText()
        reader.feed(page.read_text(encoding="utf-8", errors="replace"))
        for kind, pattern in RAW_MARKS.items():
            line = next((text for text in reader.lines if pattern.search(text)), None)
            if line is not None:
                name = page.relative_to(site).as_posix()
                found.setdefault(kind, []).append(f"{name} ({line[:60]!r})")
    return found


@dataclass
class Survey:
    book: str
    target: str
    status: int
    seconds: float
    tracebacks: int
    warnings: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    pages: int = 0
    raw: dict[str, list[str]] = field(default_factory=dict)

    def row(self) -> str:
        raw = sum(len(set(p)) for p in self.raw.values())
        return (
            f"| {self.book} | {self.target} | {self.status} | {self.seconds:.0f} s | {self.pages} "
            f"| {self.tracebacks} | {raw} | {sum(self.warnings.values())} "
            f"| {sum(self.errors.values())} |"
        )


def _copy(book: Path, into: Path, evaluate: bool) -> Path:
    root = into / book.name
    shutil.copytree(book, root, ignore=shutil.ignore_patterns("_build", ".git"), symlinks=True)
    config = root / "config.ini"
    if not evaluate and config.is_file():
        lines = config.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if not line.strip().startswith("eval_notebook")]
        if "[build]" not in (line.strip() for line in kept):
            kept.append("[build]")
        at = next(i for i, line in enumerate(kept) if line.strip() == "[build]")
        kept.insert(at + 1, "eval_notebook = False")
        config.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return root


def survey(book: Path, target: str, tab: str, evaluate: bool, keep: Path | None) -> Survey:
    with tempfile.TemporaryDirectory(prefix="survey-") as scratch:
        root = _copy(book, keep or Path(scratch), evaluate)
        command = [sys.executable, "-m", "polybook", "build", target, "--tab", tab]
        started = time.perf_counter()
        done = subprocess.run(
            command, cwd=root, capture_output=True, text=True, check=False, env=dict(os.environ)
        )
        seconds = time.perf_counter() - started
        output = done.stdout + done.stderr
        result = Survey(book.name, target, done.returncode, seconds, output.count("Traceback"))
        # Every message once as it comes; the closing summary repeats the errors, indented.
        for line in output.splitlines():
            kind = KIND.search(line)
            if kind:
                (result.errors if line.startswith("  ") else result.warnings)[kind.group(1)] += 1
        result.warnings.subtract(result.errors)
        result.warnings = +result.warnings
        site = root / "_build" / "html"
        if target == "html" and site.is_dir():
            result.pages = sum(1 for _ in site.rglob("*.html"))
            result.raw = raw_markup(site)
        elif target == "pdf":
            result.pages = sum(1 for _ in (root / "_build" / "pdf").glob("*.pdf"))
        (root.parent / f"{book.name}-{target}.log").write_text(output, encoding="utf-8")
        if keep is None:
            print(output[-3000:] if done.returncode else "", file=sys.stderr)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", type=Path)
    parser.add_argument("--target", default="html")
    parser.add_argument("--tab", default="all")
    parser.add_argument("--eval", action="store_true", help="execute the notebooks")
    parser.add_argument("--keep", type=Path, help="build the copy in this folder and keep it")
    parser.add_argument("--name", help="the book's name in the table (default: its folder's)")
    args = parser.parse_args()
    result = survey(args.book.resolve(), args.target, args.tab, args.eval, args.keep)
    result.book = args.name or result.book
    print(f"| {' | '.join(HEADER)} |")
    print("|---" * len(HEADER) + "|")
    print(result.row())
    for kind, pages in sorted(result.raw.items()):
        print(f"raw {kind}: {len(pages)} pages, e.g. {', '.join(pages[:3])}")
    for kind, count in result.warnings.most_common():
        print(f"warning {kind}: {count}")
    for kind, count in result.errors.most_common():
        print(f"error {kind}: {count}")


if __name__ == "__main__":
    main()
