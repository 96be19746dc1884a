"""polybook's notebooks against d2lbook 1.0.3's, page by page and framework by framework: the
code cells each holds (whitespace aside: d2lbook writes the code it rewrites anew) and the
libraries its ``#required_libs`` installs.

``python -m tools.d2lbook_diff BOOK…`` prints each page × framework notebook that differs,
the first differing cell of each, then ``K of N notebooks differ`` (N: the pairs where either
tool makes a notebook with code); it exits 1 when any differs. d2lbook's side is its own
reader (:mod:`tools.d2lbook_reader`), run in ``.envs/d2lbook-reader``, which is made here
from ``requirements/d2lbook-reader.txt`` (what the reader imports) and
``requirements/d2lbook-reader-nodeps.txt`` (d2lbook itself, without the Sphinx, AWS and
Jupyter its package declares) where missing or made from other pins (``make
d2lbook-reader``, or ``--setup`` alone).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tokenize
import uuid
from dataclasses import dataclass
from pathlib import Path

from polybook.config import load_config
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.environments import atomic, installer
from polybook.library.rewrite import rewrite_notebook, rewriters
from polybook.meta import notebook_meta
from polybook.source.book import decode_page, source_files
from polybook.source.parse import parse
from polybook.source.split import split

REPO = Path(__file__).resolve().parent.parent
REQUIREMENTS = REPO / "requirements" / "d2lbook-reader.txt"
NO_DEPS = REPO / "requirements" / "d2lbook-reader-nodeps.txt"
READER_ENV = REPO / ".envs" / "d2lbook-reader"
READER = Path(__file__).resolve().parent / "d2lbook_reader.py"
STAMP = ".stamp"  # the digest of the pins it was made from, written last
SKIPPED = {tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
LAYOUT = {tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>", tokenize.NEWLINE: "<newline>"}

Pair = tuple[str, str]  # (page, framework)


# d2lbook's reader, in a venv of its own


def _pins() -> str:
    digest = hashlib.sha256(f"{sys.version_info[:2]}".encode())
    for file in (REQUIREMENTS, NO_DEPS):
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _made(env: Path) -> bool:
    stamp = env / STAMP
    return stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == _pins()


def reader_python(env: Path = READER_ENV) -> Path:
    """The Python of d2lbook's reader: the venv at ``env``, made first (aside, then renamed
    into place, behind a lock) where it is missing or made from other pins."""
    if _made(env):
        return env / "bin" / "python"
    with atomic.locked(env.parent / f".{env.name}.lock", str(env)):
        if not _made(env):
            atomic.clear_leftovers(env)
            _make(env)
    return env / "bin" / "python"


def _make(env: Path) -> None:
    building = env.parent / f".{env.name}{atomic.PARTIAL}{uuid.uuid4().hex[:8]}"
    where, failed = Location(str(REQUIREMENTS)), "d2lbook's reader could not be set up"
    try:
        installer.make_venv(building, where, failed)
        python = building / "bin" / "python"
        installer.install(python, [f"--requirement={REQUIREMENTS}"], where, failed)
        installer.install(python, ["--no-deps", f"--requirement={NO_DEPS}"], where, failed)
        (building / STAMP).write_text(_pins() + "\n", encoding="utf-8")
        if env.exists() or env.is_symlink():
            retired = env.parent / f".{env.name}{atomic.RETIRED}{uuid.uuid4().hex[:8]}"
            env.rename(retired)
            shutil.rmtree(retired, ignore_errors=True)
        building.rename(env)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


# What each tool makes of a page


@dataclass(frozen=True)
class Side:
    """One tool's notebook of a page for a framework: its code cells (blank ones left out),
    what it installs first, or why the tool made none."""

    code: tuple[str, ...] = ()
    required_libs: tuple[str, ...] = ()
    error: str = ""

    def __bool__(self) -> bool:
        return bool(self.code or self.required_libs or self.error)


def _side(code: list[str], required: list[str] | tuple[str, ...], error: str = "") -> Side:
    # d2lbook keeps the quotes of ``#required_libs("gym==0.21.0")`` (pip's shell drops them).
    libraries = tuple(str(r).strip().strip("'\"") for r in required)
    return Side(tuple(c for c in code if c.strip()), libraries, error)


def polybook_notebooks(root: Path) -> tuple[list[str], tuple[str, ...], dict[Pair, Side]]:
    """The book's pages and tabs, and polybook's notebook of each page for each tab."""
    config = load_config(root)
    book = config.book
    reporter = Reporter(quiet=True)
    pages = source_files(root, config.build)
    aliases = rewriters(book, book.tabs, reporter)
    found: dict[Pair, Side] = {}
    for page in pages:
        try:
            doc = parse(decode_page((root / page).read_bytes(), page, reporter), page, book.tabs)
            for fw in book.tabs:
                nb = split(doc, book.framework(fw), book.tabs, reporter=reporter)
                nb = rewrite_notebook(nb, aliases[fw])
                code = [c.source for c in nb.cells if c.cell_type == "code"]
                found[(page, fw)] = _side(code, notebook_meta(nb).required_libs)
        except PolybookError as err:
            for fw in book.tabs:
                found[(page, fw)] = _side([], [], str(err))
    return pages, book.tabs, found


def d2lbook_notebooks(
    python: Path, root: Path, pages: list[str], tabs: tuple[str, ...]
) -> dict[Pair, Side]:
    """d2lbook's notebook of each page for each of the book's tabs (its reader, in its venv)."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(python), str(READER)],
        input=json.dumps({"pages": pages}),
        capture_output=True,
        text=True,
        cwd=root,
        env=environ,
        check=False,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise PolybookError(Location(str(root)), f"d2lbook's reader failed:\n{tail}", "d2lbook")
    found: dict[Pair, Side] = {}
    for page, read in json.loads(done.stdout).items():
        made_for = dict.fromkeys(tabs, read) if "error" in read else read  # the page's own
        for fw, made in made_for.items():
            if made is None:
                found[(page, fw)] = Side()
            elif "error" in made:
                found[(page, fw)] = _side([], [], f"d2lbook: {made['error']}")
            else:
                found[(page, fw)] = _side(made["code"], made["required_libs"])
    return found


