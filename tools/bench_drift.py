"""``make bench``'s drift figures: ``polybook diff`` on a synthetic build of ``pages`` pages in
four frameworks, whose second run differs by float noise in every number, a moved plot in
every tenth notebook, and plots encoded anew everywhere (so every image is compared by its
pixels): the worst case of an upgrade that changed little."""

from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")


def _plot(end: int, level: int) -> str:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    for x in range(20, 380, 40):
        draw.line((x, 280, x + 40, 280 - (x * end) % 200), fill="blue", width=2)
    data = io.BytesIO()
    image.save(data, format="PNG", compress_level=level)
    return base64.b64encode(data.getvalue()).decode()


def _notebook(page: str, framework: str, noise: float, plot: str) -> dict[str, Any]:
    def cell(number: int, outputs: list[dict[str, Any]]) -> dict[str, Any]:
        meta = {"polybook": {"line": 10 * number}}
        return {"cell_type": "code", "id": f"c{number}", "metadata": meta,
                "source": f"x{number} = step({number})", "execution_count": number,
                "outputs": outputs}  # fmt: skip

    def result(text: str) -> dict[str, Any]:
        return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                "data": {"text/plain": text}}  # fmt: skip

    values = ", ".join(f"{0.1 * k + noise:.8f}" for k in range(1, 9))
    log = "".join(
        f"epoch {k}, loss {1 / k + noise:.7f}, 4{k}12.5 examples/sec\n" for k in range(1, 11)
    )
    warned = "/tmp/ipykernel_1/1.py:1: FutureWarning: will change\n  step(5)\n"
    cells = [
        cell(1, [result(f"tensor([{values}])")]),
        cell(2, [{"output_type": "stream", "name": "stdout", "text": log}]),
        cell(3, [result(f"np.float64({0.5 + noise:.9f})")]),
        cell(4, [{"output_type": "display_data", "metadata": {},
                  "data": {"image/png": plot, "text/plain": "<Figure size 400x300>"}}]),
        cell(5, [{"output_type": "stream", "name": "stderr", "text": warned}]),
        cell(6, [result(f"Array([{values}], dtype=float32)")]),
        cell(7, []),
        cell(8, [result("(3, 4)")]),
    ]  # fmt: skip
    run = {"framework_version": f"{framework} 1.0", "date": "2026-11-01T10:00:00Z"}
    meta = {"polybook": {"source": page, "framework": framework, "run": run}}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": cells}


def _build(root: Path, pages: int, after: bool) -> None:
    """``_build/eval`` of the synthetic book, its first run or its second."""
    plots = {(end, level): _plot(end, level) for end in (3, 7) for level in (1, 6)}
    for number in range(pages):
        page = f"chapter_{number // 20:02d}/page_{number:03d}.md"
        for fw in FRAMEWORKS:
            moved = after and number % 10 == 0
            plot = plots[(7 if moved else 3, 1 if after else 6)]
            nb = _notebook(page, fw, 1e-7 if after else 0.0, plot)
            target = root / "_build" / "eval" / fw / page.replace(".md", ".ipynb")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(nb), encoding="utf-8")


def _polybook(root: Path, *args: str) -> float:
    command = [sys.executable, "-m", "polybook", "--quiet", "--root", str(root), *args]
    started = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def drift_figures(pages: int) -> list[tuple[str, str, str]]:
    """The figures of ``baseline save`` and ``diff`` on ``pages`` pages by four frameworks."""
    with tempfile.TemporaryDirectory(prefix="polybook-bench-drift-") as tmp:
        root = Path(tmp) / "book"
        root.mkdir()
        tabs = ", ".join(FRAMEWORKS)
        (root / "config.ini").write_text(f"[build]\ntabs = {tabs}\nenvs_dir = {tmp}/envs\n")
        _build(root, pages, after=False)
        save = _polybook(root, "baseline", "save", "before")
        shutil.rmtree(root / "_build" / "eval")
        _build(root, pages, after=True)
        out = Path(tmp) / "drift.json"
        diff = _polybook(root, "diff", "--json", str(out))
        records = json.loads(out.read_text(encoding="utf-8"))["records"]
        html = sum(p.stat().st_size for p in (root / "_build" / "drift").glob("*.html"))
    notebooks = pages * len(FRAMEWORKS)
    images = sum(1 for r in records if r["kind"] == "image")
    return [
        ("notebooks x code cells", f"{notebooks} x 8", ""),
        ("baseline save", f"{save:.1f} s", ""),
        ("diff (every number noisy, every plot re-encoded)", f"{diff:.1f} s", ""),
        ("  per notebook", f"{1000 * diff / notebooks:.0f} ms", ""),
        ("records / plots that moved", f"{len(records)} / {images}", ""),
        ("HTML report", f"{html / 1e6:.1f} MB", ""),
    ]
