"""Where a build reads and writes each thing: every folder and file of ``_build/``, the
committed ``_freeze/`` and the framework environments, named in this one place.

A stage asks its :class:`Layout` (``config.layout``) for a path; no other module spells
``_build`` or one of its folders.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from polybook.paths import SOURCE_ROOT

BUILD_DIR = "_build"
FREEZE_DIR = "_freeze"  # frozen outputs of a GPU host, committed with the book
LOCK_FILE = ".lock"
STATE_FILE = "state.json"
NOTEBOOKS_LINK = "_notebooks"  # in the site: _notebooks/<framework>/<page>.ipynb
PDFS_LINK = "_pdf"  # in the site: _pdf/<name>-<framework>.pdf
# Browser assets installed from npm (requirements/node): MathJax, for offline math.
NODE_MODULES = SOURCE_ROOT / ".envs" / "node" / "node_modules"


def envs_root(configured: str = "") -> Path:
    """``[build] envs_dir``, else ``$POLYBOOK_ENVS``, else ``.envs`` beside polybook's source."""
    chosen = configured or os.environ.get("POLYBOOK_ENVS", "")
    return Path(chosen).resolve() if chosen else SOURCE_ROOT / ".envs"


def notebook_file(page: str) -> str:
    """``chapter/page.md`` -> ``chapter/page.ipynb``."""
    return page.removesuffix(".md") + ".ipynb"


@dataclass(frozen=True)
class Layout:
    """The places of one book's build (``root`` holds its ``config.ini``)."""

    root: Path
    name: str = "book"  # the book's name: its PDFs and zips are named after it

    @property
    def build(self) -> Path:
        return self.root / BUILD_DIR

    @property
    def lock(self) -> Path:
        """Held by the build that runs; a second one waits."""
        return self.build / LOCK_FILE

    @property
    def state(self) -> Path:
        """What the last successful build was made from (``polybook.pipeline.state``)."""
        return self.build / STATE_FILE

    @property
    def freeze(self) -> Path:
        return self.root / FREEZE_DIR

    # Execution

    @property
    def eval(self) -> Path:
        """The executed notebooks, ``eval/<framework>/<page>.ipynb``."""
        return self.build / "eval"

    def executed(self, page: str, framework: str) -> Path:
        return self.eval / framework / notebook_file(page)

    @property
    def eval_index(self) -> Path:
        return self.eval / "index.json"

    @property
    def exec_cache(self) -> Path:
        """The local execution cache (kept by ``make clean``)."""
        return self.build / "cache" / "exec"

    @property
    def timings(self) -> Path:
        return self.build / "cache" / "timings.json"

    @property
    def lib_snapshots(self) -> Path:
        """Library packages holding what each notebook may import, named by content."""
        return self.build / "lib"

    @property
    def work(self) -> Path:
        """The local executor's job folders and worker logs."""
        return self.build / "work"

    # The site

    @property
    def html(self) -> Path:
        return self.build / "html"

    @property
    def site_src(self) -> Path:
        return self.build / "site_src"

    @property
    def doctrees(self) -> Path:
        return self.build / "doctrees"

    @property
    def site_extra(self) -> Path:
        """Files the site holds as they are: notebooks for download, PDFs."""
        return self.build / "site_extra"

    @property
    def site_warnings(self) -> Path:
        """The site's Sphinx warnings, kept per page across runs."""
        return self.build / "site-diagnostics.json"

    def sphinx_file(self, builder: str, suffix: str) -> Path:
        """``sphinx-html.json``, ``sphinx-html.log``, ``sphinx-html.diagnostics.jsonl``."""
        return self.build / f"sphinx-{builder}{suffix}"

    def sphinx_inputs(self, framework: str = "") -> Path:
        """The files outside Sphinx's sources that each page read in the last run of the
        site's Sphinx, or of ``framework``'s PDF (see ``polybook.render.inputs``)."""
        if framework:
            return self.latex(framework) / "sphinx.inputs.json"
        return self.sphinx_file("html", ".inputs.json")

    # The other outputs

    @property
    def pdf_dir(self) -> Path:
        return self.build / "pdf"

    def pdf_name(self, framework: str) -> str:
        return f"{self.name}-{framework}.pdf"

    def pdf(self, framework: str) -> Path:
        """The finished PDF of ``framework``."""
        return self.pdf_dir / self.pdf_name(framework)

    def built_pdfs(self, tabs: tuple[str, ...]) -> dict[str, Path]:
        """The frameworks of ``tabs`` that have a finished PDF, with its path."""
        found = {fw: self.pdf(fw) for fw in tabs}
        return {fw: path for fw, path in found.items() if path.is_file()}

    def latex(self, framework: str) -> Path:
        """One framework's Sphinx sources, doctrees and LaTeX run."""
        return self.build / "latex" / framework

    @property
    def notebooks(self) -> Path:
        return self.build / "notebooks"

    @property
    def dist(self) -> Path:
        return self.build / "dist"

    @property
    def lab(self) -> Path:
        return self.build / "lab"
