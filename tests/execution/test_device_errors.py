"""Which cell errors say the host lacks a device: each framework's own words (from
``frameworks.ini``), as its CPU build really says them, and the CUDA stack's; the badges the
cells get, and what they pass on to the cells that read what they would have bound."""

from __future__ import annotations

from pathlib import Path

import pytest
from nbformat import NotebookNode

from polybook.config.declarations import shipped
from polybook.execution.kernels.badges import (
    SKIP_TAG,
    badge_text,
    badge_unavailable,
    mark_unrunnable,
)
from polybook.execution.kernels.device_errors import (
    CUDA_ERRORS,
    MissingDevices,
    bound_names,
    device_unavailable,
)
from polybook.execution.kernels.launch import KernelEnv
from polybook.meta import Requires, cell_meta, update_cell_meta
from polybook.nb import new_code_cell, new_notebook

# What each framework's CPU build says when a cell asks for a GPU (copied from a run of each:
# ``torch.accelerator.current_device_index()``, ``mx.nd.ones((1,), ctx=mx.gpu())``,
# ``jax.devices('gpu')``, ``tf.ones(1)`` under ``tf.device('/GPU:0')`` without soft placement).
REAL_ERRORS = {
    "pytorch": ("RuntimeError", "Cannot access accelerator device when none is available."),
    "mxnet": (
        "MXNetError",
        'Traceback (most recent call last):\n  File "../src/imperative/imperative.cc", line 81\n'
        "MXNetError: Operator _npi_ones is not implemented for GPU.",
    ),
    "jax": (
        "RuntimeError",
        "Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are"
        " present. Platforms present are: cpu",
    ),
    "tensorflow": (
        "InvalidArgumentError",
        "Could not satisfy device specification '/job:localhost/replica:0/task:0/device:GPU:0'."
        " enable_soft_placement=0. Supported device types [CPU]. All available devices"
        " [/job:localhost/replica:0/task:0/device:CPU:0].",
    ),
}
# Errors of the same frameworks that say nothing of devices.
OTHER_ERRORS = [
    ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    ("MXNetError", "Shape inconsistent, Provided = [2,3], inferred shape=[4,5]"),
    ("TypeError", "dot_general requires contracting dimensions to have the same shape"),
    ("InvalidArgumentError", "Incompatible shapes: [2,3] vs. [4,5] [Op:AddV2]"),
    ("IndexError", "list index out of range"),
    ("NameError", "name 'y' is not defined"),
]


@pytest.mark.parametrize("name", sorted(REAL_ERRORS))
def test_each_frameworks_own_words_for_a_missing_device_are_known(name: str) -> None:
    """The framework's patterns recognise its real error, which the CUDA stack's alone do
    not; and they take none of its other errors for a missing device."""
    patterns = shipped(name).device_errors
    ename, evalue = REAL_ERRORS[name]
    assert device_unavailable(ename, evalue, patterns)
    assert not device_unavailable(ename, evalue)  # the framework's words, not CUDA's
    for other in OTHER_ERRORS:
        assert not device_unavailable(*other, patterns), other


def test_the_cuda_stacks_words_are_known_in_any_letter_case_for_every_framework() -> None:
    said = [
        ("AssertionError", "Torch not compiled with CUDA enabled"),
        ("RuntimeError", "No CUDA GPUs are available"),
        ("RuntimeError", "cudaGetDeviceCount: no CUDA-capable device is detected"),
        ("RuntimeError", "Found no NVIDIA driver on your system."),
        ("RuntimeError", "The NVIDIA driver on your system is too old (found version 11040)."),
        ("RuntimeError", "CUDA driver version is insufficient for CUDA runtime version"),
        ("RuntimeError", "CUDA driver initialization failed, you might not have a CUDA gpu."),
        ("RuntimeError", "CUDA error: invalid device ordinal"),
        ("XlaRuntimeError", "INTERNAL: CUDA_ERROR_NO_DEVICE: no CUDA-capable device"),
        ("XlaRuntimeError", "INTERNAL: cuDevicePrimaryCtxRetain: CUDA_ERROR_INVALID_DEVICE"),
    ]
    assert len(said) == len(CUDA_ERRORS)
    for ename, evalue in said:
        assert device_unavailable(ename, evalue), evalue
        assert device_unavailable(ename, evalue.upper()), evalue
    for other in OTHER_ERRORS:
        assert not device_unavailable(*other)


def test_an_index_error_says_so_only_for_a_cell_naming_a_gpu_beyond_the_host() -> None:
    assert device_unavailable("IndexError", "list index out of range", beyond_host=True)
    assert not device_unavailable("IndexError", "list index out of range")
    assert not device_unavailable("KeyError", "list index out of range", beyond_host=True)


