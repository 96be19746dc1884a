"""The environments stage's entry point: each framework of a build made ready to run its
notebooks, polybook's venv or an existing interpreter (``[env-<tab>] python``)."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from polybook.config import BookConfig
from polybook.environments import devices
from polybook.environments.existing import existing_environment
from polybook.environments.venvs import Environment, book_environment, ensure, is_ready

logger = logging.getLogger("polybook")


def ensure_all(
    config: BookConfig, names: tuple[str, ...], verify: bool = False
) -> list[Environment]:
    """The environments of the book's tabs ``names``, set up where missing; ``verify`` also
    repairs broken ones (``polybook env setup``), at the cost of importing each once."""
    folder = config.envs
    resolved = devices.resolve_device(config.build.device)
    given = [name for name in names if config.env_for(name).python]  # [env-<tab>] python
    ours = [name for name in names if name not in given]
    envs = [book_environment(config, name, resolved, folder) for name in ours]
    missing = [env for env in envs if verify or not is_ready(env)]
    # Installs are mostly downloads and unpacking: set environments up side by side.
    with ThreadPoolExecutor(max_workers=max(1, len(missing))) as pool:
        done_list = pool.map(lambda env: ensure(env, verify), missing)
        for env, done in zip(missing, done_list, strict=True):
            if done == "installed":
                logger.info(
                    "set up the %s environment (%s) in %s", env.framework, resolved, env.path
                )
            elif done:
                logger.info("refreshed the %s kernelspec in %s", env.framework, env.kernels_dir)
    envs += [existing_environment(config, name, folder.path, fresh=verify) for name in given]
    return envs
