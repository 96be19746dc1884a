"""``make bench``'s comparison with d2lbook: a cold ``build eval``, PyTorch on this host's CPU,
by polybook and by d2lbook 1.0.3 in the *same* Python, on copies of the book: the whole book as
its ``config.ini`` names it, less the pages that download (read from the book: a page that
calls what the committed library defines with a download in it, or downloads itself), which
fail under both on a host without the network; ``D2L_BENCH_SCOPE=chapters``: three chapters.

Needs what the project does not ship: a d2l-en checkout (``D2L_EN``) and a Python holding
d2lbook 1.0.3, the framework and d2l-en's packages (``D2LBOOK_PYTHON``); without them the
section says so and measures nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHAPTERS = ("chapter_preliminaries", "chapter_linear-regression", "chapter_builders-guide")
APPENDIX = "chapter_appendix-tools-for-deep-learning"  # utils.md completes the library
FAKE_SMI = "#!/bin/sh\necho 'GPU 0'\necho 'GPU 1'\n"  # d2lbook stops without nvidia-smi


DOWNLOADS = re.compile(r"\bdownload(?:_extract)?\(|DATA_HUB\[|\bdatasets\.|pretrained=True")
DEFINITION = re.compile(r"^(?:def|class) (\w+)", re.M)


def _downloading_names(library: str) -> set[str]:
    """The names of the library whose code downloads, directly or through another such."""
    bodies: dict[str, str] = {}
    for chunk in re.split(r"(?m)^(?=def |class )", library):
        found = DEFINITION.match(chunk)
        if found:  # its body: up to the next line at the module's level
            lines = chunk.split("\n")
            end = next((k for k, t in enumerate(lines) if k and t[:1].strip()), len(lines))
            bodies[found.group(1)] = "\n".join(lines[:end])
    names = {name for name, body in bodies.items() if DOWNLOADS.search(body)}
    while True:
        used = re.compile(r"\b(?:d2l\.)?(" + "|".join(map(re.escape, names)) + r")\b")
        more = {n for n, body in bodies.items() if n not in names and used.search(body)}
        if not more:
            return names
        names |= more


def offline_pages(book: Path, framework: str = "pytorch") -> list[str]:
    """The book's pages (its ``config.ini``'s ``notebooks`` less its ``exclusions``) that
    download nothing for ``framework``."""
    from polybook.config import load_config
    from polybook.source.book import source_files

    config = load_config(book)
    library = (book / config.library_for(framework).lib_file).read_text(encoding="utf-8")
    names = _downloading_names(library)
    uses = re.compile(r"\bd2l\.(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    pages = []
    for page in source_files(book, config.build):
        text = (book / page).read_text(encoding="utf-8")
        if not (uses.search(text) or DOWNLOADS.search(text)):
            pages.append(page)
    return pages


def _pages(book: Path) -> list[str]:
    pages = ["index.md", f"{APPENDIX}/index.md", f"{APPENDIX}/utils.md"]
    for chapter in CHAPTERS:
        pages += sorted(p.relative_to(book).as_posix() for p in (book / chapter).glob("*.md"))
    return pages


def _copy(book: Path, target: Path, python: str | None, pages: list[str] | None) -> Path:
    """A copy of ``book``: its ``notebooks`` set to ``pages`` (None: the book's own, whole),
    its PyTorch in ``python``."""
    shutil.copytree(book, target, ignore=shutil.ignore_patterns("_build", ".git"))
    config = target / "config.ini"
    text = config.read_text()
    if pages is not None:
        text = re.sub(r"(?m)^notebooks = .*$", "notebooks = " + " ".join(pages), text)
    if python:
        text += f"\n[env-pytorch]\npython = {python}\n"
    config.write_text(text)
    return target


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(command, check=False, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def _compare(
    book: Path, python: str, folder: Path, name: str, pages: list[str], whole: bool
) -> tuple[float, int, float, int]:
    """d2lbook's and polybook's cold eval of ``pages``: each one's seconds and failed pages.
    ``whole``: polybook builds the whole book as its ``config.ini`` has it (its library from
    every page) and executes ``pages``, named on its command line; d2lbook, which executes
    against the committed library, is given ``pages`` as its ``notebooks``."""
    ours = _copy(book, folder / f"polybook-{name}", python, None if whole else pages)
    theirs = _copy(book, folder / f"d2lbook-{name}", None, pages)
    env = {**os.environ, "PYTHONPATH": str(theirs)}
    env["PATH"] = f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    d2lbook = str(Path(python).parent / "d2lbook")
    their_time, _, their_log = _timed([d2lbook, "build", "eval", "--tab", "pytorch"], theirs, env)
    command = [sys.executable, "-m", "polybook", "--root", str(ours), "build", "eval"]
    named = pages if whole else []
    our_time, _, our_log = _timed([*command, "--tab", "pytorch", *named], ours, dict(os.environ))
    failed_theirs = len(
        set(re.findall(r'Task "Evaluating \./(\S+)"[^\n]*exited with error', their_log))
    )
    errors = our_log.split("error(s):")[-1] if "error(s):" in our_log else ""
    failed_ours = len(set(re.findall(r"^\s*(\S+\.md):\d+ \[pytorch\] cell \d+: ", errors, re.M)))
    return their_time, failed_theirs, our_time, failed_ours


def _rows(label: str, figures: tuple[float, int, float, int]) -> list[tuple[str, str, str]]:
    their_time, failed_theirs, our_time, failed_ours = figures
    return [
        (f"{label}, PyTorch: d2lbook cold eval", f"{their_time:.1f} s, {failed_theirs} failed", ""),
        (f"{label}, PyTorch: polybook cold eval", f"{our_time:.1f} s, {failed_ours} failed", ""),
        (f"{label}: d2lbook / polybook", f"{their_time / our_time:.1f}x", ">= 3"),
    ]


def d2lbook_figures() -> list[tuple[str, str, str]]:
    """Rows for ``show``: each tool's cold eval and the ratio, of the whole book's pages that
    download nothing (or three chapters), or why nothing was measured."""
    book, python = os.environ.get("D2L_EN", ""), os.environ.get("D2LBOOK_PYTHON", "")
    if not (book and python and (Path(book) / "config.ini").is_file()):
        why = "set D2L_EN (a d2l-en checkout) and D2LBOOK_PYTHON (d2lbook 1.0.3, torch)"
        return [("d2l-en, PyTorch: not measured", why, "")]
    source = Path(book)
    offline = offline_pages(source)
    with tempfile.TemporaryDirectory(prefix="polybook-d2lbook-") as tmp:
        folder = Path(tmp)
        (folder / "bin").mkdir()
        smi = folder / "bin" / "nvidia-smi"
        smi.write_text(FAKE_SMI)
        smi.chmod(0o755)
        if os.environ.get("D2L_BENCH_SCOPE") == "chapters":  # the quicker, older figure
            three = _compare(source, python, folder, "3", _pages(source), False)
            return _rows("d2l-en (3 chapters)", three)
        whole = _compare(source, python, folder, "book", offline, True)
    return _rows(f"d2l-en whole book ({len(offline)} pages that download nothing)", whole)
