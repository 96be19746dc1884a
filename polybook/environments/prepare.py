"""The environments stage's entry point: each framework of a build made ready to run its
notebooks, polybook's venv or an existing interpreter (``[env-<tab>] python``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from polybook.config import Book
from polybook.config.schema import EnvSettings
from polybook.environments import devices
from polybook.environments.existing import existing_environment
from polybook.environments.venvs import (
    Environment,
    book_environment,
    describe,
    ensure,
    is_ready,
)

logger = logging.getLogger("polybook")


def ensure_all(
    book: Book,
    names: tuple[str, ...],
    device: str,
    env_settings: Mapping[str, EnvSettings],
    extras: Mapping[str, tuple[Path, ...]],
    verify: bool = False,
) -> list[Environment]:
    """The environments of the book's tabs ``names``, set up where missing; ``verify`` also
    repairs broken ones (``polybook env setup``), at the cost of importing each once.
    ``device`` is ``[build] device``, ``env_settings`` the ``[env-<tab>]`` sections and
    ``extras`` each of ``names``' extra requirement files."""
    folder = book.envs
    resolved = devices.resolve_device(device)
    given = [  # [env-<tab>] python
        (name, settings)
        for name in names
        if (settings := env_settings.get(name)) is not None and settings.python
    ]
    ours = [name for name in names if name not in dict(given)]
    envs = [book_environment(book, name, resolved, folder, extras[name]) for name in ours]
    labels = [env for env in envs if not env.spec.declared]
    if labels:
        tabs = ", ".join(env.framework for env in labels)
        said = f"tabs {tabs} are" if len(labels) > 1 else f"tab {tabs} is"
        logger.info(
            "%s declared by no framework: %s in the default Python environment (%s)",
            said,
            "they run" if len(labels) > 1 else "it runs",
            labels[0].path,
        )
    missing: dict[Path, list[Environment]] = {}  # tabs sharing a venv: one set-up, in turn
    for env in envs:
        if verify or not is_ready(env):
            missing.setdefault(env.path, []).append(env)

    def set_up(shared: list[Environment]) -> list[str]:
        return [ensure(env, verify) for env in shared]

    # Installs are mostly downloads and unpacking: set environments up side by side.
    with ThreadPoolExecutor(max_workers=max(1, len(missing))) as pool:
        done_lists = pool.map(set_up, missing.values())
        for shared, done_list in zip(missing.values(), done_lists, strict=True):
            for env, done in zip(shared, done_list, strict=True):
                if done == "installed":
                    logger.info("set up the %s (%s) in %s", describe(env), resolved, env.path)
                elif done:
                    logger.info("refreshed the %s kernelspec in %s", env.framework, env.kernels_dir)
    envs += [
        existing_environment(book, name, settings, folder.path, fresh=verify)
        for name, settings in given
    ]
    return envs
