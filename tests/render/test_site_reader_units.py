"""The reader's features piece by piece: cleaning outputs, the API entries, the notebook
links and what the live preview watches (the built site is checked in ``site_reader``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from polybook.commands.serve import watched
from polybook.config import load_config
from polybook.diagnostics import Location, Reporter
from polybook.epub.places import epub_file
from polybook.library.model import SavedBlock
from polybook.nb import new_code_cell, new_notebook, reads, writes
from polybook.notebooks.places import notebooks_dir
from polybook.pdf.places import pdf_file
from polybook.pipeline.registry import OUTPUTS
from polybook.render.outputs import clean_notebook, sanitize_html, scrub
from polybook.site.api import api_page, entries
from polybook.site.api_prose import prose_index
from polybook.site.book_inputs import site_inputs
from polybook.site.extras import held_links, links, write_held
from polybook.source.model import CodeCell, Document, Prose, TabProse

CONFIG = "[project]\nname = u\n[build]\ntabs = pytorch, jax\nresources = img/\n"


def test_html_outputs_keep_tables_and_lose_everything_active() -> None:
    dirty = (
        '<table class="dataframe" border="1"><tr style="color: red"><th>a</th>'
        '<td onclick="x()">1</td></tr></table><script>alert(1)</script>'
        '<img src="https://example.org/x.png" onerror="alert(2)"><style>p {}</style>'
        '<a href="javascript:alert(3)">j</a><a href="https://example.org">k</a>'
        '<iframe src="https://example.org"></iframe><b id="main">bold</b>'
    )
    clean = sanitize_html(dirty)
    assert clean.startswith('<table class="dataframe" border="1"><tbody><tr><th>a</th><td>1')
    for gone in ("script", "alert", "img", "style", "iframe", "onclick", "javascript", "id="):
        assert gone not in clean
    assert '<a href="https://example.org" rel="noopener noreferrer">k</a>' in clean
    assert "<b>bold</b>" in clean


def test_paths_become_placeholders_longest_root_first() -> None:
    roots = [("/w/book/.envs", "$ENVS"), ("/w/book", "$BOOK")]
    text = "/w/book/.envs/jax/lib/x.py and /w/book/_build/eval and /w/bookish"
    assert scrub(text, roots) == "$ENVS/jax/lib/x.py and $BOOK/_build/eval and $BOOKish"


def _book(root: Path) -> Path:
    (root / "config.ini").write_text(CONFIG)
    return root


def _output(data: dict[str, str]) -> dict[str, object]:
    return {"output_type": "display_data", "data": data, "metadata": {}}


def test_javascript_outputs_are_dropped_with_a_located_warning() -> None:
    nb = new_notebook()
    cell = new_code_cell("show()", "c1")
    cell.metadata["polybook"] = {"line": 12}
    cell.outputs = [
        _output({"application/javascript": "x()", "text/plain": "<Javascript object>"}),
        _output({"application/javascript": "y()", "text/html": "<b>/book/kept</b>"}),
        {"output_type": "stream", "name": "stderr", "text": "/envs/jax/warn.py: careful"},
        {"output_type": "error", "ename": "E", "evalue": "", "traceback": ["/book/x.py"]},
    ]
    nb.cells.append(cell)
    before = writes(nb)
    reporter = Reporter()
    roots = [("/envs", "$ENVS"), ("/book", "$BOOK")]
    cleaned = clean_notebook(reads(before), roots, "chap/a.md", "jax", reporter)
    outs = cleaned.cells[0].outputs
    assert [o.output_type for o in outs] == ["display_data", "stream", "error"]
    assert outs[0].data == {"text/html": "<b>$BOOK/kept</b>"}
    assert outs[1].text == "$ENVS/jax/warn.py: careful"
    assert outs[2].traceback == ["$BOOK/x.py"]
    [warning] = reporter.warnings
    assert warning.location == Location("chap/a.md", 12, "jax")
    assert warning.subtype == "render.javascript"
    assert writes(nb) == before  # the build's notebook is left as it was


CODE = '''class Board(d2l.HyperParameters):
    """Plots *points*."""

    def __init__(self, xlabel=None, ylim=(0, 1)):
        pass


@d2l.add_to_class(Board)
def draw(self, x, y: float) -> None:
    """Draw ``x`` against `y`."""


def try_gpu(i=0):
    return i


LIMIT, other = 10, 2
'''


def test_api_entries_show_signatures_docstrings_and_their_page(tmp_path: Path) -> None:
    found = {e.name: e for e in entries([SavedBlock("chap/use.md", (3,), CODE, 0)])}
    assert set(found) == {"Board", "Board.draw", "try_gpu", "LIMIT", "other"}
    board, draw = found["Board"], found["Board.draw"]
    assert (board.kind, board.bases) == ("class", "d2l.HyperParameters")
    assert board.signature == "(xlabel=None, ylim=(0, 1))"
    assert (draw.kind, draw.signature) == ("method", "(x, y: float) -> None")
    assert found["try_gpu"].signature == "(i=0)"
    assert found["LIMIT"].signature == ""  # unpacked: its value is not the tuple's
    assert (board.page, board.line) == ("chap/use", 3)
    config = load_config(_book(tmp_path))
    text = api_page(config.book, "pytorch", list(found.values())).text
    assert ":::{py:class} Board(xlabel=None, ylim=(0, 1))" in text
    assert "Plots \\*points\\*\\." in text  # shown as written, not as Markdown
    assert "Draw `x` against `y`\\." in text
    assert "{pb-defined}`pytorch Board.draw`" in text


HELPERS = """def ones(shape):  #@save
    return shape

