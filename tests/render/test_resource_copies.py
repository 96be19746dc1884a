"""A resource folder copied into the site's sources (``render.sources``): its files and the
links that stay in the book, not a link out of it, nor what a linked folder holds."""

from __future__ import annotations

from pathlib import Path

from polybook.confine import Confinement
from polybook.render.sources import _sync_resource


def test_a_resource_folder_is_copied_less_what_leads_out_of_the_book(tmp_path: Path) -> None:
    book, host = tmp_path / "book", tmp_path / "host"
    (book / "img" / "sub").mkdir(parents=True)
    (book / "img" / "__pycache__").mkdir()
    host.mkdir()
    (host / "secret.png").write_text("the host's")
    (host / "dir").mkdir()
    (host / "dir" / "inner.png").write_text("the host's too")
    (book / "img" / "a.png").write_text("a")
    (book / "img" / "sub" / "b.png").write_text("b")
    (book / "img" / "__pycache__" / "x.pyc").write_text("compiled")
    (book / "other.png").write_text("of the book")
    (book / "img" / "inside.png").symlink_to(book / "other.png")
    (book / "img" / "out.png").symlink_to(host / "secret.png")
    (book / "img" / "linked").symlink_to(host / "dir")
    target = book / "_build" / "site_src" / "img"
    (target / "gone").mkdir(parents=True)
    (target / "gone" / "old.png").write_text("no longer in the book")
    confinement = Confinement.of(book)
    assert _sync_resource(book / "img", target, confinement, set(), False)
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert copied == ["a.png", "inside.png", "sub/b.png"]
    assert (target / "inside.png").read_text() == "of the book"
    assert not _sync_resource(book / "img", target, confinement, set(), False)  # all current
