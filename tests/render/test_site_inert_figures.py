"""A copied SVG figure is made inert once: its inert form is kept beside the doctrees by the
digest of what Sphinx copied, and a later build (Sphinx copies the figure anew each time, as
the inert file differs from its source) takes it from there rather than parsing it again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.books import build, pages_book

FIGURE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">'
    '<rect width="10" height="10" fill="red"/><script>alert(2)</script></svg>'
)


@pytest.mark.slow
def test_a_figure_is_parsed_once_and_taken_from_its_kept_inert_form(tmp_path: Path) -> None:
    root = pages_book(tmp_path / "book", {"fig": "A figure.\n\n![A box](img/box.svg)\n"})
    (root / "img").mkdir()
    (root / "img" / "box.svg").write_text(FIGURE)
    assert build(root, "html") == 0
    [copied] = (root / "_build" / "html" / "_images").glob("box*.svg")
    inert = copied.read_text()
    assert "<rect" in inert and "alert" not in inert and "onload" not in inert
    kept = list((root / "_build" / "cache" / "inert").glob("*.svg"))  # kept by make clean
    assert kept and all(p.read_text() == inert for p in kept)
    # The kept form is what a later build writes: marked here, the mark shows it was taken.
    for held in kept:
        held.write_text(inert.replace('fill="red"', 'fill="blue"'))
    (root / "fig.md").write_text("# fig\n\nA figure, edited.\n\n![A box](img/box.svg)\n")
    assert build(root, "html") == 0
    assert 'fill="blue"' in copied.read_text()
    for made in (root / "_build").iterdir():  # as `make clean`: the caches stay
        if made.name != "cache":
            shutil.rmtree(made) if made.is_dir() else made.unlink()
    assert build(root, "html") == 0
    assert (
        'fill="blue"' in next((root / "_build" / "html" / "_images").glob("box*.svg")).read_text()
    )


@pytest.mark.slow
def test_many_figures_are_made_inert_and_a_broken_one_emptied_with_its_warning(
    tmp_path: Path,
) -> None:
    # Enough figures that they are shared among processes.
    body = "".join(f"![Box {n}](img/box{n}.svg)\n\n" for n in range(40))
    root = pages_book(tmp_path / "book", {"figs": f"Figures.\n\n{body}"})
    (root / "img").mkdir()
    for n in range(40):
        (root / "img" / f"box{n}.svg").write_text(FIGURE.replace('width="10"', f'width="{n + 1}"'))
    (root / "img" / "box17.svg").write_text("<svg><rect></svg>")  # not well-formed
    assert build(root, "html") == 0
    images = root / "_build" / "html" / "_images"
    copied = {p.name: p.read_text() for p in images.glob("box*.svg")}
    assert len(copied) == 40
    broken = next(text for name, text in copied.items() if name.startswith("box17"))
    assert "<rect" not in broken
    others = [text for name, text in copied.items() if not name.startswith("box17")]
    assert all("alert" not in text and "<rect" in text for text in others)
    store = (root / "_build" / "site-diagnostics.json").read_text()
    assert "box17" in store and "not a well-formed SVG" in store


def test_a_kept_sphinx_process_looks_again_only_at_the_figures_copied_since(
    tmp_path: Path,
) -> None:
    # As serve's warm Sphinx process rebuilds: Sphinx copied one figure anew (its page was
    # written), and left the others as the last build made them inert.
    from types import SimpleNamespace

    from polybook.render.sphinx.files import inert_figures

    images, cache = tmp_path / "html" / "_images", tmp_path / "cache"
    images.mkdir(parents=True)
    for n in range(3):
        (images / f"box{n}.svg").write_text(FIGURE.replace('width="10"', f'width="{n + 1}"'))
    config = SimpleNamespace(pb_inert_cache=str(cache))
    app = SimpleNamespace(outdir=str(tmp_path / "html"), doctreedir=str(tmp_path), config=config)
    inert_figures(app, None)  # type: ignore[arg-type]
    assert all("alert" not in p.read_text() for p in images.glob("*.svg"))
    shutil.rmtree(cache)
    (images / "box1.svg").write_text(FIGURE)  # copied anew
    inert_figures(app, None)  # type: ignore[arg-type]
    assert "alert" not in (images / "box1.svg").read_text()
    assert len(list(cache.glob("*.svg"))) == 2  # box1's copy and its inert form, no other
