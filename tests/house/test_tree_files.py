"""One walk of a book's folder for the checks each build repeats (the fingerprint, the static
files' digest, the resources copied): what it lists, and digests that follow the files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from polybook.fsutil import tree_files, tree_hash


def _folder(tmp_path: Path) -> Path:
    folder, elsewhere = tmp_path / "img", tmp_path / "elsewhere"
    (folder / "sub" / "deeper").mkdir(parents=True)
    (folder / "__pycache__").mkdir()
    (elsewhere / "inner").mkdir(parents=True)
    (folder / "b.png").write_text("b")
    (folder / "a.png").write_text("a")
    (folder / "sub" / "deeper" / "c.svg").write_text("c")
    (folder / "__pycache__" / "x.pyc").write_text("compiled")
    (elsewhere / "target.png").write_text("linked to")
    (elsewhere / "inner" / "hidden.png").write_text("behind a linked folder")
    (folder / "link.png").symlink_to(elsewhere / "target.png")
    (folder / "linked").symlink_to(elsewhere / "inner")
    (folder / "broken.png").symlink_to(tmp_path / "missing.png")
    return folder


def test_a_walk_lists_files_as_rglob_finds_them_with_their_stamps(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    found = tree_files(folder)
    assert [name for name, _, _ in found] == ["a.png", "b.png", "link.png", "sub/deeper/c.svg"]
    by_name = {name: (path, stamp) for name, path, stamp in found}
    assert by_name["sub/deeper/c.svg"][0] == str(folder / "sub" / "deeper" / "c.svg")
    target = os.stat(tmp_path / "elsewhere" / "target.png")  # a link: its file's stamp
    assert by_name["link.png"][1] == (
        target.st_ino,
        target.st_size,
        target.st_mtime_ns,
        target.st_ctime_ns,
    )
    assert tree_files(tmp_path / "none") == [] and tree_files(folder / "a.png") == []


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    tree_hash(digest, folder)
    return digest.hexdigest()


def test_a_folder_s_digest_follows_its_files_names_and_contents(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    first = _digest(folder)
    assert _digest(folder) == first
    (folder / "__pycache__" / "x.pyc").write_text("compiled again")
    (tmp_path / "elsewhere" / "inner" / "hidden.png").write_text("changed")
    assert _digest(folder) == first  # neither is walked
    (folder / "a.png").write_text("A")  # the same size: told by its stamp
    assert _digest(folder) != first
    (folder / "a.png").write_text("a")
    assert _digest(folder) == first  # the content as it was
    (tmp_path / "elsewhere" / "target.png").write_text("the linked file changed")
    assert _digest(folder) != first
    (tmp_path / "elsewhere" / "target.png").write_text("linked to")
    (folder / "sub" / "deeper" / "c.svg").rename(folder / "sub" / "c.svg")
    assert _digest(folder) != first  # a file moved
