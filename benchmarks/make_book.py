"""A synthetic d2lbook-format book for benchmarks: ``python benchmarks/make_book.py OUT``.

The book has ``--pages`` pages (chapter introductions and sections, ten a chapter) in four
frameworks, written with the constructs of the shipped chapter: per-framework code cells
(``%%tab``), ``tab.selected`` in shared cells, ``#@save`` functions and classes and
methods added with ``@d2l.add_to_class``, ``:begin_tab:`` prose, labels with ``:numref:``
across pages, captioned tables, numbered equations with ``:eqref:``, citations of a
generated BibTeX file, a figure, slide marks, and a numbered toc tree. Nothing is executed
(``eval_notebook = False``). The same arguments always write the same files.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
LIBRARIES = {"pytorch": "torch", "mxnet": "mxnet", "jax": "jax", "tensorflow": "tensorflow"}


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


PAGES_PER_CHAPTER = 10  # the chapter's introduction and its sections
PARTS = 4  # second-level sections of a page
TOPICS = words(
    "preliminaries linear-regression linear-classification multilayer-perceptrons "
    "builders-guide convolutional-networks modern-cnn recurrent-networks modern-rnn "
    "attention transformers optimization computational-performance computer-vision "
    "nlp-pretraining nlp-applications recommender-systems generative-models "
    "reinforcement-learning gaussian-processes"
)
WORDS = words(
    "model layer parameter gradient tensor device batch loss optimizer module weight bias "
    "activation network training data shape memory kernel update step input output value "
    "function framework library scale rate epoch sample feature"
)
VERBS = words("computes stores updates reads moves returns keeps changes holds combines")
IMPORTS = {
    "pytorch": ["import torch", "from torch import nn"],
    "mxnet": ["from mxnet import np, npx", "from mxnet.gluon import nn"],
    "jax": ["import jax", "from jax import numpy as jnp", "from flax import linen as nn"],
    "tensorflow": ["import tensorflow as tf"],
}
AFTER = {fw: ["", "npx.set_np()"] if fw == "mxnet" else [] for fw in FRAMEWORKS}
BASES = {
    "pytorch": ("nn.Module", "forward"),
    "mxnet": ("nn.Block", "forward"),
    "jax": ("nn.Module", "__call__"),
    "tensorflow": ("tf.keras.layers.Layer", "call"),
}
DISPLAY = {"pytorch": "PyTorch", "mxnet": "MXNet", "jax": "JAX", "tensorflow": "TensorFlow"}
FIGURE = """<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80" viewBox="0 0 240 80">
<rect x="10" y="20" width="80" height="40" fill="#9cf" stroke="#036"/>
<rect x="150" y="20" width="80" height="40" fill="#fc9" stroke="#630"/>
<path d="M90 40 H150" stroke="#333" marker-end="url(#a)"/>
<defs><marker id="a" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto">
<path d="M0 0 L8 4 L0 8 z" fill="#333"/></marker></defs>
</svg>
"""


@dataclass(frozen=True)
class Section:
    """One page: chapter ``chapter`` (from 1), section ``number`` (0: the introduction)."""

    chapter: int
    number: int
    folder: str

    @property
    def tag(self) -> str:
        return f"c{self.chapter:02d}s{self.number:02d}"

    @property
    def name(self) -> str:
        return "index" if self.number == 0 else f"section-{self.number:02d}"

    @property
    def label(self) -> str:
        return f"chap_{self.tag}" if self.number == 0 else f"sec_{self.tag}"

    @property
    def cite_key(self) -> str:
        return f"Author{self.chapter:02d}.Coauthor{self.number:02d}.ea.{2000 + self.number}"


def layout(pages: int) -> list[list[Section]]:
    """Chapters of up to ``PAGES_PER_CHAPTER`` pages each, ``pages`` pages in all."""
    chapters: list[list[Section]] = []
    left, number = pages, 0
    while left > 0:
        number += 1
        size = min(PAGES_PER_CHAPTER, left)
        topic = TOPICS[(number - 1) % len(TOPICS)]
        round_ = (number - 1) // len(TOPICS)
        folder = f"chapter_{topic}" + (f"-{round_ + 1}" if round_ else "")
        chapters.append([Section(number, s, folder) for s in range(size)])
        left -= size
    return chapters


class Writer:
    """Prose of plausible shape from a seeded generator (deterministic)."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def sentence(self) -> str:
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(6, 12))]
        verb = self.rng.choice(VERBS)
        return f"The {words[0]} {verb} the {' '.join(words[1:])}."

    def paragraph(self, extra: str = "", lines: int = 5) -> list[str]:
        """A paragraph wrapped at about 85 characters; ``extra`` goes in its middle. Its first
        sentence is marked for the slides (a new slide or not), as d2l's pages mark them."""
        sentences = [self.sentence() for _ in range(lines)]
        opener, closer = self.rng.choice([("[**", "**]"), ("(**", "**)")])
        sentences[0] = f"{opener}{sentences[0]}{closer}"
        if extra:
            sentences.insert(lines // 2, extra)
        out, line = [], ""
        for word in " ".join(sentences).split(" "):
            if line and len(line) + len(word) > 85:
                out.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        return [*out, line, ""]


def cell(framework: str, lines: list[str]) -> list[str]:
    return ["```{.python .input}", f"%%tab {framework}", *lines, "```", ""]


def imports_cells() -> list[str]:
    out: list[str] = []
    for fw in FRAMEWORKS:
        out += cell(fw, [*IMPORTS[fw], f"from d2l import {LIBRARIES[fw]} as d2l", *AFTER[fw]])
    return out


def tab_prose(writer: Writer, subject: str) -> list[str]:
    out: list[str] = []
    for fw in FRAMEWORKS:
        base, method = BASES[fw]
        text = f"In {DISPLAY[fw]}, `{subject}` derives from `{base}` and implements `{method}`."
        out += [f":begin_tab:`{fw}`", *writer.paragraph(text, 2)[:-1], ":end_tab:", ""]
    return out


def toolkit_cells() -> list[str]:
    """The library's base: saved imports, ``add_to_class`` and a base class."""
    out: list[str] = []
    for fw in FRAMEWORKS:
        saved = [
            f"{line}  #@save" if line.startswith(("import", "from")) else line
            for line in IMPORTS[fw]
        ]
        lines = ["import inspect  #@save", *saved, f"from d2l import {LIBRARIES[fw]} as d2l"]
        out += cell(fw, [*lines, *AFTER[fw]])
    out += cell(
        "all",
        [
            "def add_to_class(Class):  #@save",
            '    """Install the decorated function as a method of `Class`."""',
            "    def register(method):",
            "        setattr(Class, method.__name__, method)",
            "        return method",
            "    return register",
            "",
            "class HyperParameters:  #@save",
            '    """Stores the arguments of its constructor as attributes."""',
            "    def save_hyperparameters(self, ignore=()):",
            "        frame = inspect.currentframe().f_back",
            "        _, _, _, values = inspect.getargvalues(frame)",
            "        for key, value in values.items():",
            "            if key not in set(ignore) | {'self'}:",
            "                setattr(self, key, value)",
        ],
    )
    return out


def layer_cells(section: Section) -> list[str]:
    """A saved layer class per framework, a saved shared function and an added method."""
    name = f"Layer{section.tag.upper()}"
    out: list[str] = []
    for fw in FRAMEWORKS:
        base, method = BASES[fw]
        body = [
            f"class {name}({base}):  #@save",
            f'    """The layer of section {section.chapter}.{section.number}."""',
            f"    def {method}(self, X):",
            "        return X * 2 + 1" if fw != "tensorflow" else "        return X * 2.0 + 1.0",
        ]
        out += cell(fw, body)
    out += cell(
        "all",
        [
            f"def scale_{section.tag}(x, factor={section.number + 2}):  #@save",
            f'    """Multiply `x` by `factor` (section {section.chapter}.{section.number})."""',
            "    return x * factor",
            "",
            f"@d2l.add_to_class(d2l.{name})  #@save",
            "def describe(self):",
            f"    return '{name} of section {section.chapter}.{section.number}'",
        ],
    )
    out += cell(
        "all",
        [
            f"layer = {name}()",
            "if tab.selected('jax'):",
            f"    Y = layer.apply({{}}, d2l.ones((2, {section.number + 3})))",
            "elif tab.selected('mxnet', 'pytorch'):",
            f"    Y = layer(d2l.ones((2, {section.number + 3})))",
            "else:",
            f"    Y = layer(tf.ones((2, {section.number + 3})))",
            f"scale_{section.tag}(Y).shape",
        ],
    )
    return out


def example_cells(rows: int, columns: int) -> list[str]:
    """Unsaved code, per framework where the frameworks differ."""
    out = cell("all", [f"X = d2l.ones(({rows}, {columns}))", "X.sum(), X.shape"])
    for fw in FRAMEWORKS:
        lines = {
            "pytorch": ["with torch.no_grad():", "    Y = X * 2", "Y.mean()"],
            "mxnet": ["Y = X * 2", "Y.mean()"],
            "jax": ["Y = jnp.asarray(X) * 2", "Y.mean()"],
            "tensorflow": ["Y = tf.constant(X) * 2", "tf.reduce_mean(Y)"],
        }[fw]
        out += cell(fw, lines)
    return out


def table(section: Section) -> list[str]:
    rows = [
        f"|{DISPLAY[fw]}|{section.number + i + 1}|{(i + 1) * 1024}|"
        for i, fw in enumerate(FRAMEWORKS)
    ]
    caption = f": Layers and parameters in section {section.chapter}.{section.number}"
    return [
        caption,
        "",
        "|Framework|Layers|Parameters|",
        "|:--|--:|--:|",
        *rows,
        f":label:`tab_{section.tag}`",
        "",
    ]


def equation(section: Section) -> list[str]:
    index = f"{section.chapter},{section.number}"
    return [
        f"$$\\mathbf{{h}}_{{{index}}} = \\sigma(\\mathbf{{W}}\\mathbf{{x}} + \\mathbf{{b}}).$$",
        f":eqlabel:`eq_{section.tag}`",
        "",
    ]


def references(section: Section, previous: Section | None) -> str:
    """Links to this page's table and equation, and to the previous page's."""
    text = f"As :numref:`tab_{section.tag}` lists and :eqref:`eq_{section.tag}` states,"
    if previous is not None:
        text += (
            f" extending :numref:`{previous.label}` and :eqref:`eq_{previous.tag}`"
            f" (see :numref:`tab_{previous.tag}`),"
        )
    return text + f" the layer behaves as :cite:`{section.cite_key}` describes."


def section_page(section: Section, previous: Section | None) -> list[str]:
    writer = Writer(section.tag)
    topic = section.folder.removeprefix("chapter_").replace("-", " ").title()
    title = f"{topic}, Part {section.number}"
    out = [f"# {title}", f":label:`{section.label}`", ""]
    out += writer.paragraph(f"This part builds on :numref:`chap_c{section.chapter:02d}s00`.")
    out += writer.paragraph()
    out += toolkit_cells() if section.chapter == 1 and section.number == 1 else imports_cells()
    for part in range(1, PARTS + 1):
        out += [f"## Topic {part} of Part {section.number}", ""]
        out += writer.paragraph(references(section, previous) if part == 1 else "")
        if part == 1:
            out += equation(section) + writer.paragraph() + table(section)
            out += tab_prose(writer, f"Layer{section.tag.upper()}") + layer_cells(section)
        else:
            out += writer.paragraph(f":cite:`{section.cite_key}`")
            out += example_cells(part, section.number + 1) + writer.paragraph()
    out += ["## Summary", ""]
    out += [f"* {writer.sentence()}" for _ in range(3)] + ["", "## Exercises", ""]
    out += [f"1. {writer.sentence()} Why?" for _ in range(4)] + [""]
    return out


def chapter_page(sections: list[Section]) -> list[str]:
    intro = sections[0]
    writer = Writer(intro.tag)
    title = intro.folder.removeprefix("chapter_").replace("-", " ").title()
    out = [f"# {title}", f":label:`{intro.label}`", ""]
    out += writer.paragraph(f"The ideas go back a long way :cite:`{intro.cite_key}`.", 8)
    out += [
        "![Data flow from one module to the next.](../img/flow.svg)",
        f":label:`fig_{intro.tag}`",
        ":width:`240px`",
        "",
    ]
    out += writer.paragraph(f":numref:`fig_{intro.tag}` shows the flow.", 6)
    out += ["```toc", ":maxdepth: 2", "", *(s.name for s in sections[1:]), "```", ""]
    return out


def bibtex(sections: list[Section]) -> str:
    entries = []
    for s in sections:
        entries.append(
            f"@article{{{s.cite_key},\n  title = {{Layers of Section {s.chapter}.{s.number}}},\n"
            f"  author = {{Author, Ann and Coauthor, Ben and Third, Cy}},\n"
            f"  journal = {{Journal of Synthetic Results}},\n  year = {{{2000 + s.number}}}\n}}\n"
        )
    return "\n".join(entries)


CONFIG = """[project]
name = synthetic
title = A Synthetic Book of {pages} Pages
author = The benchmark
copyright = 2026, The benchmark
release = 0.1.0

[build]
notebooks = *.md */*.md
resources = img/ d2l/
tabs = {tabs}
eval_notebook = False

[library-pytorch]
lib_file = d2l/torch.py

[library-mxnet]
lib_file = d2l/mxnet.py

[library-jax]
lib_file = d2l/jax.py

[library-tensorflow]
lib_file = d2l/tensorflow.py

[pdf]
bibfile = d2l.bib
"""


def files(pages: int) -> Iterator[tuple[str, str]]:
    """(path, text) of every file of the book."""
    chapters = layout(pages)
    yield "config.ini", CONFIG.format(pages=pages, tabs=", ".join(FRAMEWORKS))
    toc = [
        "```toc",
        ":maxdepth: 2",
        ":numbered:",
        "",
        *(f"{c[0].folder}/index" for c in chapters),
        "```",
        "",
    ]
    head = ["# A Synthetic Book", "", *Writer("root").paragraph(), *toc]
    yield "index.md", "\n".join(head)
    yield "d2l/__init__.py", '"""The synthetic book\'s d2l package."""\n'
    yield "img/flow.svg", FIGURE
    previous: Section | None = None
    for sections in chapters:
        yield f"{sections[0].folder}/index.md", "\n".join(chapter_page(sections))
        for section in sections[1:]:
            yield f"{section.folder}/{section.name}.md", "\n".join(section_page(section, previous))
            previous = section
    yield "d2l.bib", bibtex([s for c in chapters for s in c])


def write_book(out: Path, pages: int) -> int:
    """Write the book into ``out`` (replacing what it held); returns the number of pages."""
    if out.exists():
        shutil.rmtree(out)
    count = 0
    for name, text in files(pages):
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        count += name.endswith(".md")
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the book into (replaced)")
    parser.add_argument("--pages", type=int, default=200, help="chapter and section pages")
    args = parser.parse_args(argv)
    if args.pages < 1:
        parser.error("--pages must be 1 or more")
    count = write_book(args.out, args.pages)
    print(f"wrote {count} pages into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
