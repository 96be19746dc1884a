"""Render stage, part three: write the MyST pages and run Sphinx into ``_build/html``."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.fsutil import write_atomic
from polybook.nb import strip_ansi
from polybook.paths import SOURCE_ROOT
from polybook.site.files import CELLS_SUFFIX, MAP_SUFFIX, STATIC
from polybook.site.render import Page

WARNING = re.compile(r"^(?P<path>[^\n:]+?\.md):(?P<line>\d+): (?:WARNING|ERROR): (?P<msg>.*)$")
MATHJAX = SOURCE_ROOT / ".envs" / "node" / "node_modules" / "mathjax" / "es5"


def _book_assets(config: BookConfig, pattern: str) -> list[str]:
    folder = config.root / "static"
    return sorted(p.name for p in folder.glob(pattern)) if folder.is_dir() else []


def sphinx_config(config: BookConfig) -> dict[str, Any]:
    """Sphinx settings derived from the book's config (no conf.py is written)."""
    return {
        "project": config.title,
        "author": config.author,
        "copyright": config.copyright,
        "release": config.release,
        "language": config.lang,
        "root_doc": "index",
        "extensions": ["myst_parser", "polybook.site.sphinx_ext"],
        "source_suffix": {".md": "markdown"},
        "exclude_patterns": ["_pb_outputs/**"],
        "myst_enable_extensions": ["dollarmath", "amsmath", "colon_fence"],
        "myst_dmath_double_inline": True,
        "myst_heading_anchors": 3,
        "numfig": True,
        "numfig_secnum_depth": 2,
        "numfig_format": {
            "figure": "Fig. %s",
            "table": "Table %s",
            "code-block": "Listing %s",
            "section": "Section %s",
        },
        "math_numfig": True,
        "math_eqref_format": "({number})",
        "html_theme": "furo",
        "html_title": config.title,
        # Generated assets (MathJax), then the book's own static/ folder if it has one.
        "html_static_path": [
            "_static",
            *([str(config.root / "static")] if (config.root / "static").is_dir() else []),
        ],
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "mathjax_path": "mathjax/tex-chtml.js",
        "pb_tabs": list(config.tabs),
        "html_css_files": _book_assets(config, "*.css"),
        "html_js_files": _book_assets(config, "*.js"),
        "suppress_warnings": ["myst.header"],
    }


def _sync_tree(src: Path, dst: Path) -> bool:
    """Copy changed files of ``src`` into ``dst``; returns whether any was copied."""
    changed = False
    for path in src.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            target = dst / path.relative_to(src)
            if not target.exists() or target.read_bytes() != path.read_bytes():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
                changed = True
    return changed


def write_sources(config: BookConfig, pages: Sequence[Page], srcdir: Path) -> bool:
    """Write pages, cell data, output files and resources; drop pages no longer in the book.

    Returns whether anything changed.
    """
    wanted: set[Path] = set()
    changed = False
    for page in pages:
        base = srcdir / page.docname
        for suffix, data in (
            (".md", page.text),
            (CELLS_SUFFIX, json.dumps(page.cells, indent=1, sort_keys=True)),
            (MAP_SUFFIX, json.dumps(page.lines.origin)),
        ):
            target = base.with_name(base.name + suffix)
            changed |= write_atomic(target, data)
            wanted.add(target)
        for name, raw in page.files.items():
            changed |= write_atomic(srcdir / name, raw)
    for stale in srcdir.rglob("*.md"):
        if stale not in wanted:
            for suffix in (".md", CELLS_SUFFIX, MAP_SUFFIX):
                stale.with_name(stale.name.removesuffix(".md") + suffix).unlink(missing_ok=True)
            changed = True
    for resource in config.resources:
        source = config.root / resource
        if source.is_dir():
            changed |= _sync_tree(source, srcdir / resource.strip("/"))
    static = srcdir / "_static"
    if MATHJAX.is_dir():
        changed |= write_atomic(
            static / "mathjax" / "tex-chtml.js", (MATHJAX / "tex-chtml.js").read_bytes()
        )
        changed |= _sync_tree(
            MATHJAX / "output" / "chtml" / "fonts" / "woff-v2",
            static / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2",
        )
    return changed


def _assets_digest(config: BookConfig) -> str:
    """Hash of the files Sphinx copies as they are (the tool's and the book's static files)."""
    digest = hashlib.sha256()
    for folder in (STATIC, config.root / "static"):
        for path in sorted(folder.glob("*")) if folder.is_dir() else []:
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


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
    """Build the HTML site (in a Sphinx process of its own); returns the output folder."""
    srcdir = config.build_dir / "site_src"
    outdir = config.build_dir / "html"
    changed = write_sources(config, pages, srcdir)
    if not MATHJAX.is_dir():
        reporter.warn(
            Location(str(MATHJAX)), "MathJax is not installed: run `make setup`", "render"
        )
    settings = {
        "srcdir": str(srcdir),
        "outdir": str(outdir),
        "builder": "html",
        "doctreedir": str(config.build_dir / "doctrees"),
        "config": sphinx_config(config),
        "assets": _assets_digest(config),
    }
    settings_file = config.build_dir / "sphinx-html.json"
    changed |= write_atomic(settings_file, json.dumps(settings, indent=1))
    if not changed and (outdir / "index.html").is_file():
        return outdir
    done = subprocess.run(
        [sys.executable, "-m", "polybook.site.sphinx_run", str(settings_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    _report(strip_ansi(done.stderr), srcdir, reporter)
    if done.returncode != 0:
        reporter.error(PolybookError(Location("sphinx"), "the HTML build failed", "render"))
    return outdir
