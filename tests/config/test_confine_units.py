""":class:`polybook.confine.Confinement` on real folders and links: what it holds, how a
name is located, and what its refusals say."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from polybook.confine import Confinement, Outside, is_url


def test_urls_are_not_files_but_file_urls_are() -> None:
    for url in ("http://a/b", "HTTPS://a", "ftp://a", "data:image/png,x", "mailto:a@b"):
        assert is_url(url), url
    for name in ("file:///etc/passwd", "a/b.png", "/abs/c.png", "a/http://b", "data.csv"):
        assert not is_url(name), name


@pytest.fixture
def book(tmp_path: Path) -> Confinement:
    (tmp_path / "book" / "chap").mkdir(parents=True)
    (tmp_path / "book" / "img.png").write_text("img")
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "secret").write_text("s")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data.csv").write_text("d")
    return Confinement.of(tmp_path / "book" / "chap" / "..", ["../shared", "~/nowhere"])


def test_the_root_and_the_allowed_folders_are_resolved(book: Confinement, tmp_path: Path) -> None:
    assert book.root == (tmp_path / "book").resolve()
    assert book.allowed == ((tmp_path / "shared").resolve(), Path("~/nowhere").expanduser())
    assert book.holds(tmp_path / "shared" / "data.csv")
    assert book.holds(tmp_path / "book" / "img.png") and book.holds(tmp_path / "book")
    assert not book.holds(tmp_path / "host" / "secret") and not book.holds(tmp_path)


def test_a_name_is_located_from_its_page_and_a_leading_slash_from_the_root(
    book: Confinement, tmp_path: Path
) -> None:
    chap = book.root / "chap"
    assert book.locate("../img.png", chap) == book.root / "img.png"
    assert book.locate(" file://../img.png ", chap) == book.root / "img.png"
    assert book.locate("/img.png", chap) == book.root / "img.png"  # the book's root
    secret = tmp_path / "host" / "secret"
    assert book.locate(str(secret), chap) == secret  # a host file the book has no copy of
    data = tmp_path / "shared" / "data.csv"
    assert book.locate(str(data), chap) == data  # inside an allowed folder, as written
    assert book.locate("/none.png", chap) == book.root / "none.png"  # nowhere: the root's


def test_a_refusal_says_where_the_name_leads(book: Confinement, tmp_path: Path) -> None:
    chap = book.root / "chap"
    with pytest.raises(Outside) as raised:
        book.resolve("../../host/secret", chap)
    secret = tmp_path / "host" / "secret"
    assert str(raised.value) == f"'../../host/secret' is outside the book ({secret})"
    with pytest.raises(Outside) as raised:
        book.check(secret)
    assert str(raised.value) == f"{str(secret)!r} is outside the book ({secret})"
    (tmp_path / "hostlink").symlink_to(tmp_path / "host")  # a link, but not the book's
    with pytest.raises(Outside) as raised:
        book.check(tmp_path / "hostlink" / "secret", "x")
    assert str(raised.value) == f"'x' is outside the book ({tmp_path / 'hostlink' / 'secret'})"
    (book.root / "chap" / "out").symlink_to(tmp_path / "host")
    with pytest.raises(Outside) as raised:
        book.resolve("out/secret", chap)
    real = os.path.realpath(tmp_path / "host")
    assert str(raised.value) == f"'out/secret' leads outside the book: chap/out is a link to {real}"
    assert book.resolve("../img.png", chap) == book.root / "img.png"
    (book.root / "inner").symlink_to(book.root / "chap")  # a link that stays inside
    assert book.resolve("inner/out/../../img.png", book.root) == book.root / "img.png"


def test_the_links_under_a_folder_that_lead_out_are_found_once(
    book: Confinement, tmp_path: Path
) -> None:
    (book.root / "chap" / "a").symlink_to(tmp_path / "host" / "secret")
    (book.root / "chap" / "b").symlink_to(tmp_path / "host")
    (book.root / "chap" / "c").symlink_to(book.root / "img.png")  # inside: kept
    (book.root / "chap" / "d").symlink_to(tmp_path / "shared")  # allowed: kept
    (book.root / "e").symlink_to(tmp_path / "host")
    assert book.links_out(book.root) == [
        book.root / "chap/a",
        book.root / "chap/b",
        book.root / "e",
    ]
    assert book.links_out(book.root / "chap" / "c") == []
    assert book.relative(book.root / "chap" / "a") == "chap/a"
    assert book.relative(book.root / "chap" / ".." / "img.png") == "img.png"
    assert book.relative(tmp_path / "host") == str(tmp_path / "host")


def test_a_walking_pass_holds_exactly_what_a_plain_check_holds(tmp_path: Path) -> None:
    """Folders' real paths found once: linked folders, linked files (relative, absolute,
    dangling, chained), ``..`` after a link, missing files, each as the plain check says."""
    book, host = tmp_path / "book", tmp_path / "host"
    (book / "img").mkdir(parents=True)
    (host / "deep").mkdir(parents=True)
    (book / "img" / "a.png").write_text("a")
    (host / "deep" / "secret").write_text("s")
    links = {
        book / "out": host / "deep",  # a folder outside
        book / "in": book / "img",  # a folder inside
        book / "img" / "pass": Path("../../host/deep/secret"),  # a relative file link out
        book / "img" / "ok": Path("a.png"),
        book / "img" / "chain": book / "img" / "pass",
        book / "img" / "gone": book / "nowhere",
        host / "back": book / "img",  # outside, leading back in
        book / "self": book,  # its ``..`` is outside, though the book holds the link
    }
    for link, target in links.items():
        link.symlink_to(target)
    names = ["img/a.png", "out/secret", "in/a.png", "in/pass", "img/pass", "img/ok", "img/chain"]
    names += ["img/gone", "img/missing", "out/../img/a.png", "in/../out/secret", "img/.", "in/"]
    names += ["../host/back/a.png", "../host/deep/secret", "img/..", "out", "in", "img/ok/x"]
    names += ["self/..", "self/img/a.png", "self/."]
    plain = Confinement.of(book)
    walking = plain.walking()
    for name in names * 2:  # the second time from the folders found the first
        path = Path(os.fspath(book) + "/" + name)
        assert walking.holds(path) == plain.holds(path), name
    assert walking.folders and plain.folders is None
