"""The libraries a page's ``#required_libs(...)`` names, against the environment its
notebooks run in.

d2lbook runs a page in whatever Python it runs in, and its Colab notebooks ``pip install``
what the line names; polybook's students' notebooks do the same
(:mod:`polybook.notebooks.install`). Before a build runs the pages, each library a page
names that its framework's environment lacks, or holds at another version, is a warning at
the line: the page may still run (an older ``setuptools`` than pinned is often enough), and
where it does not, its cell's error says why.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from packaging.requirements import InvalidRequirement, Requirement

from polybook.diagnostics import Location, Reporter
from polybook.environments.packages import canonical, resolved_versions
from polybook.environments.venvs import Environment
from polybook.meta import notebook_meta
from polybook.nb import Notebooks


def unmet(requirement: str, installed: Mapping[str, str]) -> str:
    """Why ``installed`` (canonical name -> version) does not meet ``requirement`` ("" when
    it does)."""
    try:
        wanted = Requirement(requirement)
    except InvalidRequirement:
        return ""  # the split stage reported it
    name = canonical(wanted.name)
    if name not in installed:
        return "is not installed"
    version = installed[name]
    if wanted.specifier and not wanted.specifier.contains(version, prereleases=True):
        return f"is at {version}"
    return ""


def check_required_libs(
    notebooks: Notebooks,
    environments: Mapping[str, Environment],
    reporter: Reporter,
    pages: Collection[str] | None = None,
) -> None:
    """Warn of each library a notebook's ``#required_libs`` names that its framework's
    environment does not hold as asked (``pages``: those the build runs; None: all)."""
    for fw, found in notebooks.items():
        env = environments.get(fw)
        installed: dict[str, str] | None = None
        for path, nb in found:
            meta = notebook_meta(nb)
            if env is None or not meta.required_libs or (pages is not None and path not in pages):
                continue
            if installed is None:
                installed = resolved_versions(env.python)
            if not installed:  # its Python does not run: its set-up says why
                break
            for library in meta.required_libs:
                why = unmet(library, installed)
                if why:
                    message = (
                        f"#required_libs names {library}, which the {fw} environment does not "
                        f"hold ({canonical(Requirement(library).name)} {why}): pin it in a "
                        f"requirement file named by [build] requirements (`{fw}:FILE`), then "
                        f"run `polybook env setup --tab {fw}`"
                    )
                    reporter.warn(
                        Location(path, meta.required_line, fw), message, "exec.required_libs"
                    )
