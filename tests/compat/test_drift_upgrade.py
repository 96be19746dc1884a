"""``polybook upgrade`` for real: the drift fixture book built in a NumPy 2 environment, then
run in a side environment made from NumPy 1.26 pins. NumPy 1.26 writes scalars without
their type, has no ``np.long`` and warns of it, still has ``trapz`` (NumPy 2.4 removed it)
and does not deprecate ``np.core``: the report lists exactly those cells, and the current
environment, cache and site are as they were. Each side is built once for the module."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from polybook.commands.cli import main
from polybook.environments.packages import resolved_versions
from polybook.layout import EnvsFolder

from ..books import copy_fixture, drawn_png, executed_notebook, put_executed, tree_digest
from ..browser import file_url, offline_page

pytestmark = pytest.mark.slow

SCALARS, REMOVED = "chapter/scalars.md", "chapter/removed.md"
NEW_PINS = "requirements/numpy-1.26.txt"


def folder_digest(folder: Path) -> str:
    """One hash of every file under ``folder``: its path and its bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@dataclass(frozen=True)
class Upgraded:
    root: Path
    env: Path  # the current environment
    built: int  # the current build's exit status
    status: int  # the upgrade's
    stdout: str
    stderr: str
    report: dict[str, Any]
    hashes: tuple[dict[str, str], dict[str, str]]  # before and after the upgrade
    versions: tuple[dict[str, str], dict[str, str]]  # the current environment's, the same
    sources: tuple[dict[str, str], dict[str, str]]


def current_state(root: Path, env: Path) -> dict[str, str]:
    """Digests of the current environment (a folder shared by books: ``envs_dir``), its
    kernels and the build."""
    places = {
        "environment": env,
        "kernels": EnvsFolder(env.parent, shared=True).kernels(env),
        "eval": root / "_build/eval",
        "cache": root / "_build/cache",
        "site": root / "_build/html",
    }
    return {name: folder_digest(place) for name, place in places.items()}


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Upgraded:
    base = tmp_path_factory.mktemp("upgrade")
    root = copy_fixture(base / "book", "drift_book")
    envs = base / "envs"
    config = root / "config.ini"
    config.write_text(config.read_text().replace("[build]\n", f"[build]\nenvs_dir = {envs}\n"))
    built = main(["--quiet", "--root", str(root), "build", "html"])  # NumPy 2: trapz fails
    (env,) = EnvsFolder(envs, shared=True).candidates("numpy")
    python = env / "bin" / "python"
    before, versions, sources = (
        current_state(root, env),
        resolved_versions(python),
        tree_digest(root),
    )
    out = base / "drift.json"
    command = [sys.executable, "-m", "polybook", "--root", str(root), "upgrade", "--tab", "numpy"]
    command += ["--requirements", str(root / NEW_PINS), "--json", str(out), "--fail-on", "error"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900)
    return Upgraded(
        root,
        env,
        built,
        done.returncode,
        done.stdout,
        done.stderr,
        json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {},
        (before, current_state(root, env)),
        (versions, resolved_versions(python)),
        (sources, tree_digest(root)),
    )


def line_of(root: Path, page: str, code: str) -> int:
    lines = (root / page).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if line.startswith(code))


def test_the_report_lists_exactly_the_cells_that_differ(upgraded: Upgraded) -> None:
    assert upgraded.built == 1, "NumPy 2.4 has no trapz: the current build fails there"
    root = upgraded.root
    found = {(r["page"], r["line"], r["cell"], r["kind"]) for r in upgraded.report["records"]}
    expected = {
        (REMOVED, line_of(root, REMOVED, "np.trapz"), 2, "fixed-error"),
        (SCALARS, line_of(root, SCALARS, "np.float64(1.5)"), 2, "tolerance"),
        (SCALARS, line_of(root, SCALARS, "np.arange(3)"), 4, "tolerance"),
        (SCALARS, line_of(root, SCALARS, "np.core"), 5, "gone-warning"),
        (SCALARS, line_of(root, SCALARS, 'print("major'), 6, "changed"),
        (SCALARS, line_of(root, SCALARS, "np.long"), 7, "new-error"),
        (SCALARS, line_of(root, SCALARS, "np.long"), 7, "new-warning"),
    }
    assert found == expected
    compared = {(n["page"], n["changed"]) for n in upgraded.report["notebooks"]}
    assert compared == {
        (SCALARS, 5),
        (REMOVED, 1),
        ("chapter/same.md", 0),
        ("chapter/training.md", 0),
    }
    assert {"framework": "numpy", "package": "numpy", "before": "2.4.6", "after": "1.26.4"} in (
        upgraded.report["packages"]
    )
    assert upgraded.report["before"]["versions"]["numpy"]["ipykernel"] == "7.1.0"
    assert upgraded.report["after"]["versions"]["numpy"]["numpy"] == "1.26.4"
    assert "packages changed [numpy]: numpy 2.4.6 → 1.26.4" in upgraded.stdout


