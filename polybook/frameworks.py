"""The frameworks polybook knows, described as data in one registry."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Framework:
    """Everything polybook needs to know about one deep-learning framework."""

    name: str
    display_name: str
    lib_name: str
    distribution: tuple[str, ...]  # pip names of its package, CPU and CUDA builds
    kernel_variables: tuple[tuple[str, str], ...] = ()  # set in each kernel's environment

    @property
    def kernel_env(self) -> dict[str, str]:
        return dict(self.kernel_variables)

    @property
    def import_line(self) -> str:
        """How a reader imports the book's library for this framework."""
        return f"from d2l import {self.lib_name} as d2l"

    @property
    def kernel_name(self) -> str:
        return f"polybook-{self.name}"

    def requirements(self, device: str) -> str:
        """Path of the pinned requirement file, relative to the polybook source root."""
        return f"requirements/{device}/{self.name}.txt"


REGISTRY: dict[str, Framework] = {
    fw.name: fw
    for fw in (
        Framework("pytorch", "PyTorch", "torch", ("torch",)),
        Framework("mxnet", "MXNet", "mxnet", ("mxnet", "mxnet-cu112")),
        Framework("jax", "JAX", "jax", ("jax",)),
        Framework(
            "tensorflow",
            "TensorFlow",
            "tensorflow",
            ("tensorflow", "tensorflow-cpu"),
            (("TF_CPP_MIN_LOG_LEVEL", "3"), ("TF_ENABLE_ONEDNN_OPTS", "0")),
        ),
    )
}


def get(name: str) -> Framework:
    """The registered framework called ``name`` (KeyError if unknown)."""
    return REGISTRY[name]