# The comparison


def _token(kind: int, text: str) -> str:
    """A token as compared: a literal by its value (d2lbook writes ``"a"`` as ``'a'``)."""
    if kind in (tokenize.STRING, tokenize.NUMBER):
        with contextlib.suppress(ValueError, SyntaxError):
            return repr(ast.literal_eval(text))
    return LAYOUT.get(kind, text.strip())


def code_tokens(code: str) -> tuple[str, ...]:
    """``code``'s tokens, comments and nesting, whitespace aside: the spaces between
    tokens, where lines break inside brackets, how deep a block is indented, how a literal
    is written. Code that does not tokenize: its text without whitespace."""
    try:
        read = io.StringIO(code.strip("\n") + "\n").readline
        tokens = [t for t in tokenize.generate_tokens(read) if t.type not in SKIPPED]
    except (tokenize.TokenError, SyntaxError):
        return ("".join(code.split()),)
    return tuple(_token(t.type, t.string) for t in tokens)


@dataclass(frozen=True)
class Difference:
    page: str
    framework: str
    why: str
    detail: str = ""  # the first differing cell, as a diff of d2lbook's and polybook's
    cells: tuple[int, ...] = ()  # the code cells that differ (1-based), where both hold as many


def _cell_diff(theirs: str, ours: str, lines: int) -> str:
    diff = difflib.unified_diff(
        theirs.strip("\n").split("\n"), ours.strip("\n").split("\n"), "d2lbook", "polybook", n=1
    )
    return "\n".join(line.rstrip("\n") for line in list(diff)[:lines])


def difference(pair: Pair, ours: Side, theirs: Side, lines: int = 12) -> Difference | None:
    """How polybook's notebook differs from d2lbook's; None when it does not."""
    if ours.error or theirs.error:
        return Difference(*pair, ours.error or theirs.error) if ours.error != theirs.error else None
    cells = [
        k
        for k, (mine, other) in enumerate(zip(ours.code, theirs.code, strict=False))
        if code_tokens(mine) != code_tokens(other)
    ]
    if cells and len(ours.code) == len(theirs.code):
        k = cells[0]
        numbers = ", ".join(str(c + 1) for c in cells)
        why = f"code cells {numbers} differ" if len(cells) > 1 else f"code cell {numbers} differs"
        detail = _cell_diff(theirs.code[k], ours.code[k], lines)
        return Difference(*pair, why, detail, tuple(c + 1 for c in cells))
    if len(ours.code) != len(theirs.code):
        k = min(len(ours.code), len(theirs.code))
        extra = (ours.code if len(ours.code) > k else theirs.code)[k]
        why = f"{len(theirs.code)} code cells in d2lbook's, {len(ours.code)} in polybook's"
        return Difference(*pair, why, f"the first unmatched:\n{extra.strip()}"[:600])
    if ours.required_libs != theirs.required_libs:
        libraries = (list(theirs.required_libs), list(ours.required_libs))
        return Difference(*pair, "required_libs: d2lbook {}, polybook {}".format(*libraries))
    return None


@dataclass(frozen=True)
class Comparison:
    notebooks: int  # pairs where either tool makes a notebook with code (or an error)
    differences: list[Difference]


def compare(root: Path, python: Path, lines: int = 12) -> Comparison:
    """Every page of the book at ``root``, for each of its tabs, read by both tools."""
    pages, tabs, ours = polybook_notebooks(root)
    theirs = d2lbook_notebooks(python, root, pages, tabs)
    pairs = [pair for pair in ours if ours[pair] or theirs.get(pair, Side())]
    found = [difference(p, ours[p], theirs.get(p, Side()), lines) for p in pairs]
    return Comparison(len(pairs), [d for d in found if d is not None])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.d2lbook_diff", description=__doc__)
    parser.add_argument("books", nargs="*", type=Path, help="book folders (with config.ini)")
    parser.add_argument("--python", type=Path, help="a Python with d2lbook's reader")
    parser.add_argument("--lines", type=int, default=12, help="diff lines shown a notebook")
    parser.add_argument("--setup", action="store_true", help="make the reader's venv, only")
    args = parser.parse_args(argv)
    try:
        python = args.python or reader_python()
        if args.setup:
            print(python)
            return 0
        differing = 0
        for root in args.books:
            found = compare(root.resolve(), python, args.lines)
            for diff in found.differences:
                print(f"{diff.page} [{diff.framework}]: {diff.why}")
                if diff.detail:
                    print("    " + diff.detail.replace("\n", "\n    "))
            count = len(found.differences)
            print(f"{root}: {count} of {found.notebooks} page × framework notebooks differ")
            differing += count
    except PolybookError as err:
        print(err, file=sys.stderr)
        return 2
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
