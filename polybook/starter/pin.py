"""The requirement a new book's CI installs polybook by: this very polybook, spelled so
that pip finds it elsewhere. polybook is not on PyPI yet, so ``polybook==<version>`` would
not install: a copy installed from git, or from a clone with a remote, is named by its git
URL and commit."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

import polybook
from polybook.starter.repository import git_output

UNPUBLISHED = (
    "# polybook is not on PyPI yet: replace the line below by where this book's CI gets it,\n"
    "# `polybook @ git+https://…/polybook@<commit>` or a wheel built from a clone.\n"
)


def polybook_requirement() -> str:
    """The lines of ``requirements/polybook.txt``: a pin that installs this polybook."""
    try:
        dist = metadata.distribution("polybook")
    except metadata.PackageNotFoundError:
        return UNPUBLISHED + "polybook\n"
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    vcs = direct.get("vcs_info", {})
    if vcs.get("vcs") == "git" and vcs.get("commit_id"):
        return f"polybook @ git+{direct['url']}@{vcs['commit_id']}\n"
    url = urlparse(direct.get("url", ""))
    folder = Path(unquote(url.path)) if url.scheme == "file" else _package_folder()
    pinned = clone_requirement(folder)
    return pinned + "\n" if pinned else UNPUBLISHED + f"polybook=={dist.version}\n"


def clone_requirement(folder: Path) -> str:
    """``polybook @ git+<origin>@<commit>`` for a clone at ``folder`` with a remote, else
    ``""`` (no git, no clone, no remote: nothing another machine could fetch)."""
    origin = _git(folder, "remote", "get-url", "origin")
    commit = _git(folder, "rev-parse", "HEAD")
    if not origin or not commit:
        return ""
    if "://" not in origin and ":" in origin:  # git@host:owner/repo, as pip spells it
        host, _, path = origin.partition(":")
        origin = f"ssh://{host}/{path}"
    return f"polybook @ git+{origin}@{commit}"


def _package_folder() -> Path:
    return Path(polybook.__file__).resolve().parent.parent


def _git(folder: Path, *args: str) -> str:
    if not (folder / "pyproject.toml").is_file():
        return ""  # not polybook's own source tree (an installed copy in site-packages)
    return git_output(folder, *args)
