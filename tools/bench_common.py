"""What the benchmark's sections share: the repository, a copy of the book, the table printed."""

from __future__ import annotations

import shutil
from pathlib import Path

from tools.bench_baseline import beside

REPO = Path(__file__).resolve().parent.parent
BOOK_FILES = ("config.ini", "index.md", "d2l.bib")
BOOK_DIRS = ("img", "d2l", "static")


def copy_book(src: Path, dst: Path) -> None:
    """The book at ``src`` copied to ``dst``, its environments links to the repository's."""
    from polybook.config.declarations import SHIPPED
    from polybook.layout import ENVS_DIR

    dst.mkdir(parents=True)
    for name in BOOK_FILES:
        shutil.copy2(src / name, dst / name)
    for folder in [*BOOK_DIRS, *(p.name for p in src.glob("chapter_*"))]:
        if (src / folder).is_dir():
            shutil.copytree(src / folder, dst / folder)
    (dst / ENVS_DIR).mkdir()
    for name in SHIPPED:
        if (REPO / ENVS_DIR / name).is_dir():
            (dst / ENVS_DIR / name).symlink_to((REPO / ENVS_DIR / name).resolve())


def show(title: str, rows: list[tuple[str, str, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    print(title)
    for name, value, target in rows:
        aim = f"   [target {target}]" if target else ""
        print(f"  {name:<{width}}  {value}{aim}{beside(name, value)}")
