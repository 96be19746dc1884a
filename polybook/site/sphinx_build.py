"""Render stage, part three: write the MyST pages and run Sphinx into ``_build/html``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Location, Reporter
from polybook.fsutil import write_atomic
from polybook.paths import PACKAGE_ROOT
from polybook.saved import SavedBlock
from polybook.site import site_diagnostics
from polybook.site.autodoc import autodoc_settings
from polybook.site.extras import (
    BIBFILE,
    NOTEBOOKS,
    PDFS,
    SiteExtras,
    bibfile,
    generated_pages,
    links,
    site_pdfs,
    with_toctree,
    write_index,
    write_notebooks,
    write_pdfs,
)
from polybook.site.files import CITE_STYLE, STATIC
from polybook.site.render import Page
from polybook.site.sources import MATHJAX, keepable, write_sources
from polybook.site.sphinx_process import CRASH_LINES, EarlySphinx, run_sphinx, sphinx_jobs

__all__ = [
    "CRASH_LINES",
    "EarlySphinx",
    "build_site",
    "plan_run",
    "sphinx_jobs",
    "start_early",
    "tool_digest",
]

SITE_CODE = Path(__file__).resolve().parent  # the site stage and its Sphinx extension
# They shape every page.
PACKAGES = (
    *("sphinx", "myst-parser", "furo", "docutils", "sphinx-copybutton"),
    *("sphinxcontrib-bibtex", "pybtex", "nh3"),
)
# Code blocks that get a copy button: not outputs (highlighted as ``none``).
COPY_SELECTOR = 'div[class*="highlight-"]:not(.highlight-none) div.highlight pre'
STALE = "page kept from the last good build: its inputs failed"


def _book_assets(config: BookConfig, pattern: str) -> list[str]:
    folder = config.root / "static"
    return sorted(p.name for p in folder.glob(pattern)) if folder.is_dir() else []


def sphinx_suppressed(entries: Iterable[str]) -> list[str]:
    """The book's ``render.<type>[.<subtype>]`` suppressions as Sphinx's own types."""
    return [e.removeprefix("render.") for e in entries if e.startswith("render.")]


def _reader_config(
    config: BookConfig, notebooks: Sequence[str], generated: Sequence[str]
) -> dict[str, Any]:
    """Settings of the reader's features: copy buttons, citations, links, favicon, logo."""
    cited = bibfile(config) is not None
    settings: dict[str, Any] = {
        "copybutton_selector": COPY_SELECTOR,
        "add_module_names": False,  # API entries read as readers call them: d2l.try_gpu
        "html_use_index": any(d.startswith("api/") for d in generated),
        "pb_links": links(config, config.tabs, notebooks),
        "pb_generated": list(generated),
        "pb_bibliography": cited,
    }
    if cited:
        settings |= {
            "bibtex_bibfiles": [BIBFILE],
            "bibtex_reference_style": CITE_STYLE,
            "bibtex_default_style": "plain",
        }
    if notebooks or site_pdfs(config):
        settings["html_extra_path"] = [str(config.build_dir / "site_extra")]
    for key in ("favicon", "html_logo"):
        path = getattr(config, key)
        if path and Path(path).is_file():
            settings["html_favicon" if key == "favicon" else key] = path
    return settings


