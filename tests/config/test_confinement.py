"""A book from an untrusted contributor cannot read the host's files: every file a page or
the configuration names resolves inside the book (or a folder ``[build] allowed_paths``
names), links followed, or it is an error at its line, in ``polybook check`` and in a
build, and nothing of it reaches the outputs. Files inside the book are found relative to
the page that names them, and an edit to one rebuilds the pages that read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import load_config
from polybook.confine import Confinement, Outside
from polybook.diagnostics import Reporter
from polybook.render.myst import prose_to_myst
from polybook.render.page import Page
from polybook.site.output import site_sections
from polybook.site.stage import write_site
from polybook.source.files import named_files
from polybook.source.parse import parse

from ..books import FENCE, pages_book, write_book

SECRET = "host-secret-5f3c9a"
CONFIG = "[project]\nname = c\ntitle = C\n[build]\ntabs = pytorch\neval_notebook = false\n"
OUTSIDE = "[polybook.source.outside]"


def host_file(tmp_path: Path, name: str = "secret.txt") -> Path:
    """A file of the host, beside the book, holding :data:`SECRET`."""
    path = tmp_path / "host" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{SECRET}\n{SECRET},1\n", encoding="utf-8")
    return path


def rst(*lines: str) -> str:
    return f"{FENCE}eval_rst\n" + "\n".join(lines) + f"\n{FENCE}\n"


# Page bodies (below the title and a blank line: the body's first line is line 3) that
# pull a host file in, with the line and the words of the error. {secret} is its path.
ESCAPES = {
    "raw_file": (rst(".. raw:: html", "   :file: {secret}"), 5, "`raw` :file: '{secret}'"),
    "include": (rst(".. include:: ../../host/secret.txt"), 4, "`include` '../../host/secret"),
    "literalinclude": (rst(".. literalinclude:: {secret}"), 4, "`literalinclude`"),
    "csv_table": (rst(".. csv-table:: T", "   :file: {secret}"), 5, "`csv-table` :file:"),
    "myst_include": (f"{FENCE}{{{{include}}}} ../../host/secret.txt\n{FENCE}\n", 3, "`include`"),
    "myst_raw": (f"{FENCE}{{{{raw}}}} html\n:file: {{secret}}\n{FENCE}\n", 4, "`raw` :file:"),
    "download": ("Get {{download}}`it <../../host/secret.txt>`.\n", 3, "a download"),
    "rst_download": (rst("Get :download:`it <{secret}>`."), 4, "a download"),
    "url": (rst(".. raw:: html", "   :url: https://example.com/x"), 5, "`raw` :url: reads 'https"),
    # docutils reads a path argument on the lines below too, joined without whitespace.
    "argument_below": (rst(".. include::", "   {secret}"), 4, "`include` '{secret}'"),
    "argument_continued": (
        rst(".. literalinclude:: ../../host/", "   secret.txt", "   :lines: 1"),
        4,
        "`literalinclude` '../../host/secret.txt'",
    ),
}


def escape_book(tmp_path: Path, body: str) -> Path:
    secret = host_file(tmp_path)
    return pages_book(tmp_path / "book", {"page": body.format(secret=secret)}, CONFIG, folder="c")


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """``polybook check``: its exit status and its errors of files outside the book."""
    code = main(["--quiet", "--root", str(root), "check"])
    err = capsys.readouterr().err
    return code, sorted({line.strip() for line in err.splitlines() if OUTSIDE in line})


@pytest.mark.parametrize("kind", list(ESCAPES))
def test_check_refuses_each_way_a_page_names_a_host_file_at_its_line(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    body, line, words = ESCAPES[kind]
    root = escape_book(tmp_path, body)
    code, errors = check(root, capsys)
    assert code == 1
    secret = str(host_file(tmp_path))
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"c/page.md:{line}: {words.format(secret=secret)}"), errors


def test_a_folder_the_config_allows_may_be_read_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = escape_book(tmp_path, ESCAPES["raw_file"][0])
    assert check(root, capsys)[0] == 1
    (root / "config.ini").write_text(CONFIG + "allowed_paths = ../host\n")
    assert check(root, capsys) == (0, [])


def test_links_and_configured_files_that_lead_out_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = host_file(tmp_path)
    bib = host_file(tmp_path, "refs.bib")
    config = CONFIG + "resources = img\n[pdf]\nbibfile = ../host/refs.bib\n"
    root = pages_book(
        tmp_path / "book", {"page": "![A figure](../img/link.png)\n"}, config, "B", "c"
    )
    (root / "img").mkdir()
    (root / "img" / "link.png").symlink_to(secret)
    (root / "img" / "fine.png").symlink_to(root / "index.md")  # a link inside the book
    (root / "static").mkdir()
    (root / "static" / "style.css").symlink_to(secret)
    code, errors = check(root, capsys)
    assert code == 1
    assert errors == sorted(
        [
            f"c/page.md:3: a figure '../img/link.png' leads outside the book: img/link.png is"
            f" a link to {secret}: pages may read files inside the book, or in a folder"
            f" [build] allowed_paths names {OUTSIDE}",
            f"config.ini:9: [pdf] bibfile: '{bib}' is outside the book ({bib}): pages may read"
            f" files inside the book, or in a folder [build] allowed_paths names {OUTSIDE}",
            f"img/link.png: a link to a file outside the book ({secret}): pages may read files"
            f" inside the book, or in a folder [build] allowed_paths names {OUTSIDE}",
            f"static/style.css: a link to a file outside the book ({secret}): pages may read"
            f" files inside the book, or in a folder [build] allowed_paths names {OUTSIDE}",
        ]
    )
    (root / "c" / "page2.md").symlink_to(secret)  # a page: not read at all
    page = f"c/page2.md: the page is a link to {secret}, outside the book {OUTSIDE}"
    assert page in check(root, capsys)[1]


def test_names_are_resolved_from_the_page_and_a_leading_slash_is_the_books_root(
    tmp_path: Path,
) -> None:
    root = tmp_path / "book"
    (root / "c").mkdir(parents=True)
    (root / "c" / "part.rst").write_text("part")
    (root / "data.csv").write_text("a,b")
    secret = host_file(tmp_path)
    fence = Confinement.of(root)
    assert fence.resolve("part.rst", root / "c") == root / "c" / "part.rst"
    assert fence.resolve("/data.csv", root / "c") == root / "data.csv"
    assert fence.resolve("/c/../data.csv", root / "c") == root / "data.csv"
    with pytest.raises(Outside, match="is outside the book"):
        fence.resolve(str(secret), root / "c")
    with pytest.raises(Outside, match="is outside the book"):
        fence.resolve("../../host/secret.txt", root / "c")
    (root / "c" / "up").symlink_to(tmp_path / "host")
    with pytest.raises(Outside, match="c/up is a link to"):
        fence.resolve("up/secret.txt", root / "c")
    assert Confinement.of(root, ["../host"]).resolve(str(secret), root) == secret


def test_the_files_a_page_names_are_found_in_prose_not_in_code() -> None:
    text = (
        "# T\n\n![a](fig.png) and ![b](<two words.png>)\n\n"
        "````md\n![not](code.png)\n```eval_rst\n.. include:: not.rst\n```\n````\n\n"
        + rst(".. figure:: f.svg", "", ".. csv-table:: T", "   :file: t.csv", ".. note:: x")
        + "\n:::{literalinclude} lit.py\n:::\n"
    )
    doc = parse(text, "p.md", ("pytorch",))
    found = [(n.name, n.line, n.what) for n in named_files(doc)]
    assert found == [
        ("f.svg", 13, "`figure`"),
        ("t.csv", 16, "`csv-table` :file:"),
        ("fig.png", 3, "a figure"),
        ("two words.png", 3, "a figure"),
        ("lit.py", 20, "`literalinclude`"),
    ]


def _texts_under(folder: Path) -> list[Path]:
    """The files under ``folder`` (not the links to the host file) that hold the secret."""
    files = (p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return [p for p in files if SECRET.encode() in p.read_bytes()]


@pytest.mark.slow
def test_a_build_that_would_pull_host_files_in_fails_before_rendering_and_leaks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = host_file(tmp_path)
    body = "".join(b.format(secret=secret) for b, _, _ in ESCAPES.values())
    config = CONFIG + "resources = img\n"
    page = {"page": body + "\n![f](../img/link.png)\n"}
    root = pages_book(tmp_path / "book", page, config, folder="c")
    (root / "img").mkdir()
    (root / "img" / "link.png").symlink_to(secret)
    code, from_check = check(root, capsys)
    assert code == 1 and len(from_check) == len(ESCAPES) + 2  # + the figure, the link
    assert main(["--quiet", "--root", str(root), "build", "html", "--strict"]) == 1
    err = capsys.readouterr().err
    from_build = sorted({line.strip() for line in err.splitlines() if OUTSIDE in line})
    assert from_build == from_check  # the same errors, the same places
    assert not (root / "_build" / "html").exists()  # stopped before rendering
    assert _texts_under(root) == []


def nested_book(tmp_path: Path) -> Path:
    """A page including a file of the book that itself names host files."""
    secret = host_file(tmp_path)
    page = rst(".. include:: part.rst")
    root = pages_book(tmp_path / "book", {"page": page}, CONFIG, folder="c")
    part = f"Part text.\n\n.. include:: {secret}\n\n.. raw:: html\n   :url: https://example.com/\n"
    (root / "c" / "part.rst").write_text(part)
    return root


def test_check_follows_includes_into_the_files_they_include(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = nested_book(tmp_path)
    secret = host_file(tmp_path)
    code, errors = check(root, capsys)
    assert code == 1
    assert errors == [
        f"c/part.rst:3: `include` '{secret}' is outside the book ({secret}): pages may read"
        f" files inside the book, or in a folder [build] allowed_paths names {OUTSIDE}",
        f"c/part.rst:6: `raw` :url: reads 'https://example.com/' from the network: a build"
        f" reads no URL {OUTSIDE}",
    ]


@pytest.mark.slow
def test_sphinx_itself_refuses_what_included_files_name(tmp_path: Path) -> None:
    """The render core's own check, behind the source stage's: the site is written from
    pages that no source check saw."""
    root = nested_book(tmp_path)
    config = load_config(root)
    reporter = Reporter(quiet=True)
    index = prose_to_myst("# C\n\n```{toctree}\nc/page\n```\n", 1, "index.md", reporter)
    page = prose_to_myst("# Page\n\n" + rst(".. include:: part.rst"), 1, "c/page.md", reporter)
    write_site(site_sections(config), [Page("index", index), Page("c/page", page)], reporter)
    secret = host_file(tmp_path)
    assert [str(d) for d in reporter.errors] == [
        f"c/part.rst:3: `include` '{secret}' is outside the book ({secret}): pages may read"
        " files inside the book, or in a folder [build] allowed_paths names"
        " [polybook.render.file.outside]",
        "c/part.rst:5: `raw` :url: reads a URL: a build reads no file from the network"
        " [polybook.render.file.outside]",
    ]
    assert "Part text." in (root / "_build" / "html" / "c" / "page.html").read_text()
    assert _texts_under(root) == []


SIDE_BY_SIDE = {
    "c/part.rst": "Included *words*.\n",
    "c/snippet.html": "<b>raw words</b>\n",
    "c/code.py": "literal_words = 1\n",
    "c/data.csv": "csv,words\n",
    "c/fig.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
    "shared/top.md": "Rooted words.\n",
}
PAGE = (
    rst(
        ".. include:: part.rst",
        "",
        ".. raw:: html",
        "   :file: snippet.html",
        "",
        ".. literalinclude:: code.py",
        "",
        ".. csv-table:: Table",
        "   :file: data.csv",
    )
    + f"\n{FENCE}{{include}} /shared/top.md\n{FENCE}\n\n![A figure](fig.svg)\n"
)


def report(root: Path, path: Path) -> dict[str, object]:
    assert main(["--quiet", "--root", str(root), "build", "html", "--report", str(path)]) == 0
    data: dict[str, object] = json.loads(path.read_text())
    return data


@pytest.mark.slow
def test_files_beside_the_page_are_found_and_an_edit_to_one_rebuilds_the_page(
    tmp_path: Path,
) -> None:
    root = pages_book(tmp_path / "book", {"page": PAGE}, CONFIG, folder="c")
    write_book(root, SIDE_BY_SIDE, config=None)
    summary = tmp_path / "report.json"
    assert report(root, summary).get("unchanged") is None
    page = root / "_build" / "html" / "c" / "page.html"
    html = page.read_text()
    for words in ("Included <em>words</em>", "<b>raw words</b>", "literal_words", "Rooted words"):
        assert words in html
    assert "csv</p></td>" in html and '_images/fig.svg"' in html
    assert report(root, summary)["unchanged"] is True
    for name, old, new in (
        ("c/part.rst", "Included", "Changed"),
        ("c/snippet.html", "raw words", "new raw words"),
        ("shared/top.md", "Rooted", "Moved"),
    ):
        (root / name).write_text(SIDE_BY_SIDE[name].replace(old, new))
        assert report(root, summary).get("unchanged") is None, name
        assert new in page.read_text(), name
    assert report(root, summary)["unchanged"] is True


@pytest.mark.slow
def test_tex_cannot_input_a_host_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = host_file(tmp_path, "secret.tex")
    config = CONFIG.replace("title = C", "title = C\nauthor = A\nrelease = 1")
    page = rst(".. raw:: latex", "", f"   \\input{{{secret}}}")
    root = pages_book(tmp_path / "book", {"page": page}, config, folder="c")
    assert main(["--quiet", "--root", str(root), "build", "pdf"]) == 1
    assert f"File `{secret}' not found" in capsys.readouterr().err
    assert not (root / "_build" / "pdf").exists()
    assert _texts_under(root / "_build") == []
