"""One way to make a folder hold a set of files (``fsutil.sync_files``): the site's extra
files, the compat record, MathJax's fonts and the outputs the site holds all go through it,
each with its own comparison and its own folders to prune."""

from __future__ import annotations

import os
from pathlib import Path

from polybook.fsutil import files_under, same_bytes, same_stamp, sync_files


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file()}


def test_a_folder_is_made_to_hold_the_files_wanted_and_no_other(tmp_path: Path) -> None:
    source, copy = tmp_path / "source", tmp_path / "copy"
    (source / "deep").mkdir(parents=True)
    (source / "a.txt").write_text("a")
    (source / "deep" / "b.txt").write_text("b")
    (copy / "old").mkdir(parents=True)
    (copy / "old" / "gone.txt").write_text("gone")
    assert sync_files(files_under(source), copy) == 3  # two copied, one removed
    assert _tree(copy) == {"a.txt": "a", "deep/b.txt": "b"}
    assert not (copy / "old").exists()  # emptied: removed
    assert sync_files(files_under(source), copy) == 0


def test_the_comparison_and_the_folders_pruned_are_the_callers(tmp_path: Path) -> None:
    source, copy = tmp_path / "source", tmp_path / "copy"
    source.mkdir()
    (source / "page.txt").write_text("one")
    (copy / "kept").mkdir(parents=True)
    (copy / "kept" / "theirs.txt").write_text("not ours")
    (copy / "owned").mkdir()
    (copy / "owned" / "stale.txt").write_text("ours")
    assert sync_files(files_under(source), copy, same_stamp, prune=["owned"]) == 2
    assert _tree(copy) == {"page.txt": "one", "kept/theirs.txt": "not ours"}
    (source / "page.txt").write_text("two")  # the same size, an older time
    os.utime(source / "page.txt", ns=(0, 0))
    assert sync_files(files_under(source), copy, same_bytes, prune=()) == 1
    assert (copy / "page.txt").read_text() == "two"
    assert sync_files(files_under(source), copy, same_stamp, prune=()) == 0  # its time copied
