"""What ``nvidia-smi`` says of this host's GPUs: their model, the driver, the CUDA version the
driver supports, and their memory: the provenance of outputs made on them, and how many
notebooks one of them can hold at once (:mod:`polybook.execution.gpu_share`)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

CUDA_VERSION = re.compile(r"CUDA Version:\s*([\d.]+)")
QUERY = "--query-gpu=name,driver_version,memory.total"


@dataclass(frozen=True)
class GpuInfo:
    """The first GPU's model and the smallest one's memory; "" and 0 where unknown."""

    name: str = ""
    driver: str = ""
    cuda: str = ""  # the CUDA version the driver supports
    memory_mib: int = 0

    def describe(self) -> str:
        """``NVIDIA H200, driver 580.159.04, CUDA 13.0`` (what is known of it)."""
        parts = [self.name, f"driver {self.driver}" if self.driver else ""]
        parts.append(f"CUDA {self.cuda}" if self.cuda else "")
        return ", ".join(p for p in parts if p)


def _run(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


@functools.cache
def _asked(smi: str) -> GpuInfo:
    rows = []
    for line in _run([smi, QUERY, "--format=csv,noheader,nounits"]).splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 3:
            rows.append(fields)
    if not rows:
        return GpuInfo()
    memories = [int(float(m)) for _, _, m in rows if re.fullmatch(r"[\d.]+", m)]
    cuda = CUDA_VERSION.search(_run([smi]))
    return GpuInfo(
        name=rows[0][0],
        driver=rows[0][1],
        cuda=cuda.group(1) if cuda else "",
        memory_mib=min(memories, default=0),
    )


def gpu_info(environ: Mapping[str, str] | None = None) -> GpuInfo:
    """What the ``nvidia-smi`` on ``PATH`` says (asked once per executable)."""
    env = os.environ if environ is None else environ
    smi = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    return _asked(smi) if smi else GpuInfo()