def test_the_names_a_cell_binds() -> None:
    source = (
        "%matplotlib inline\n!pip list\nimport os.path, numpy as np\nfrom a import b as c\n"
        "x, (y, z) = 1, (2, 3)\nw.attr = 4\nd['k'] = 5\ndef f(): v = 1\nclass K: pass\n"
        "for i in range(2): pass\nasync def g(): pass\n"
    )
    assert bound_names(source) == {"os", "np", "c", "x", "y", "z", "f", "v", "K", "i", "g"}
    assert bound_names("x = (") == set()
    assert bound_names("for i in x:\n    !echo\n    y = 1\n") == {"i", "y"}  # magics blanked


def test_a_badged_cells_names_pass_its_badge_on_to_a_cell_reading_them() -> None:
    missing = MissingDevices()
    missing.badged("y = gpu(1)\nz = y", "needs 2 GPUs")
    missing.badged("y = other()", "needs 3 GPUs")  # the first badge stays
    assert missing.badge_of("NameError", "name 'y' is not defined") == "needs 2 GPUs"
    assert missing.badge_of("NameError", "name 'z' is not defined") == "needs 2 GPUs"
    assert missing.badge_of("NameError", "name 'q' is not defined") == ""
    assert missing.badge_of("KeyError", "name 'y' is not defined") == ""
    assert missing.badge_of("NameError", "a name 'y' is not defined") == ""


def test_badge_text_counts_gpus() -> None:
    assert badge_text(1, 0) == "needs 1 GPU; built on a host with 0"
    assert badge_text(2, 1) == "needs 2 GPUs; built on a host with 1"


def _cell(source: str, gpus: int = 0, declared: bool = False) -> NotebookNode:
    cell = new_code_cell(source, "c")
    cell.outputs = [{"output_type": "stream", "name": "stdout", "text": "old"}]
    if gpus:
        update_cell_meta(cell, requires=Requires(gpus, declared))
    return cell


def test_only_cells_declaring_more_gpus_than_the_host_has_are_skipped() -> None:
    nb = new_notebook()
    nb.cells = [
        _cell("a", 2, declared=True),
        _cell("b", 1, declared=True),
        _cell("c", 3),  # inferred, not declared: it runs
        _cell("d", 4, declared=True),
    ]
    nb.cells[3].metadata["tags"] = [SKIP_TAG]
    assert mark_unrunnable(nb, 1) == 2
    skipped = [cell_meta(c).skipped for c in nb.cells]
    assert skipped == ["needs 2 GPUs; built on a host with 1", "", "", badge_text(4, 1)]
    assert [c.metadata.get("tags", []) for c in nb.cells] == [[SKIP_TAG], [], [], [SKIP_TAG]]
    assert [len(c.outputs) for c in nb.cells] == [0, 1, 1, 0]


def _reply(ename: str, evalue: str, status: str = "error") -> dict[str, object]:
    return {"content": {"status": status, "ename": ename, "evalue": evalue}}


def test_a_cell_failing_for_want_of_a_device_is_badged_and_passes_it_on() -> None:
    errors = shipped("jax").device_errors
    env = KernelEnv("jax", "polybook-jax", (), Path("."), host_gpus=1, device_errors=errors)
    missing = MissingDevices()
    failing = _cell("z = jax.devices('gpu')[1]", 2)
    assert badge_unavailable(failing, _reply(*REAL_ERRORS["jax"]), env, missing)
    assert cell_meta(failing).skipped == "needs 2 GPUs; built on a host with 1"
    assert failing.outputs == []
    reader = _cell("print(z)")
    assert badge_unavailable(reader, _reply("NameError", "name 'z' is not defined"), env, missing)
    assert cell_meta(reader).skipped == "needs 2 GPUs; built on a host with 1"
    plain = _cell("q")  # needs none: fails for want of one more than the host has
    assert badge_unavailable(
        plain, _reply("RuntimeError", "No CUDA GPUs are available"), env, missing
    )
    assert cell_meta(plain).skipped == badge_text(2, 1)
    beyond = _cell("l[3]", 3)
    assert badge_unavailable(beyond, _reply("IndexError", "list index out of range"), env, missing)
    assert cell_meta(beyond).skipped == badge_text(3, 1)
    for reply in (_reply(*OTHER_ERRORS[0]), _reply(*REAL_ERRORS["jax"], status="ok"), {}):
        cell = _cell("w")
        assert not badge_unavailable(cell, reply, env, missing)
        assert cell_meta(cell).skipped == "" and len(cell.outputs) == 1
    index = _cell("l[3]")  # an IndexError of a cell within the host
    assert not badge_unavailable(index, _reply("IndexError", "out of range"), env, missing)
    one = _cell("l[0]", 1)  # needs the one GPU the host has: not beyond it
    assert not badge_unavailable(one, _reply("IndexError", "out of range"), env, missing)
    assert cell_meta(one).skipped == ""
