"""A framework key is declared once: each ``[framework-<name>]`` key is the
:class:`~polybook.frameworks.Framework` field of its name, carried there by its kind alone."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.config.declarations import declare, shipped
from polybook.config.schema import FRAMEWORK_DEFAULTS, FRAMEWORK_KEYS
from polybook.diagnostics import PolybookError
from polybook.frameworks import Framework

from ..books import write_book

NOT_KEYS = {"name", "declared"}  # the section's name, and whether it has one


def test_every_framework_key_is_a_field_of_its_name_and_every_field_a_key() -> None:
    keys = [k.name for k in FRAMEWORK_KEYS]
    assert keys == [f.name for f in fields(Framework) if f.name not in NOT_KEYS]
    assert set(FRAMEWORK_DEFAULTS) <= set(keys)


def test_each_key_written_reaches_its_field_as_its_kind_reads_it(tmp_path: Path) -> None:
    section = (
        "[build]\ntabs = numpy\n[framework-numpy]\ndisplay_name = NumPy\nmodule = np\n"
        "distributions = NumPy, numpy-cuda\ncpu_requirements = pins/cpu.txt\n"
        "cuda_requirements = ~/gpu.txt\nkernel_env = A=1 B=x=y\n"
        "gpu_patterns = dev\\((\\d+)\\)\ndevice_errors = no\\sdevice\n"
        "output_noise = ^noise\ngpu_share_env = F={fraction}\n"
    )
    root = write_book(tmp_path, {"index.md": "# I\n"}, config=section)
    numpy = load_config(root).framework("numpy")
    assert numpy == Framework(
        "numpy",
        "NumPy",
        "np",
        ("numpy", "numpy-cuda"),
        str((root / "pins/cpu.txt").resolve()),
        str((Path.home() / "gpu.txt").resolve()),
        ("A=1", "B=x=y"),
        (r"dev\((\d+)\)",),
        (r"no\sdevice",),
        ("^noise",),
        ("F={fraction}",),
    )
    assert numpy.kernel_variables() == {"A": "1", "B": "x=y"}
    assert numpy.share_env(2) == {"F": "0.450"}


def test_a_new_declaration_takes_its_names_from_the_tab_and_its_module() -> None:
    assert declare("plain", {}) == Framework("plain", "plain", "plain", ("plain",))
    numpy = declare("numpy", {"module": "np"})
    assert (numpy.display_name, numpy.module, numpy.distributions) == ("numpy", "np", ("np",))
    # Over a shipped declaration, what a book leaves unset is the shipped one's.
    torch = declare("pytorch", {"module": "th", "kernel_env": ()}, shipped("pytorch"))
    assert torch.distributions == ("torch",) and torch.gpu_share_env
    assert torch.display_name == "PyTorch" and torch.kernel_env == ()


@pytest.mark.parametrize("key", ["kernel_env", "gpu_share_env"])
def test_a_variable_not_written_name_equals_value_is_an_error_at_its_line(
    tmp_path: Path, key: str
) -> None:
    config = f"[build]\ntabs = x\n[framework-x]\n{key} = A=1 NOVALUE\n"
    root = write_book(tmp_path, {"index.md": "# I\n"}, config=config)
    with pytest.raises(PolybookError) as info:
        load_config(root)
    assert str(info.value) == (
        f"config.ini:4: [framework-x] {key}: 'NOVALUE' is not NAME=VALUE [polybook.config]"
    )
