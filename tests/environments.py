"""The shipped book's framework environments, which the tests use (found in
``$POLYBOOK_TEST_ENVS``, else beside the tool venv running the tests, else in the checkout's
``.envs``), and the folder of links to them that the books tests make share."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from polybook.config.declarations import SHIPPED
from polybook.environments import venvs
from polybook.frameworks import DEVICES
from polybook.layout import ENVS_DIR, EnvsFolder

REPO = Path(__file__).resolve().parent.parent  # polybook's checkout, the shipped book
TEST_ENVS_VARIABLE = "POLYBOOK_TEST_ENVS"  # the environments the tests use, when set


def _test_envs() -> Path:
    """The shipped book's environments, which the tests use: ``$POLYBOOK_TEST_ENVS``, else
    the folder that holds the tool's venv running them (``.envs/tool``: a copy of the
    checkout runs its tests with the original's tool venv), else the checkout's ``.envs``."""
    given = os.environ.get(TEST_ENVS_VARIABLE)
    if given:
        return Path(given).resolve()
    tool = Path(sys.prefix)
    if sys.prefix != sys.base_prefix and tool.name == "tool" and tool.parent.name == ENVS_DIR:
        return tool.parent
    return REPO / ENVS_DIR


REPO_ENVS = EnvsFolder(_test_envs())  # the shipped book's environments


def link_environments(folder: Path) -> Path:
    """A folder shared by books (``envs_dir``, ``$POLYBOOK_ENVS``) that holds links to the
    shipped book's framework environments, each named as a shared folder names it: by the
    requirement set it was installed from (its stamp), with its kernel written, as
    ``env setup`` leaves it (Dask workers offer what has one)."""
    folder.mkdir(parents=True, exist_ok=True)
    shared = EnvsFolder(folder, shared=True)
    for name in SHIPPED:
        installed = REPO_ENVS.path / name
        try:
            stamp = (installed / venvs.STAMP).read_text(encoding="utf-8").split()[0]
        except (OSError, IndexError):
            continue  # not set up here
        link = shared.environment(name, stamp)
        if not link.is_symlink():
            made = link.with_name(f".{link.name}.{os.getpid()}")
            made.unlink(missing_ok=True)
            made.symlink_to(installed)
            made.replace(link)
        for device in DEVICES:
            env = venvs.environment(name, device, shared)
            if env.path == link:
                venvs.write_kernelspec(env)
    return folder
