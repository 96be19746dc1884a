"""The tool's own files in a build's fingerprint: told changed by their size and time of
change, as Python tells bytecode stale, without reading them."""

from __future__ import annotations

import os
from pathlib import Path

from polybook.pipeline.state import code_digest


def _tool(root: Path) -> dict[str, Path]:
    files = {
        "module": root / "a.py",
        "nested": root / "sub" / "b.py",
        "ini": root / "frameworks.ini",
        "asset": root / "site" / "static" / "tabs.js",
        "bytecode": root / "sub" / "__pycache__" / "b.cpython-311.pyc",
        "nested ini": root / "sub" / "other.ini",
        "deep asset": root / "site" / "static" / "deeper" / "x.js",
        "text": root / "notes.txt",
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    return files


def test_the_tool_s_digest_follows_its_modules_ini_files_and_static_assets(
    tmp_path: Path,
) -> None:
    files = _tool(tmp_path / "tool")
    first = code_digest(tmp_path / "tool")
    assert code_digest(tmp_path / "tool") == first
    for what, path in files.items():
        os.utime(path, ns=(2_000_000_000, 2_000_000_000))  # saved again
        covered = what in ("module", "nested", "ini", "asset")
        assert (code_digest(tmp_path / "tool") != first) == covered, what
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    assert code_digest(tmp_path / "tool") == first
    files["module"].write_text("yy")  # its time of change kept: told by its size
    os.utime(files["module"], ns=(1_000_000_000, 1_000_000_000))
    assert code_digest(tmp_path / "tool") != first
    (tmp_path / "tool" / "new.py").write_text("")
    assert code_digest(tmp_path / "tool") != first  # a module added
