"""The frameworks polybook knows, described as data in one registry."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Framework:
    """Everything polybook needs to know about one deep-learning framework."""

    name: str
    display_name: str
    lib_name: str
    import_module: str
    distribution: tuple[str, ...]

    @property
    def kernel_name(self) -> str:
        return f"polybook-{self.name}"

    def requirements(self, device: str) -> str:
        """Path of the pinned requirement file, relative to the polybook source root."""
        return f"requirements/{device}/{self.name}.txt"


REGISTRY: dict[str, Framework] = {
    fw.name: fw
    for fw in (
        Framework("pytorch", "PyTorch", "torch", "torch", ("torch",)),
        Framework("mxnet", "MXNet", "mxnet", "mxnet", ("mxnet", "mxnet-cu112")),
        Framework("jax", "JAX", "jax", "jax", ("jax",)),
        Framework(
            "tensorflow", "TensorFlow", "tensorflow", "tensorflow", ("tensorflow", "tensorflow-cpu")
        ),
    )
}


def get(name: str) -> Framework:
    """The registered framework called ``name`` (KeyError if unknown)."""
    return REGISTRY[name]
