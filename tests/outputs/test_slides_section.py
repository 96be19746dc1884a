"""Decks from a page's ``<!-- slides -->`` section: slides, layout classes, pauses,
``only=`` and ``@cell-id`` placeholders, per framework."""

from __future__ import annotations

from pathlib import Path

from polybook.config import load_config
from polybook.diagnostics import Reporter
from polybook.render.plain import plain_book, site_address
from polybook.slides.deck import Deck
from polybook.slides.reveal import reveal_html
from polybook.slides.rise import rise_notebook
from polybook.slides.section import page_deck
from polybook.source.book import load_book
from polybook.source.split import split_book

from ..books import FENCE, pages_book

PAGE = f"""Prose for the book.

{FENCE}{{.python .input #make}}
x = 1
{FENCE}

{FENCE}{{.python .input #show}}
%%tab jax
y = 2
{FENCE}

<!-- slides -->

::: {{.slide title="Motivation"}}
[Why]{{.kicker}} tensors.

::: {{.cols .vc}}
Left text.
:::

. . .

@make
:::

::: {{.slide title="For JAX" only="jax"}}
@show@jax
:::
"""


def decks(root: Path) -> dict[str, Deck | None]:
    config = load_config(root)
    reporter = Reporter()
    book = load_book(config.book, config.build, reporter)
    notebooks = split_book(book, config.build.tabs, reporter)
    made: dict[str, Deck | None] = {}
    for fw in config.build.tabs:
        site = site_address(config.html.base_url, config.project.site_url)
        refs = plain_book(book, site, config.book.bibliography, fw).refs
        for path, nb in notebooks[fw]:
            doc = next(d for d in book.documents if d.path == path)
            if path == "tensors.md":
                made[fw] = page_deck(doc, nb, fw, refs)
    return made


def cells(deck: Deck | None) -> list[tuple[str, str, bool, bool]]:
    assert deck is not None
    return [(c.kind, c.source, c.new_slide, c.fragment) for c in deck.cells]


def test_a_slides_section_is_each_framework_s_deck(tmp_path: Path) -> None:
    root = pages_book(tmp_path, {"tensors": PAGE}, "[build]\ntabs = pytorch, jax\n")
    made = decks(root)
    motivation = [
        ("markdown", "# tensors", True, False),
        (
            "markdown",
            '## Motivation\n<span class="pb-kicker">Why</span> tensors.\n\n\n'
            '<div class="pb-cols pb-vc">\n\nLeft text.\n\n</div>',
            True,
            False,
        ),
        ("code", "x = 1", False, True),
    ]
    assert cells(made["pytorch"]) == motivation
    assert cells(made["jax"]) == [
        *motivation,
        ("markdown", "## For JAX", True, False),
        ("code", "y = 2", False, False),
    ]


def test_a_deck_s_pause_is_a_fragment_in_both_forms(tmp_path: Path) -> None:
    root = pages_book(tmp_path, {"tensors": PAGE}, "[build]\ntabs = pytorch, jax\n")
    deck = decks(root)["pytorch"]
    assert deck is not None
    notebook = rise_notebook(deck, {"name": "python3", "display_name": "Python 3"})
    kinds = [c.metadata["slideshow"]["slide_type"] for c in notebook.cells]
    assert kinds == ["slide", "slide", "fragment"]
    page = reveal_html(deck, root, "PyTorch")
    assert '<div class="fragment">' in page and "Prose for the book" not in page