def test_fail_on_error_exits_non_zero_naming_the_cell(upgraded: Upgraded) -> None:
    assert upgraded.status == 1
    line = line_of(upgraded.root, SCALARS, "np.long")
    located = (
        f"{SCALARS}:{line} [numpy] cell 7: new-error: AttributeError: module 'numpy' has no"
        " attribute 'long' [polybook.drift.new-error]"
    )
    assert located in upgraded.stderr
    # Only new errors fail the gate: the other changes are in the reports.
    assert "[polybook.drift.changed]" not in upgraded.stderr


def test_the_current_environment_cache_and_site_are_untouched(upgraded: Upgraded) -> None:
    before, after = upgraded.hashes
    assert after == before
    assert upgraded.versions[0]["numpy"] == "2.4.6"
    assert upgraded.versions[1] == upgraded.versions[0]
    assert upgraded.sources[1] == upgraded.sources[0]
    # The side environment is a folder of its own, with its own kernelspec.
    (side,) = (upgraded.env.parent / "side").iterdir()
    assert side.name.startswith("numpy-")
    spec = json.loads((side / "kernels/polybook-numpy/kernel.json").read_text())
    assert spec["argv"][0] == str(side / "numpy/bin/python")
    assert resolved_versions(side / "numpy/bin/python")["numpy"] == "1.26.4"
    # The side build keeps to its own folder of _build/.
    side_build = upgraded.root / "_build/side/numpy-1.26"
    assert (side_build / "eval/numpy/chapter/scalars.ipynb").is_file()
    assert any((side_build / "cache/exec").rglob("*.ipynb"))


def test_a_side_build_is_a_baseline_of_diff(upgraded: Upgraded, tmp_path: Path) -> None:
    out = tmp_path / "back.json"
    args = ["--quiet", "--root", str(upgraded.root), "diff", "side:numpy-1.26"]
    assert main([*args, "--json", str(out), "--html", str(tmp_path / "back.html")]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    kinds = {(r["page"], r["cell"], r["kind"]) for r in data["records"]}
    assert (SCALARS, 7, "fixed-error") in kinds and (REMOVED, 2, "new-error") in kinds
    assert (SCALARS, 5, "new-warning") in kinds
    assert data["before"]["label"] == "side build numpy-1.26"


def image_report(folder: Path) -> Path:
    """A diff of a plot that moved, written as an HTML report (no kernel)."""
    root = copy_fixture(folder / "book", "drift_book")

    def plot(end: int) -> list[tuple[str, list[dict[str, Any]]]]:
        data = {"image/png": base64.b64encode(drawn_png(end)).decode(), "text/plain": "<Figure>"}
        return [("plot()", [{"output_type": "display_data", "metadata": {}, "data": data}])]

    put_executed(root, executed_notebook("chapter/plots.md", "numpy", plot(50)))
    assert main(["--quiet", "--root", str(root), "baseline", "save", "plots"]) == 0
    put_executed(root, executed_notebook("chapter/plots.md", "numpy", plot(90)))
    report = folder / "plots.html"
    assert main(["--quiet", "--root", str(root), "diff", "--html", str(report)]) == 0
    return report


def test_the_html_reports_open_offline_with_no_request(upgraded: Upgraded, tmp_path: Path) -> None:
    upgrade = upgraded.root / "_build/drift/upgrade-numpy-1.26.html"
    calls: list[str] = []
    with offline_page(calls) as (_, page, errors):
        page.goto(file_url(upgrade))
        assert page.locator("article").count() == 6  # cells: 4 changed, 2 within tolerance
        link = page.locator(f"article a[href*='{SCALARS.removesuffix('.md')}.html']").first
        target = (upgrade.parent / str(link.get_attribute("href")).partition("?")[0]).resolve()
        assert target == (upgraded.root / "_build/html/chapter/scalars.html").resolve()
        page.goto(file_url(image_report(tmp_path)))
        sizes = page.eval_on_selector_all("article img", "els => els.map(e => e.naturalWidth)")
        assert sizes == [200, 200, 200]  # before, after, difference: all decoded
        assert errors == []
    assert calls == []
    soup = BeautifulSoup(upgrade.read_text(encoding="utf-8"), "html.parser")
    assert not soup.select("script, link, iframe")


def test_pins_that_do_not_install_are_a_located_error(upgraded: Upgraded, tmp_path: Path) -> None:
    pins = tmp_path / "broken.txt"
    pins.write_text("numpy==1.26.4\nipykernel==7.1.0\npb-no-such-package==1.0\n")
    command = [sys.executable, "-m", "polybook", "--root", str(upgraded.root), "upgrade"]
    command += ["--tab", "numpy", "--requirements", str(pins)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 1
    assert f"{pins}: the side environment of numpy could not be set up in" in done.stderr
    assert "pb-no-such-package" in done.stderr and "[polybook.drift.upgrade]" in done.stderr
    assert current_state(upgraded.root, upgraded.env) == upgraded.hashes[0]