def sphinx_config(
    config: BookConfig,
    notebooks: Sequence[str] = (),
    generated: Sequence[str] = (),
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
) -> dict[str, Any]:
    """Sphinx settings derived from the book's config (no conf.py is written); ``notebooks``
    names the frameworks whose notebooks the site holds; ``libraries``, what autodoc imports
    (see :mod:`polybook.site.autodoc`)."""
    cited = ["sphinxcontrib.bibtex"] if bibfile(config) else []
    return {
        "project": config.title,
        "author": config.author,
        "copyright": config.copyright,
        "release": config.release,
        "language": config.lang,
        "root_doc": "index",
        "extensions": list(
            dict.fromkeys(
                [
                    "myst_parser",
                    "sphinx_copybutton",
                    *cited,
                    "polybook.site.sphinx_ext",
                    "polybook.site.highlight",  # IPython syntax in code cells
                    "sphinx.ext.autodoc",  # for `eval_rst` blocks, on in d2lbook too
                    *config.sphinx_extensions,
                ]
            )
        ),
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
        # Generated assets (MathJax), the tool's files, then the book's (which may override).
        "html_static_path": [
            "_static",
            str(STATIC),
            *([str(config.root / "static")] if (config.root / "static").is_dir() else []),
        ],
        "html_copy_source": False,
        "html_show_sourcelink": False,
        "mathjax_path": "mathjax/tex-chtml.js",
        "pb_tabs": list(config.tabs),
        "pb_tab_names": {t: config.framework(t).display_name for t in config.tabs},
        "html_css_files": _book_assets(config, "*.css"),
        "html_js_files": _book_assets(config, "*.js"),
        "suppress_warnings": ["myst.header", *sphinx_suppressed(config.suppress_warnings)],
        **_reader_config(config, notebooks, generated),
        **autodoc_settings(config, libraries or {}),
        # autosummary tables in `eval_rst` blocks, without stub pages (they need .rst sources)
        **(
            {"autosummary_generate": False}
            if "sphinx.ext.autosummary" in config.sphinx_extensions
            else {}
        ),
    }


def _hash_tree(digest: hashlib._Hash, folder: Path, files: Iterable[Path]) -> None:
    for path in sorted(p for p in files if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())


def tool_digest(site_code: Path = SITE_CODE) -> str:
    """Hash of what renders every page: the site stage's code and static files, the code
    the extension imports, and the versions of the packages that shape every page."""
    digest = hashlib.sha256()
    _hash_tree(digest, site_code, [*site_code.glob("*.py"), *(site_code / "static").rglob("*")])
    imported = ("frameworks.py", "library.py", "saved.py")  # names, the code's saved names
    _hash_tree(digest, PACKAGE_ROOT, [PACKAGE_ROOT / name for name in imported])
    for name in PACKAGES:
        try:
            digest.update(f"{name}=={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} missing\n".encode())
    return digest.hexdigest()


def _assets_digest(config: BookConfig) -> str:
    """Hash of the book's static files (sub-folders too), which Sphinx copies as they are."""
    digest = hashlib.sha256()
    folder = config.root / "static"
    _hash_tree(digest, folder, folder.rglob("*") if folder.is_dir() else [])
    for path in (config.favicon, config.html_logo):
        if path and Path(path).is_file():
            _hash_tree(digest, Path(path).parent, [Path(path)])
    return digest.hexdigest()


def site_settings(
    config: BookConfig,
    notebooks: Sequence[str] = (),
    generated: Sequence[str] = (),
    libraries: Mapping[str, Sequence[SavedBlock]] | None = None,
) -> dict[str, Any]:
    """What the Sphinx process is given; any change to it means Sphinx runs again."""
    build = config.build_dir
    return {
        "srcdir": str(build / "site_src"),
        "outdir": str(build / "html"),
        "builder": "html",
        "doctreedir": str(build / "doctrees"),
        "diagnostics": str(build / "sphinx-html.diagnostics.jsonl"),
        "log": str(build / "sphinx-html.log"),
        "config": sphinx_config(config, notebooks, generated, libraries),
        "assets": _assets_digest(config),
        "tool": tool_digest(),
    }


def plan_run(
    previous: dict[str, Any] | None, settings: dict[str, Any], sources_changed: bool
) -> tuple[bool, bool]:
    """(whether Sphinx runs, whether it rereads every page) given the last run's settings.

    Sphinx does not know when its extension changes: a new tool digest rereads all pages.
    """
    fresh = previous is None or previous.get("tool") != settings["tool"]
    same = previous == json.loads(json.dumps(settings))  # as it reads back from the file
    return sources_changed or not same, fresh


