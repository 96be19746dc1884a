"""How many notebooks share one GPU (``[build] gpu_share``; ``auto``: from the GPU's memory
and the host's cores).

A notebook of a book holds little of a GPU's memory: on one H200 (143,771 MiB, 16 cores),
the shipped book's 16 notebooks (PyTorch, JAX) ran at once at a peak of 6.7 GiB in all,
and the build was fastest with 8 at a time, two cores each (22.9 s and 16.4 s, against 78.9
s and 73.6 s one at a time); 16 at a time was slower (26.0 s). So ``auto`` gives each notebook
4 GiB of the smallest GPU and two cores: 8 on that host. Each kernel that shares its GPU is
told so (``[framework-<name>] gpu_share_env``: no preallocation, its share of the memory).
"""

from __future__ import annotations

import logging

logger = logging.getLogger("polybook")

MIB_PER_NOTEBOOK = 4096
CORES_PER_NOTEBOOK = 2


def planned_share(configured: int, gpus: int, memory_mib: int, cpus: int) -> int:
    """The notebooks that may share one GPU: ``configured`` (``[build] gpu_share``) when
    set, else (0, ``auto``) as many as ``memory_mib`` (the smallest GPU's memory; 0: not
    known) and ``cpus`` allow, at least one."""
    if configured > 0:
        return configured
    if gpus <= 0 or memory_mib <= 0:
        return 1
    by_memory = memory_mib // MIB_PER_NOTEBOOK
    by_cores = cpus // (CORES_PER_NOTEBOOK * gpus)
    share = max(1, min(by_memory, by_cores))
    logger.info(
        "%d notebooks share each GPU ([build] gpu_share = auto: %s MiB, %d cores, %d GPUs)",
        share,
        f"{memory_mib:,}",
        cpus,
        gpus,
    )
    return share
