"""What a notebook's kernel is launched with: where and how it runs (:class:`KernelEnv`, made
for a book's environment by :func:`kernel_env`), its kernelspec (read as JSON, so that the
process that plans a build need not import the Jupyter client), its environment variables,
and the zygote its kernel forks from."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from polybook.execution.kernels.preload import zygote_preload
from polybook.execution.kernels.zygote_pool import ZygoteSpec
from polybook.parallel import usable_cpus

if TYPE_CHECKING:
    from polybook.config import Book
    from polybook.config.schema import BuildSection
    from polybook.environments.venvs import Environment


@dataclass(frozen=True)
class KernelEnv:
    """Where and how a notebook runs: kernel, library path, working directory, devices."""

    framework: str
    kernel_name: str
    kernel_dirs: tuple[str, ...]
    cwd: Path
    pythonpath: tuple[str, ...] = ()
    extra_env: Mapping[str, str] = field(default_factory=dict)
    timeout: int = 1200
    host_gpus: int = 0
    visible_gpus: tuple[int, ...] = ()
    device_ids: tuple[str, ...] = ()  # how CUDA names ``visible_gpus`` (default: the indices)
    threads: int = 0  # threads of its math libraries: its share of the CPUs (0: theirs)
    fork: bool = False  # forked from its environment's warm zygote, where one runs
    zygote: str = ""  # the socket of that zygote, as the executor started it
    device_errors: tuple[str, ...] = ()  # the framework's errors saying a device is missing
    preload: tuple[str, ...] = ()  # what the library imports and pages use: its zygote too
    figure_format: str = "svg"  # how matplotlib draws figures: [html] figure_format

    def to_json(self) -> str:
        fields = asdict(self)
        fields["cwd"] = str(self.cwd)
        return json.dumps(fields)

    @classmethod
    def from_json(cls, text: str) -> KernelEnv:
        fields = json.loads(text)
        fields["cwd"] = Path(fields["cwd"])
        for key in (
            "kernel_dirs",
            "pythonpath",
            "visible_gpus",
            "device_ids",
            "device_errors",
            "preload",
        ):
            fields[key] = tuple(fields[key])
        return cls(**fields)


def kernel_env(
    book: Book,
    build: BuildSection,
    figure_format: str,
    env: Environment,
    folder: Path,
    snapshot: str,
    host_gpus: int,
    share: int = 1,
) -> KernelEnv:
    """Where a notebook of ``env``'s framework in ``folder`` (of the book) runs, importing
    the library ``snapshot``; its figures drawn as ``figure_format`` (``[html]``); on a host
    with GPUs, told that ``share`` notebooks share its GPU."""
    fw = env.framework
    shared = env.spec.share_env(share) if host_gpus else {}
    return KernelEnv(
        fw,
        env.kernel_name,
        (str(env.kernels_dir),),
        book.layout.eval / fw / folder,
        (snapshot,),
        {**env.spec.kernel_variables(), **shared, "POLYBOOK_TABS": ",".join(book.tabs)},
        build.cell_timeout,
        host_gpus,
        threads=max(1, usable_cpus() // book.jobs),
        fork=build.fork_kernels,
        device_errors=env.spec.device_errors,
        preload=zygote_preload(book, build, fw),
        figure_format=figure_format,
    )


# What each [html] figure_format asks of matplotlib's inline backend: drawings, or "retina",
# a PNG at twice the pixels whose metadata keeps the size it is shown at.
INLINE_FORMATS = {"svg": "svg", "png": "retina"}


def figure_arguments(figure_format: str) -> tuple[str, ...]:
    """The kernel's command-line configuration that makes its figures ``figure_format``:
    as ``%config InlineBackend.figure_formats`` would, set at its start, the author's cells
    untouched (a cell that sets its own format keeps it)."""
    return (f"--InlineBackend.figure_formats={INLINE_FORMATS[figure_format]}",)


# Math libraries' thread pools: sized to the kernel's share of the CPUs, their idle threads
# asleep rather than spinning. Spinning threads of kernels running side by side, on a host
# that other work loads too, slowed cells of small operations a hundredfold: the "hang".
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
)


def thread_environ(threads: int) -> dict[str, str]:
    """What a kernel with ``threads`` CPUs to itself is given (0: nothing)."""
    if threads < 1:
        return {}
    return {"OMP_WAIT_POLICY": "PASSIVE", **dict.fromkeys(THREAD_VARIABLES, str(threads))}


def kernel_environ(env: KernelEnv) -> dict[str, str]:
    """The kernel's environment: this process's, the framework's variables, its library and
    devices; the thread settings where neither the host nor the book sets them."""
    environ = {**thread_environ(env.threads), **os.environ}
    environ.update(env.extra_env)
    environ["PYTHONPATH"] = os.pathsep.join(env.pythonpath)
    environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    if env.visible_gpus or env.host_gpus:
        ids = env.device_ids or tuple(str(g) for g in env.visible_gpus)
        environ["CUDA_VISIBLE_DEVICES"] = ",".join(ids)
    return environ


@dataclass(frozen=True)
class KernelSpec:
    """What a build reads of a kernelspec: the command and the environment it adds."""

    argv: tuple[str, ...]
    env: Mapping[str, str]


def kernel_spec(env: KernelEnv) -> KernelSpec:
    """The kernelspec ``env`` names: ``NAME/kernel.json`` in the first of its kernel folders
    that has one, else as jupyter_client finds it."""
    for folder in env.kernel_dirs:
        try:
            data = json.loads((Path(folder) / env.kernel_name / "kernel.json").read_bytes())
            return KernelSpec(tuple(data["argv"]), dict(data.get("env") or {}))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    from jupyter_client.kernelspec import KernelSpecManager

    found = KernelSpecManager(kernel_dirs=list(env.kernel_dirs)).get_kernel_spec(env.kernel_name)
    return KernelSpec(tuple(found.argv), dict(found.env))


def zygote_spec(env: KernelEnv) -> ZygoteSpec:
    """The zygote whose children are ``env``'s kernels: its framework's Python, the
    environment a kernel gets (less what each gets of its own), its framework module."""
    spec = kernel_spec(env)
    environ = {**kernel_environ(env), **spec.env}
    module = spec.env.get("POLYBOOK_MODULE", "")
    return ZygoteSpec.of(spec.argv[0], environ, module, env.preload)
