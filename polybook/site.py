"""Render stage, part three: write the MyST pages and run Sphinx into ``_build/html``."""

from __future__ import annotations

import io
import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .config import BookConfig
from .diagnostics import Location, Reporter
from .envs import SOURCE_ROOT
from .fsutil import write_atomic
from .render import Page
from .sphinx_ext import CELLS_SUFFIX

MAP_SUFFIX = ".pbmap.json"
WARNING = re.compile(r"^(?P<path>[^\n:]+?\.md):(?P<line>\d+): (?:WARNING|ERROR): (?P<msg>.*)$")
MATHJAX = SOURCE_ROOT / ".envs" / "node" / "node_modules" / "mathjax" / "es5"


def sphinx_config(config: BookConfig) -> dict[str, Any]:
    """Sphinx settings derived from the book's config (no conf.py is written)."""
    return {
        "project": config.title,
        "author": config.author,
        "copyright": config.copyright,
        "release": config.release,
        "language": config.lang,
        "root_doc": "index",
        "extensions": ["myst_parser", "polybook.sphinx_ext"],
        "source_suffix": {".md": "markdown"},
        "exclude_patterns": ["_pb_outputs/**"],
        "myst_enable_extensions": ["dollarmath", "amsmath", "colon_fence"],
        "myst_dmath_double_inline": True,
        "myst_heading_anchors": 3,
        "numfig": True,
        "numfig_format": {"figure": "Fig. %s", "table": "Table %s", "code-block": "Listing %s",
                          "section": "Section %s"},
        "math_numfig": True,
        "math_eqref_format": "({number})",
        "html_theme": "furo",
        "html_title": config.title,
        "html_static_path": [],
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "mathjax_path": "mathjax/tex-chtml.js",
        "pb_tabs": list(config.tabs),
        "suppress_warnings": ["myst.header"],
    }


def _sync_tree(src: Path, dst: Path) -> None:
    """Copy changed files of ``src`` into ``dst`` (mtimes kept so Sphinx sees no change)."""
    for path in src.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            target = dst / path.relative_to(src)
            if not target.exists() or target.read_bytes() != path.read_bytes():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)


def write_sources(config: BookConfig, pages: Sequence[Page], srcdir: Path) -> None:
    """Write pages, cell data, output files and resources; drop pages no longer in the book."""
    wanted: set[Path] = set()
    for page in pages:
        base = srcdir / page.docname
        for suffix, data in ((".md", page.text),
                             (CELLS_SUFFIX, json.dumps(page.cells, indent=1, sort_keys=True)),
                             (MAP_SUFFIX, json.dumps(page.lines.origin))):
            target = base.with_name(base.name + suffix)
            write_atomic(target, data)
            wanted.add(target)
        for name, raw in page.files.items():
            write_atomic(srcdir / name, raw)
    for stale in srcdir.rglob("*.md"):
        if stale not in wanted:
            stale.unlink()
    for resource in config.resources:
        source = config.root / resource
        if source.is_dir():
            _sync_tree(source, srcdir / resource.strip("/"))
    static = srcdir / "_static"
    if MATHJAX.is_dir():
        write_atomic(static / "mathjax" / "tex-chtml.js", (MATHJAX / "tex-chtml.js").read_bytes())
        _sync_tree(MATHJAX / "output" / "chtml" / "fonts" / "woff-v2",
                   static / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2")


def _report(text: str, srcdir: Path, reporter: Reporter) -> None:
    """Sphinx's warnings, moved from the generated pages back to the author's lines."""
    for raw in text.splitlines():
        match = WARNING.match(raw.strip())
        if not match:
            if raw.strip():
                reporter.warn(Location("sphinx"), raw.strip(), "render")
            continue
        gen = Path(match.group("path"))
        rel = gen.relative_to(srcdir) if gen.is_absolute() and gen.is_relative_to(srcdir) else gen
        origin_file = srcdir / (rel.as_posix().removesuffix(".md") + MAP_SUFFIX)
        line = int(match.group("line"))
        if origin_file.is_file():
            origin: list[int] = json.loads(origin_file.read_text(encoding="utf-8"))
            line = origin[min(line, len(origin)) - 1] if origin else line
        reporter.warn(Location(rel.as_posix(), line), match.group("msg"), "render")


def build_site(config: BookConfig, pages: Sequence[Page], reporter: Reporter) -> Path:
    """Build the HTML site; returns the output folder."""
    from sphinx.application import Sphinx

    srcdir = config.build_dir / "site_src"
    outdir = config.build_dir / "html"
    write_sources(config, pages, srcdir)
    if not MATHJAX.is_dir():
        reporter.warn(Location(str(MATHJAX)), "MathJax is not installed: run `make setup`",
                      "render")
    warnings = io.StringIO()
    app = Sphinx(
        srcdir=str(srcdir),
        confdir=None,
        outdir=str(outdir),
        doctreedir=str(config.build_dir / "doctrees"),
        buildername="html",
        confoverrides=sphinx_config(config),
        status=io.StringIO(),
        warning=warnings,
        freshenv=False,
    )
    app.build()
    _report(warnings.getvalue(), srcdir, reporter)
    return outdir
