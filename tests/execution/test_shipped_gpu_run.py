"""The shipped book as its authors build it on a CPU host: the H200 run committed in
``_freeze/`` shows on the GPUs and Toolkit pages with a note naming the GPU, and the last
``polybook compat`` check committed in ``_compat/`` gives every section its "works with"
line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from ..books import REPO, SHIPPED_FOLDERS, build, copy_shipped, link_cache

NOTE = (
    "output of a build on a host with 1 GPU (NVIDIA H200, driver 580.159.04, CUDA 13.0; "
    "{version}; 2026-11-27)"
)


@pytest.mark.slow
def test_the_h200_run_and_the_compat_check_show_on_a_cpu_build(tmp_path: Path) -> None:
    root = copy_shipped(tmp_path / "book", (*SHIPPED_FOLDERS, "_freeze", "_compat"))
    cache = Path("_build") / "cache" / "exec"
    link_cache(REPO / cache, root / cache)
    assert build(root, "html", "--tab", "pytorch,jax") == 0
    page = root / "_build" / "html" / "chapter_builders-guide" / "use-gpu.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    for fw, version, shown in (
        ("pytorch", "torch 2.11.0", "device(type='cuda', index=0)"),
        ("jax", "jax 0.11.2", "CudaDevice(id=0)"),
    ):
        panels = soup.select(f'.pb-panel[data-pb-tab="{fw}"]')
        text = " ".join(p.get_text(" ") for p in panels)
        assert shown in text, fw
        assert NOTE.format(version=version) in text, fw
        assert "built on a host with 0" not in text  # a CPU host's badges do not replace it
    data = (root / "_build" / "html" / "_static" / "polybook-compat-data.js").read_text()
    record = json.loads(data.removeprefix("window.polybookCompatData = ").rstrip(";\n"))
    sections = {r["page"] for r in record["results"] if r["framework"] == "pytorch"}
    assert "chapter_builders-guide/use-gpu.md" in sections and len(sections) == 8
    assert (root / "_build" / "html" / "compatibility.html").is_file()
