from __future__ import annotations

from pathlib import Path

import pytest

from polybook.config import load_config
from polybook.diagnostics import Location, PolybookError, Reporter


def write(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.ini").write_text(text, encoding="utf-8")
    return root


def test_reads_d2lbook_keys_and_reports_unknown_ones_once_with_their_line(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        "[project]\nname = b\n\n[build]\ntabs = mxnet, jax\n"
        "max_line_length = 80\n\n[library-jax]\nlib_file = lib/j.py\n"
        "[html]\nfavicon = x.ico\n",
    )
    config = load_config(root)
    assert config.tabs == ("mxnet", "jax")
    assert config.default_tab == "mxnet"
    assert config.library_for("jax").lib_file == "lib/j.py"
    assert config.library_for("mxnet").lib_file == "d2l/mxnet.py"
    shown = sorted(str(d) for d in config.ignored)
    assert shown == [
        "config.ini:11: [html] favicon is ignored [polybook.config]",
        "config.ini:6: [build] max_line_length is ignored [polybook.config]",
    ]


def test_warnings_can_be_suppressed_by_subtype(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[build]\nsuppress_warnings = polybook.cite exec\n"))
    reporter = Reporter(suppressed=frozenset(config.suppress_warnings))
    here = Location("a.md", 3)
    reporter.warn(here, "shown as keys", "cite")
    reporter.warn(here, "not run", "exec.devices")
    reporter.warn(here, "no heading", "label")
    assert [str(d) for d in reporter.diagnostics] == ["a.md:3: no heading [polybook.label]"]


def test_unknown_framework_is_an_error_at_its_line(tmp_path: Path) -> None:
    root = write(tmp_path, "[build]\n\ntabs = pytorch, caffe\n")
    with pytest.raises(PolybookError) as info:
        load_config(root)
    assert str(info.value).startswith("config.ini:3: unknown framework 'caffe'")


def test_bad_device_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PolybookError, match=r"no config\.ini"):
        load_config(tmp_path)
    root = write(tmp_path / "b", "[build]\ndevice = tpu\n")
    with pytest.raises(PolybookError, match=r"config\.ini:2: device must be one of"):
        load_config(root)
