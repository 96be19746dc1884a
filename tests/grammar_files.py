"""Hypothesis strategies for the files of a book besides its pages, from their formats:
``config.ini`` (every key the schema declares, good and bad values), an edition's root,
``_freeze/`` entries, notebooks as Jupyter saves them."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from polybook.config.schema import KEYS, Key
from polybook.library.canonical import KEY_FORMAT

from .grammar import (
    CONFIG,
    FRAMEWORKS,
    SVG,
    Book,
    code_cell,
    index_page,
    markdown_books,
    page,
    prose,
    python_lines,
)

PNG_NAME = "files/" + "0" * 64 + ".png"

# -- config.ini ------------------------------------------------------------------------------

GOOD = {
    "bool": ["true", "no", "1", "On"],
    "int": ["0", "2", "auto"],
    "float": ["0", "1e-3", "2.5"],
    "str": ["x", "fuzz book", "%(name)s"],
    "patterns": ["^x$", "a\n  b+"],
    "words": ["pytorch", "pytorch, jax", "a b"],
    "url": ["https://example.com", "http://a/b/"],
    "dist": ["d2l", "my-lib"],
    "name": ["d2l", "mylib"],
    "path": ["d2l/torch.py", "lib/x.py", "refs.bib", "img/x.svg", "req.txt"],
}
BAD = [
    "",
    " ",
    "maybe",
    "-1",
    "nan",
    "inf",
    "1e999",
    "[",
    "(",
    "*",
    "%(missing)s",
    "%%",
    "../outside.py",
    "/etc/passwd",
    "~/x",
    "a\x00b",
    "é",
    "ftp://x",
    "http://",
    "pytorch pytorch",
    "paddle",
    "x.py",
    "1x.py",
    "\\",
    "line\n  continued",
    "a:b",
    "99999999999999999999999",
]


def key_values(key: Key) -> st.SearchStrategy[str]:
    good = list(key.choices) + GOOD.get(key.kind, [])
    if key.section.startswith("env"):
        good = [g for g in good if g != "1"]
    return st.sampled_from(good + BAD)


def _section_name(key: Key) -> st.SearchStrategy[str]:
    if "<" not in key.section:
        return st.just(key.section)
    prefix = key.section.split("<")[0]
    return st.sampled_from([*FRAMEWORKS, "paddle", "x-y", "", "zh"]).map(lambda n: prefix + n)


# Keys whose value a build would act on outside the book (a network scheduler, a cache or
# data folder, a Python to run, environments): given values that stay in the book's folder.
HOST_KEYS = {"executor", "dask_scheduler", "cache", "data", "envs_dir", "python", "install"}


@st.composite
def key_line(draw: st.DrawFn) -> tuple[str, str]:
    """(section, ``key = value`` line) for a key the schema declares, or a stray one."""
    declared = draw(st.sampled_from(KEYS))
    section = draw(_section_name(declared))
    if declared.name in HOST_KEYS:
        value = draw(st.sampled_from(["", "local", "none", "bad", "tmp-cache"]))
    else:
        value = draw(key_values(declared))
    name = draw(st.sampled_from([declared.name, declared.name, declared.name.upper(), "nokey"]))
    separator = draw(st.sampled_from([" = ", "=", ": ", " "]))
    return section, f"{name}{separator}{value}".replace("\n", "\n  ")


@st.composite
def config_text(draw: st.DrawFn) -> str:
    """A ``config.ini`` of declared keys in their sections (and others): good and bad values,
    duplicate keys and sections, interpolation, comments, a BOM, CRLF, stray lines."""
    lines_by: dict[str, list[str]] = {}
    order: list[str] = []
    for section, line in draw(st.lists(key_line(), max_size=12)):
        if section not in lines_by or draw(st.booleans()):
            order.append(section)
            lines_by.setdefault(section, [])
        lines_by[section].append(line)
    out = []
    if draw(st.integers(0, 9)) == 0:
        out.append(draw(st.sampled_from(["stray = 1", "# comment", "[", "[]", "junk line"])))
    for section in order:
        out.append(f"[{section}]")
        out += lines_by[section]
        if draw(st.integers(0, 5)) == 0:
            out.append(draw(st.sampled_from(["  continued", "no separator", "; c", "= v"])))
    text = "\n".join(out) + "\n"
    bom = draw(st.sampled_from(["", "", "\ufeff"]))
    return bom + text.replace("\n", draw(st.sampled_from(["\n", "\n", "\r\n"])))


SIMPLE_PAGE = "# P\n:label:`sec_p`\n\n```{.python .input}\n#@save\ndef f():\n    return 1\n```\n"


@st.composite
def config_books(draw: st.DrawFn) -> Book:
    """A small valid book under a generated ``config.ini``."""
    text = draw(config_text())
    config: str | bytes = text
    if draw(st.integers(0, 19)) == 0:
        config = text.encode("utf-8") + draw(st.sampled_from([b"\xff", b"\xe9", b"\x00"]))
    return Book(
        {
            "config.ini": config,
            "index.md": index_page(["p"]),
            "p.md": SIMPLE_PAGE,
            "img/x.svg": SVG,
            "req.txt": "numpy==2.0\n",
        }
    )


# -- editions --------------------------------------------------------------------------------


@st.composite
def edition_books(draw: st.DrawFn) -> Book:
    """A book with ``[edition-…]`` sections naming another book beside it (``../other``), a
    folder that is no book, itself, a missing one; the other book has its own (generated)
    config, pages that pair or not, a ``sync.json``."""
    sections = []
    for _ in range(draw(st.integers(1, 2))):
        name = draw(st.sampled_from(["zh", "en", "x-y", "", "zh"]))
        root = draw(st.sampled_from(["../other", "../other", ".", "../none", "img", "", "../book"]))
        lines = [f"[edition-{name}]", f"root = {root}"]
        if draw(st.booleans()):
            lines.append(f"source = {draw(st.sampled_from(['true', 'false', 'x']))}")
        if draw(st.booleans()):
            lines.append(f"lang = {draw(st.sampled_from(['zh', 'en', '', 'xx']))}")
        if draw(st.booleans()):
            lines.append(f"url = {draw(st.sampled_from(['https://x/', '', 'rel/']))}")
        sections.append("\n".join(lines))
    other_config = draw(
        st.sampled_from(
            [
                CONFIG.format(tabs="pytorch") + "[project]\n",
                CONFIG.format(tabs="pytorch") + "\n[edition-en]\nroot = ../book\nsource = true\n",
                "[project]\nlang = zh\n[build]\ntabs = pytorch\n",
                "[build]\ntabs = nope\n",
                "not ini",
            ]
        )
    )
    files: dict[str, str | bytes] = {
        "config.ini": CONFIG.format(tabs="pytorch") + "\n" + "\n\n".join(sections) + "\n",
        "index.md": index_page(["p"]),
        "p.md": SIMPLE_PAGE,
        "img/x.svg": SVG,
        "../other/config.ini": other_config,
        "../other/index.md": index_page(draw(st.sampled_from([["p"], ["q"], []]))),
    }
    if draw(st.booleans()):
        files["../other/p.md"] = draw(page("P"))
    if draw(st.booleans()):
        files["../other/sync.json"] = draw(
            st.sampled_from(['{"p.md": "abc"}', "[]", "{", '{"p.md": 1}', "null"])
        )
    return Book(files)


# -- _freeze/ entries ------------------------------------------------------------------------

FREEZE_PAGE = "# P\n\n```{.python .input}\nx = d2l.try_gpu()\n```\n"
MATCHING = "@code"  # stands for the page's real code key, filled in when the book is written

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 10**20), st.sampled_from(["", "x", "12", "1.5"])
)


@st.composite
def frozen_output(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["stream", "execute_result", "display_data", "error", "bogus"]))
    out: dict[str, Any] = {"output_type": kind}
    if kind == "stream":
        out |= {
            "name": draw(st.sampled_from(["stdout", "stderr", 1])),
            "text": draw(st.sampled_from(["a\n", ["a", "b"], 3])),
        }
    elif kind == "error":
        out |= {
            "ename": "E",
            "evalue": draw(json_scalars),
            "traceback": draw(st.sampled_from([[], ["x"], "x"])),
        }
    else:
        data: dict[str, Any] = {}
        for mime in draw(
            st.lists(
                st.sampled_from(
                    ["text/plain", "image/png", "image/svg+xml", "text/html", "application/json"]
                ),
                max_size=3,
            )
        ):
            data[mime] = draw(
                st.one_of(
                    st.sampled_from(["x", ["a", "b"], "iVBORw0KGgo=", "!!notbase64", 5, None]),
                    st.sampled_from(
                        [PNG_NAME, "files/../../etc/passwd", "/etc/passwd", "files/x.png", 3]
                    ).map(lambda f: {"file": f}),
                )
            )
        out["data"] = draw(st.sampled_from([data, data, [], "x"]))
        out["metadata"] = draw(st.sampled_from([{}, {}, [], None]))
        if kind == "execute_result":
            out["execution_count"] = draw(json_scalars)
    if draw(st.integers(0, 9)) == 0:
        return draw(json_scalars)
    return out


@st.composite
def frozen_cell(draw: st.DrawFn) -> Any:
    cell: dict[str, Any] = {
        "code": draw(st.sampled_from(["tree:0:abc", "", 1, None])),
        "source": draw(st.sampled_from(["x = d2l.try_gpu()", "", 3])),
        "line": draw(st.one_of(st.integers(-1, 10**12), st.sampled_from(["3", "x", None, 1.5]))),
        "execution_count": draw(json_scalars),
        "outputs": draw(st.one_of(st.lists(frozen_output(), max_size=3), json_scalars)),
        "skipped": draw(st.sampled_from(["", "needs 2 GPUs", 0, None, True])),
    }
    for name in draw(st.lists(st.sampled_from(sorted(cell)), max_size=2, unique=True)):
        del cell[name]
    return cell if draw(st.integers(0, 14)) else draw(json_scalars)


@st.composite
def frozen_entry(draw: st.DrawFn) -> Any:
    entry: dict[str, Any] = {
        "format": draw(st.sampled_from([2, 1, "x", None])),
        "key_format": draw(
            st.sampled_from([KEY_FORMAT, KEY_FORMAT, 1, 99, "2", "x", None, [], 1.5])
        ),
        "code": draw(st.sampled_from([MATCHING, MATCHING, "", "0" * 64, 7, None])),
        "library": draw(st.sampled_from(["", "x", None, 3])),
        "figures": draw(st.sampled_from(["svg", "png", None, 1])),
        "page": draw(st.sampled_from(["p.md", "other.md", "../x", 3, None])),
        "framework": draw(st.sampled_from(["pytorch", "jax", "", None])),
        "run": draw(
            st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "device_class": st.sampled_from(["cuda", "cpu", "tpu", "", 3]),
                        "host_gpus": json_scalars,
                        "seconds": json_scalars,
                        "date": json_scalars,
                        "skipped": json_scalars,
                        "framework_version": json_scalars,
                    },
                ),
                json_scalars,
                st.just([]),
            )
        ),
        "cells": draw(st.one_of(st.lists(frozen_cell(), max_size=3), json_scalars, st.just({}))),
    }
    for name in draw(st.lists(st.sampled_from(sorted(entry)), max_size=2, unique=True)):
        del entry[name]
    return entry if draw(st.integers(0, 14)) else draw(st.one_of(json_scalars, st.just([entry])))


@st.composite
def frozen_text(draw: st.DrawFn) -> str | bytes:
    text = json.dumps(draw(frozen_entry()), indent=draw(st.sampled_from([None, 1])))
    form = draw(st.integers(0, 19))
    if form == 0:
        return text[: len(text) // 2]  # cut short
    if form == 1:
        return b"\xff" + text.encode()
    if form == 2:
        return "\ufeff" + text
    return text


@st.composite
def freeze_books(draw: st.DrawFn) -> Book:
    """A one-page book (its code names a device) with generated ``_freeze/`` entries: the
    page's own, and others; an image file, or a link out where an entry's image should be."""
    files: dict[str, str | bytes] = {
        "config.ini": CONFIG.format(tabs="pytorch"),
        "index.md": index_page(["p"]),
        "p.md": FREEZE_PAGE,
        f"_freeze/{PNG_NAME}": b"\x89PNG\r\n\x1a\n",
    }
    for path in draw(
        st.lists(
            st.sampled_from(
                [
                    "pytorch/p.json",
                    "pytorch/p.json",
                    "jax/p.json",
                    "pytorch/q.json",
                    "files/x.json",
                    "p.json",
                ]
            ),
            min_size=1,
            max_size=3,
            unique=True,
        )
    ):
        files[f"_freeze/{path}"] = draw(frozen_text())
    return Book(files)


# -- notebooks as Jupyter saves them ---------------------------------------------------------


@st.composite
def saved_notebook(draw: st.DrawFn) -> dict[str, Any]:
    """A notebook as JupyterLab saves a page opened as one: nbformat 4 JSON, source as a
    string or a list of lines, ``polybook`` metadata as polybook wrote it, or edited."""
    meta_values: st.SearchStrategy[Any] = st.one_of(
        st.sampled_from(
            [
                {},
                {"before": []},
                {"before": [""]},
                {"before": ["", ""]},
                {"before": "x"},
                {"before": [1]},
                {"fence": ["```{.python .input}", "```"]},
                {"fence": ["~~~"]},
                {"fence": "x"},
                {"empty": True},
                {"empty": "yes"},
                [],
                "x",
                None,
            ]
        )
    )
    cells = []
    for number in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["code", "markdown", "raw"]))
        source = draw(st.one_of(prose, python_lines, code_cell()))
        cell: dict[str, Any] = {
            "cell_type": kind,
            "id": f"cell-{number}",
            "metadata": {},
            "source": source if draw(st.booleans()) else source.splitlines(keepends=True),
        }
        if kind == "code":
            cell |= {"execution_count": None, "outputs": []}
        if draw(st.booleans()):
            cell["metadata"]["polybook"] = draw(meta_values)
        cells.append(cell)
    page_meta: Any = draw(
        st.sampled_from(
            [
                {},
                {"end": [""]},
                {"end": []},
                {"end": "x"},
                {"newline": "\r\n"},
                {"newline": 3},
                {"bom": True},
                {"bom": "x"},
                [],
                None,
            ]
        )
    )
    metadata: dict[str, Any] = {"language_info": {"name": "python"}}
    if page_meta is not None:
        metadata["polybook"] = page_meta
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


@st.composite
def notebook_books(draw: st.DrawFn) -> Book:
    """A markdown book with notebooks beside its pages (as Lab saves them, or broken)."""
    book = draw(markdown_books())
    for name in draw(
        st.lists(
            st.sampled_from(["p.ipynb", "q.ipynb", "index.ipynb", "img/n.ipynb"]),
            max_size=2,
            unique=True,
        )
    ):
        text = json.dumps(draw(saved_notebook()), indent=1)
        book.files[name] = draw(st.sampled_from([text, text, text[:20], "", "{}"]))
    return book
