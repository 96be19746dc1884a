"""The install cell of the notebooks the site offers for download.

A downloaded notebook runs on the reader's own Jupyter (or any platform it is uploaded to):
its first code cell installs what the page needs, as the platforms' notebooks do (see
:mod:`polybook.notebooks.install`): the page's ``#required_libs`` first, then the book's
library from where :func:`polybook.notebooks.library_source.library_source` says for plain
Jupyter (the wheel the site publishes where ``[html] base_url`` is known) and the
framework at the version the book was built with. Pages without code get none.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

from nbformat import NotebookNode

from polybook.config import Book
from polybook.diagnostics import PolybookError
from polybook.library.package_spec import package_spec
from polybook.meta import notebook_meta
from polybook.nb import new_code_cell
from polybook.notebooks.install import Installs, imported_modules, install_source, installs
from polybook.notebooks.library_source import InstallSettings, library_source
from polybook.notebooks.student import needs_gpu
from polybook.notebooks.variants import REGISTRY

CELL_ID = "polybook-install"


@dataclass(frozen=True)
class DownloadInstalls:
    """What the downloaded notebooks of each framework install (None: the book has no
    library to read the pins from)."""

    by_framework: dict[str, Installs]

    def source(self, nb: NotebookNode, framework: str) -> str:
        """The install cell's code for ``nb`` of ``framework``; "" where it needs nothing."""
        needs = self.by_framework.get(framework)
        libraries = notebook_meta(nb).required_libs
        requirements = (
            needs.requirements(framework, imported_modules(nb), needs_gpu(nb)) if needs else []
        )
        if not requirements and not libraries:
            return ""
        return install_source(requirements, libraries)


def download_installs(
    book: Book, settings: InstallSettings, tabs: Iterable[str]
) -> DownloadInstalls:
    """The install cells' requirements of the downloads of ``tabs``; none where the library's
    files are not there to read the pins from."""
    wanted = tuple(tabs)
    try:
        spec = package_spec(book, wanted)
    except PolybookError:
        return DownloadInstalls({})
    jupyter = REGISTRY["jupyter"]
    found = {}
    for fw in wanted:
        source = library_source(settings, spec.name, jupyter, fw)
        found[fw] = installs(spec, source.requirement)
    return DownloadInstalls(found)


def has_code(nb: NotebookNode) -> bool:
    """Whether ``nb`` has a code cell with code in it."""
    return any(c.cell_type == "code" and c.source.strip() for c in nb.cells)


def with_install_cell(nb: NotebookNode, source: str) -> NotebookNode:
    """``nb`` (left untouched) with the install cell ``source`` after its title cell (first
    where it opens with code); ``nb`` itself where ``source`` is empty."""
    if not source:
        return nb
    out = copy.copy(nb)
    cells = list(nb.cells)
    at = 1 if cells and cells[0].cell_type == "markdown" else 0
    cells.insert(at, new_code_cell(source, CELL_ID))
    out.cells = cells
    return out
