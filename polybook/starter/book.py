"""``polybook new DIR``: a minimal book that builds at once, its requirement files copies of
the pinned sets polybook ships (the environments' identity is their pins), and with
``--ci github`` the workflow that builds and deploys it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from polybook.config.declarations import shipped
from polybook.diagnostics import Location, PolybookError
from polybook.fsutil import write_atomic
from polybook.starter import github, pages
from polybook.starter.pin import polybook_requirement
from polybook.starter.repository import book_repository

DEVICES = ("cpu", "cuda")


def _frameworks(given: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in given.split(",") if n.strip()))
    unknown = [n for n in names if n not in pages.EXAMPLES]
    if unknown or not names:
        message = (
            f"unknown framework {unknown[0]!r}: " if unknown else "no framework named: "
        ) + f"polybook new knows {', '.join(pages.EXAMPLES)} (declare others in config.ini)"
        raise PolybookError(Location("--frameworks"), message, "new")
    return names


def book_files(name: str, names: tuple[str, ...], repository: str = "") -> dict[str, str]:
    """The new book's files (path -> text), requirement files apart; ``repository``: the
    GitHub repository it lives in."""
    title = re.sub(r"[-_]+", " ", name).strip().title() or "Book"
    return {
        "config.ini": pages.config_ini(name, title, names, repository),
        "index.md": pages.index_md(title),
        "chapter_intro/index.md": pages.chapter_index(),
        "chapter_intro/tensors.md": pages.section(names),
        ".gitignore": pages.GITIGNORE,
        "requirements/polybook.txt": (
            "# The polybook that builds this book (its CI installs this file).\n"
            + polybook_requirement()
        ),
    }


def _own_files(target: Path) -> list[Path]:
    """What ``target`` holds besides a git repository's own folder (a fresh clone)."""
    return [p for p in target.iterdir() if p.name != ".git"]


def new_book(target: Path, given: str, ci: str = "", gpu_runner: str = "") -> int:
    """Write a new book into ``target`` (new, or an empty folder) and print what to run."""
    names = _frameworks(given)
    if gpu_runner and ci != "github":
        message = "names the runner of a CI workflow: give --ci github too"
        raise PolybookError(Location("--gpu-runner"), message, "new")
    if target.exists() and (not target.is_dir() or any(_own_files(target))):
        message = "exists and is not an empty folder: polybook new writes a new book only"
        raise PolybookError(Location(str(target)), message, "new")
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", target.resolve().name).strip("-") or "book"
    repository = book_repository(target) if ci == "github" else ""
    files = book_files(name, names, repository)
    if ci == "github":
        files |= github.workflow_files(names, gpu_runner)
    for rel, text in files.items():
        write_atomic(target / rel, text)
    for fw in names:
        for device in DEVICES:
            pinned = shipped(fw).requirements(device)
            (target / "requirements" / device).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pinned, target / "requirements" / device / f"{fw}.txt")
    print(f"made a book in {target}: {', '.join(sorted({f.split('/')[0] for f in files}))}")
    if ci == "github" and not repository:
        print(
            "no GitHub remote (origin) found: set [project] repository = owner/name in"
            " config.ini for the pages' “Open in Colab / SageMaker Studio Lab” buttons"
        )
    print("next:")
    for command, why in (
        (f"cd {target}", ""),
        ("polybook env setup", "an environment per framework, in .envs/"),
        ("polybook env assets", "MathJax, for math that works offline (npm)"),
        ("polybook build html", "the site: _build/html/index.html"),
        ("polybook serve", "rebuild and reload on every save"),
        ("polybook doctor", "what is installed, what is missing"),
    ):
        print(f"  {command:<22}# {why}" if why else f"  {command}")
    return 0