def to_numpy(x):  #@save
    return x

def sync(x):  #@save
    \"\"\"Wait for `x`.\"\"\"
    return x
"""


def test_api_entries_without_a_docstring_are_described_by_the_prose_before_them() -> None:
    prose = (
        "## [**Helpers**]\n\nA few helpers make code portable, see :numref:`sec_x`. "
        "Then `to_numpy(x)` copies `x` into NumPy.\n"
    )
    later = "Unrelated words after the code. They name `ones`.\n"
    doc = Document(
        "chap/h.md",
        (
            Prose(prose, 1),
            TabProse(("jax",), "JAX's own note.", 5),
            CodeCell(("pytorch", "jax"), HELPERS, 8),
            Prose(later, 20),
        ),
    )
    index = prose_index([doc], ("pytorch", "jax"))
    block = SavedBlock("chap/h.md", tuple(range(9, 18)), HELPERS, 0)
    for fw in ("pytorch", "jax"):
        found = {e.name: e.doc for e in entries([block], index[fw])}
        assert found["to_numpy"] == "Then `to_numpy(x)` copies `x` into NumPy."  # names it
        # Named nowhere before: the first sentence of the shared prose just before the code.
        assert found["ones"] == "A few helpers make code portable, see."
        assert found["sync"] == "Wait for `x`."  # the docstring first
    assert {e.name: e.doc for e in entries([block])}["ones"] == ""  # no prose given


def test_notebook_platform_links_follow_the_repositories_configured(tmp_path: Path) -> None:
    config = load_config(_book(tmp_path))
    sections = (config.book, config.colab, config.sagemaker)
    plain = links(*sections, config.build.tabs, ["pytorch"])  # jax was not built
    assert plain == {
        "notebooks": {"pytorch": "_notebooks/pytorch/", "jax": ""},
        "colab": {"pytorch": "", "jax": ""},
        "sagemaker": {"pytorch": "", "jax": ""},
        "kaggle": {"pytorch": "", "jax": ""},
    }
    one = replace(
        config,
        colab=replace(config.colab, github_repo=("o/nb",), branch="v1"),
        sagemaker=replace(config.sagemaker, github_repo=("o/sm",)),
    )
    shown = links(one.book, one.colab, one.sagemaker, one.build.tabs, ())
    assert shown["notebooks"] == {"pytorch": "", "jax": ""}
    assert (
        shown["colab"]["jax"] == "https://colab.research.google.com/github/o/nb/blob/v1/jax/colab/"
    )
    assert shown["sagemaker"]["pytorch"] == (
        "https://studiolab.sagemaker.aws/import/github/o/sm/blob/main/pytorch/sagemaker/"
    )
    pairs = replace(config, colab=replace(config.colab, github_repo=("pytorch", "o/torch-colab")))
    assert links(pairs.book, pairs.colab, pairs.sagemaker, pairs.build.tabs, ())["colab"] == {
        "pytorch": "https://colab.research.google.com/github/o/torch-colab/blob/main/",
        "jax": "",
    }


def test_the_books_own_repository_is_linked_for_the_notebooks_this_build_wrote(
    tmp_path: Path,
) -> None:
    root = _book(tmp_path)
    (root / "config.ini").write_text(CONFIG.replace("[project]\n", "[project]\nrepository = o/b\n"))
    config = load_config(root)
    sections = (config.book, config.colab, config.sagemaker)
    shown = links(*sections, config.build.tabs, ())
    assert shown["colab"] == {"pytorch": "", "jax": ""}  # nothing published: no button
    written = notebooks_dir(config.layout) / "jax" / "colab" / "chap" / "a.ipynb"
    written.parent.mkdir(parents=True)
    written.write_text("{}")
    shown = links(*sections, config.build.tabs, ())
    colab = "https://colab.research.google.com/github/o/b/blob/notebooks/jax/colab/"
    assert shown["colab"] == {"pytorch": "", "jax": colab}
    assert shown["sagemaker"] == {"pytorch": "", "jax": ""}  # its set was not written


def test_the_site_holds_and_links_the_books_built_before_it(tmp_path: Path) -> None:
    config = load_config(_book(tmp_path))
    layout = config.layout
    epub_file(layout, "jax").parent.mkdir(parents=True)
    epub_file(layout, "jax").write_bytes(b"an epub")
    pdf_file(layout, "pytorch").parent.mkdir(parents=True)
    pdf_file(layout, "pytorch").write_bytes(b"a pdf")
    assert held_links(config.book, OUTPUTS) == [
        {"name": name, "message": "book_as", "label": label, "files": {}}
        for name, label in (("pdf", "PDF"), ("epub", "EPUB"))
    ] + [{"name": "slides", "message": "slides", "label": "", "files": {}}]
    assert write_held(config.book, OUTPUTS)
    assert not write_held(config.book, OUTPUTS)  # copied once
    shown = {link["name"]: link["files"] for link in held_links(config.book, OUTPUTS)}
    assert shown["epub"] == {"jax": {"": f"_epub/{epub_file(layout, 'jax').name}"}}
    assert shown["pdf"] == {"pytorch": {"": f"_pdf/{pdf_file(layout, 'pytorch').name}"}}
    held = layout.site_extra / "_epub" / epub_file(layout, "jax").name
    assert held.read_bytes() == b"an epub"
    epub_file(layout, "jax").unlink()  # no longer built: the site no longer holds it
    assert write_held(config.book, OUTPUTS)
    assert not held.exists()
    assert {link["name"]: link["files"] for link in held_links(config.book, OUTPUTS)}["epub"] == {}


def test_the_preview_watches_pages_config_figures_static_and_library(tmp_path: Path) -> None:
    root = _book(tmp_path)
    for folder in ("chap", "img", "static", "d2l", "_build", ".envs"):
        (root / folder).mkdir()
    (root / "chap" / "a.md").write_text("# A\n")
    (root / "refs.bib").write_text("")
    (root / "config.ini").write_text(CONFIG + "[pdf]\nbibfile = refs.bib\n")
    config = load_config(root)
    deep, shallow = watched(config)
    # Every folder that may hold pages ([build] notebooks), less _build/ and hidden ones.
    assert deep == [root / "chap", root / "d2l", root / "img", root / "static"]
    assert shallow == [root]  # config.ini, pages, refs.bib and new folders
    (root / "static" / "book.css").write_text("p {}")
    assert site_inputs(config.root) == [root / "static" / "book.css"]


def test_kaggle_opens_the_notebooks_colab_opens(tmp_path: Path) -> None:
    config = load_config(_book(tmp_path))
    colab = replace(config.colab, github_repo=("someone/notebooks",))
    made = links(config.book, colab, config.sagemaker, ("pytorch", "jax"), ())
    assert made["kaggle"] == {
        fw: f"https://kaggle.com/kernels/welcome?src=https://github.com/someone/notebooks"
        f"/blob/{colab.branch}/{fw}/colab/"
        for fw in ("pytorch", "jax")
    }
    colab_link = f"https://colab.research.google.com/github/someone/notebooks/blob/{colab.branch}"
    assert made["colab"]["pytorch"] == f"{colab_link}/pytorch/colab/"  # the same notebooks
