"""Where a build reads and writes each thing: every folder and file of ``_build/``, the
committed ``_freeze/`` and the framework environments, named in this one place.

A stage asks its :class:`Layout` (``config.layout``) for a path; no other module spells
``_build`` or one of its folders. An output names its own places with the generic
:meth:`Layout.output_dir` and :meth:`Layout.book_file` (``polybook.<output>.places``); the
one it names here is the site's folder (:attr:`Layout.html`), which ``polybook serve``,
``linkcheck`` and the drift reports read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

BUILD_DIR = "_build"
FREEZE_DIR = "_freeze"  # frozen outputs of a GPU host, committed with the book
COMPAT_DIR = "_compat"  # the record of `polybook compat` a book commits (its last check)
ENVS_DIR = ".envs"  # a book's own environments
ENVS_VARIABLE = "POLYBOOK_ENVS"  # a folder of environments shared by books
LOCK_FILE = ".lock"
STATE_FILE = "state.json"
NOTEBOOKS_LINK = "_notebooks"  # in the site: _notebooks/<framework>/<page>.ipynb
DIST_LINK = "_dist"  # in the site, and beside notebooks a repository holds: _dist/<wheel>
KEY_LENGTH = 16  # hex digits of a requirement set's hash in a shared folder's names


@dataclass(frozen=True)
class EnvsFolder:
    """A folder of framework environments: a book's own ``.envs`` holds one per framework,
    by name (``pytorch``); a folder books share holds one per requirement set
    (``pytorch-<hash of its requirement files>``), so that two books meet in one
    environment only when they pin the same packages."""

    path: Path
    shared: bool = False

    def environment(self, framework: str, requirements_hash: str) -> Path:
        """The venv of ``framework`` installed from the requirement set of that hash."""
        if not self.shared:
            return self.path / framework
        return self.path / f"{framework}-{requirements_hash[:KEY_LENGTH]}"

    def kernels(self, environment: Path) -> Path:
        """The kernelspecs' folder of the venv at ``environment``: the book's, beside its
        venvs; in a shared folder, one per venv (the book's own holds one per framework)."""
        if self.shared:
            return self.path / "jupyter" / environment.name / "kernels"
        return self.path / "kernels"

    def side(self, name: str) -> EnvsFolder:
        """A side environment's own folder (``polybook upgrade``): ``side/<name>/`` here, a
        level deeper than the framework environments, so no host takes it for one."""
        return EnvsFolder(self.path / "side" / name)

    def candidates(self, framework: str) -> list[Path]:
        """The venvs of ``framework`` this folder holds, whatever their requirement set."""
        if not self.shared:
            return [self.path / framework]
        return sorted(self.path.glob(f"{framework}-{'?' * KEY_LENGTH}"))


def envs_folder(book_root: Path, configured: str = "") -> EnvsFolder:
    """``[build] envs_dir``, else ``$POLYBOOK_ENVS``, else the book's own ``.envs``; any
    folder but the book's own is taken as shared by books."""
    own = (book_root / ENVS_DIR).resolve()
    chosen = configured or os.environ.get(ENVS_VARIABLE, "")
    path = Path(chosen).expanduser().resolve() if chosen else own
    return EnvsFolder(path, shared=path != own)


def notebook_file(page: str) -> str:
    """``chapter/page.md`` -> ``chapter/page.ipynb``."""
    return page.removesuffix(".md") + ".ipynb"


@dataclass(frozen=True)
class Layout:
    """The places of one book's build (``root`` holds its ``config.ini``)."""

    root: Path
    name: str = "book"  # the book's name: its PDFs and zips are named after it
    side: str = ""  # a side build's name (``polybook upgrade``): it keeps to _build/side/<side>

    @property
    def build(self) -> Path:
        main = self.root / BUILD_DIR
        return main / "side" / self.side if self.side else main

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

    @property
    def compat(self) -> Path:
        """The folder of the last ``polybook compat`` record the outputs show: this build's
        (``_build/compat``), else the one the book commits (``_compat/``), as ``_freeze/``."""
        built = self.output_dir("compat")
        committed = self.root / COMPAT_DIR
        kept = not (built / "compat.json").is_file() and (committed / "compat.json").is_file()
        return committed if kept else built

    @property
    def compat_records(self) -> list[Path]:
        """Both places a ``compat.json`` is read from (a no-op check reads both)."""
        return [self.output_dir("compat") / "compat.json", self.root / COMPAT_DIR / "compat.json"]

    # Any output's places (``polybook.output``: each output says which are its own)

    def output_dir(self, name: str) -> Path:
        """The folder that output ``name`` writes: ``_build/<name>``."""
        return self.build / name

    def book_file(self, name: str, framework: str, suffix: str) -> Path:
        """A file output ``name`` makes of the whole book for ``framework``:
        ``_build/<name>/<book>-<framework><suffix>``."""
        return self.output_dir(name) / f"{self.name}-{framework}{suffix}"

    def built_books(self, name: str, tabs: tuple[str, ...], suffix: str) -> dict[str, Path]:
        """The frameworks of ``tabs`` whose :meth:`book_file` exists, with its path."""
        found = {fw: self.book_file(name, fw, suffix) for fw in tabs}
        return {fw: path for fw, path in found.items() if path.is_file()}

    # Execution

    @property
    def eval(self) -> Path:
        """The executed notebooks, ``eval/<framework>/<page>.ipynb``."""
        return self.output_dir("eval")

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
    def math_cache(self) -> Path:
        """Each formula's SVG, drawn once per MathJax version (kept by ``make clean``)."""
        return self.build / "cache" / "math"

    @property
    def inert_cache(self) -> Path:
        """Each copied SVG figure's inert form, by its digest (kept by ``make clean``)."""
        return self.build / "cache" / "inert"

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
        """The site's folder, which ``polybook serve`` serves, ``linkcheck`` checks and the
        drift reports link (the site's other places: ``polybook.site.places``)."""
        return self.output_dir("html")

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

    @property
    def site_links(self) -> Path:
        """The anchors and links of each page of the site, as last read."""
        return self.build / "site-links.json"

    def sphinx_file(self, builder: str, suffix: str) -> Path:
        """``sphinx-html.json``, ``sphinx-html.log``, ``sphinx-html.diagnostics.jsonl``."""
        return self.build / f"sphinx-{builder}{suffix}"

    # The other outputs name their own places (``polybook.<output>.places``): each asks
    # ``output_dir`` and ``book_file`` with its own name.

    @property
    def dist(self) -> Path:
        return self.output_dir("dist")

    @property
    def dist_stamp(self) -> Path:
        """The digest of what ``dist``'s files were built from."""
        return self.dist / ".inputs"

    @property
    def lab(self) -> Path:
        return self.build / "lab"

    # What changed between builds (``polybook diff``, ``upgrade``, ``baseline``)

    @property
    def baselines(self) -> Path:
        """Saved baselines, ``baselines/<name>/``: executed notebooks and package versions."""
        return self.build / "baselines"

    def side_build(self, name: str) -> Path:
        """The build folder of side build ``name`` (what :attr:`build` is for its layout)."""
        return Layout(self.root, self.name, name).build

    @property
    def drift_reports(self) -> Path:
        """The HTML reports of ``polybook diff`` and ``polybook upgrade``."""
        return self.build / "drift"