def _load(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def start_early(config: BookConfig) -> EarlySphinx | None:
    """A Sphinx process started on the last build's settings, for :func:`build_site`; None
    where there was no such build. The caller stops it when the build ends otherwise."""
    outdir = config.build_dir / "html"
    if not (outdir / "index.html").is_file():
        return None
    if not (config.build_dir / site_diagnostics.STORE).is_file():
        return None  # a fresh run comes
    return EarlySphinx.start(config.build_dir / "sphinx-html.json", tool_digest())


def _prune_copies(source: Path, copy: Path) -> None:
    """Remove files of the site's copy of ``source`` that ``source`` no longer has."""
    for path in copy.rglob("*") if copy.is_dir() else ():
        if path.is_file() and not (source / path.relative_to(copy)).is_file():
            path.unlink()


def build_site(
    config: BookConfig,
    pages: Sequence[Page],
    reporter: Reporter,
    stale: Collection[str] = frozenset(),
    extras: SiteExtras | None = None,
    early: EarlySphinx | None = None,
) -> Path:
    """Build the HTML site (in a Sphinx process of its own); returns the output folder.

    ``stale`` names pages (docnames) whose inputs failed in this build: where an earlier
    build wrote them, their sources are kept, and so is their last good HTML. ``extras``
    adds the notebooks for download and the library's API pages. ``early`` is a Sphinx
    process started before the pages were ready (see :func:`start_early`): it runs when
    the settings are the ones it started on, and is stopped otherwise.
    """
    extras = extras or SiteExtras()
    generated = generated_pages(config, extras, {p.docname for p in pages})
    names = [p.docname for p in generated]
    pages = [with_toctree(p, names) if p.docname == "index" else p for p in pages]
    held = {fw for _, fw in extras.notebooks}
    pdfs_changed = write_pdfs(config)  # before the settings, which link them
    frameworks = [fw for fw in config.tabs if fw in held]
    settings = site_settings(config, frameworks, names, extras.libraries)
    srcdir, outdir = Path(settings["srcdir"]), Path(settings["outdir"])
    keep = keepable(srcdir, stale)
    for name in sorted(keep):
        reporter.warn(Location(name + ".md"), STALE, "render.stale")
    if config.bibfile and not bibfile(config):
        message = f"[pdf] bibfile: no such file: {config.bibfile}"
        reporter.warn(Location("config.ini"), message, "config")
    changed = write_sources(config, [*pages, *generated], srcdir, keep)
    changed |= write_index(config, extras, srcdir)
    extra = config.build_dir / "site_extra" / NOTEBOOKS
    changed |= write_notebooks(extra, extras.notebooks, keep)
    _prune_copies(extra, outdir / NOTEBOOKS)
    changed |= pdfs_changed
    _prune_copies(extra.parent / PDFS, outdir / PDFS)
    if not MATHJAX.is_dir():
        reporter.warn(
            Location(str(MATHJAX)), "MathJax is not installed: run `make setup`", "render"
        )
    settings_file = config.build_dir / "sphinx-html.json"
    store_file = config.build_dir / site_diagnostics.STORE
    store = site_diagnostics.load(store_file)
    run, fresh = plan_run(_load(settings_file), settings, changed)
    if not run and store is not None and (outdir / "index.html").is_file():
        site_diagnostics.report(store, reporter)  # the warnings of the site as it is
        return outdir
    fresh = fresh or store is None  # without the other pages' warnings: read them all
    write_atomic(settings_file, json.dumps(settings, indent=1))
    store_file.unlink(missing_ok=True)  # stands for the site again once this run is in
    if early is not None and early.matches(settings, fresh):
        crash = early.run()
    else:
        crash = run_sphinx(settings_file, settings, fresh)
    sphinx_run = site_diagnostics.read_run(Path(settings["diagnostics"]))
    store = site_diagnostics.merge(store or {}, sphinx_run, fresh)
    site_diagnostics.save(store_file, store)
    site_diagnostics.report(store, reporter)
    if crash:
        settings_file.unlink(missing_ok=True)  # the next build runs Sphinx again, afresh
        reporter.error(Diagnostic(Location("sphinx"), crash, "render", "error"))
    return outdir
