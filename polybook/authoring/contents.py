"""Jupyter contents manager: the book's Markdown pages open as notebooks and save back.

A ``.md`` file asked for as a notebook (``GET /api/contents/page.md?type=notebook``, which
is what JupyterLab's notebook view of a Markdown file asks) is read by
:mod:`polybook.authoring.pages`; saving that notebook writes the page back losslessly and
atomically, without outputs. Every other request is Jupyter's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from nbformat import NotebookNode
from tornado.web import HTTPError
from traitlets import Unicode

from polybook import frameworks
from polybook.authoring.pages import PageError, to_notebook, to_page
from polybook.config.declarations import SHIPPED
from polybook.fsutil import write_atomic

PAGE_SUFFIX = ".md"


def kernel_metadata(framework: str) -> dict[str, str]:
    """The ``kernelspec`` metadata that picks ``framework``'s polybook kernel."""
    fw = frameworks.lookup(SHIPPED, framework)
    return {
        "name": fw.kernel_name,
        "display_name": f"Python 3 ({fw.display_name})",
        "language": "python",
    }


class PageContentsManager(AsyncLargeFileManager):
    """Jupyter's file contents manager, with Markdown pages readable as notebooks."""

    framework = Unicode(
        "", config=True, help="framework whose kernel a page opens with (empty: none chosen)"
    )

    async def _read_notebook(
        self,
        os_path: str,
        as_version: int = 4,
        capture_validation_error: dict[str, Any] | None = None,
        raw: bool = False,
    ) -> Any:
        if not os_path.endswith(PAGE_SUFFIX):
            return await super()._read_notebook(os_path, as_version, capture_validation_error, raw)
        data = Path(os_path).read_bytes()
        kernel = kernel_metadata(self.framework) if self.framework else None
        try:
            nb = to_notebook(data.decode("utf-8"), kernel)
        except (UnicodeDecodeError, PageError) as exc:
            raise HTTPError(400, f"{Path(os_path).name} cannot open as a notebook: {exc}") from exc
        return (nb, data) if raw else nb

    async def _save_notebook(
        self, os_path: str, nb: NotebookNode, capture_validation_error: Any = None
    ) -> None:
        if not os_path.endswith(PAGE_SUFFIX):
            await super()._save_notebook(os_path, nb, capture_validation_error)
            return
        try:
            text = to_page(nb)
        except PageError as exc:  # its metadata edited by hand: the page is left as it was
            raise HTTPError(400, f"{Path(os_path).name} cannot be saved: {exc}") from exc
        write_atomic(Path(os_path), text)

    async def save(self, model: dict[str, Any], path: str = "") -> dict[str, Any]:
        saved: dict[str, Any] = await super().save(model, path)
        if model.get("type") == "notebook" and path.endswith(PAGE_SUFFIX):
            saved = await self.get(path, content=False, type="notebook")
        return saved
