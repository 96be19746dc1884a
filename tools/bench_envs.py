"""``make bench``'s environment figures: ``polybook env setup --tab all`` into empty folders,
by uv and by pip in one run (the same requirement sets, versions compared environment by
environment), and a fresh clone's ``make html`` (``--before REV``: that revision's too).

Caches are warm: uv's by a first, untimed set-up; pip's as this host has it (it installed
these sets when they were pinned). Works in temporary folders, never the repository's
``.envs``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def setup_all(envs: Path, installer: str) -> float:
    """Wall time of ``polybook env setup --tab all`` into the empty folder ``envs``."""
    from polybook.environments.installer import INSTALLER_VARIABLE
    from polybook.layout import ENVS_VARIABLE

    environ = {**os.environ, ENVS_VARIABLE: str(envs), INSTALLER_VARIABLE: installer}
    command = [sys.executable, "-m", "polybook", "--root", str(REPO), "--quiet"]
    started = time.monotonic()
    done = subprocess.run(
        [*command, "env", "setup", "--tab", "all"],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: env setup with {installer} failed:\n{done.stderr[-3000:]}")
    return wall


def installed(envs: Path) -> dict[str, dict[str, str]]:
    """Each environment's distributions and versions, by framework."""
    from polybook.environments.packages import resolved_versions
    from polybook.environments.venvs import set_up_environments

    found = set_up_environments(envs)
    return {env.framework: resolved_versions(env.path / "bin" / "python") for env in found}


def differences(pip: dict[str, dict[str, str]], uv: dict[str, dict[str, str]]) -> list[str]:
    """Where uv's environments hold other distributions or versions than pip's."""
    found = []
    for framework in sorted(pip.keys() | uv.keys()):
        one, other = pip.get(framework, {}), uv.get(framework, {})
        for name in sorted(one.keys() | other.keys()):
            if one.get(name) != other.get(name):
                found.append(f"{framework}: {name} {one.get(name)} (pip) {other.get(name)} (uv)")
    return found


def environment_figures() -> list[tuple[str, str, str]]:
    """uv against pip, in one run."""
    with tempfile.TemporaryDirectory(prefix="polybook-bench-envs-") as tmp:
        folder = Path(tmp)
        setup_all(folder / "warm-up", "uv")
        shutil.rmtree(folder / "warm-up")
        pip = setup_all(folder / "pip", "pip")
        uv = setup_all(folder / "uv", "uv")
        by_pip, by_uv = installed(folder / "pip"), installed(folder / "uv")
        differ = differences(by_pip, by_uv)
        torch = by_uv.get("pytorch", {}).get("torch", "?")
    return [
        ("env setup --tab all, pip (warm cache)", f"{pip:.1f} s", ""),
        ("env setup --tab all, uv (warm cache)", f"{uv:.1f} s", ""),
        ("uv / pip", f"{uv / pip:.3f}", "<= 0.2"),
        (
            "environments with other versions than pip's",
            f"{len({d.split(':')[0] for d in differ})} of {len(by_pip)} (torch {torch})"
            + "".join(f"\n      {d}" for d in differ[:10]),
            "0",
        ),
    ]


def make_html(revision: str, folder: Path) -> float:
    """Wall time of ``make html`` in a fresh clone of ``revision``: its tool, environments,
    browser assets and every notebook executed, nothing shared with the repository."""
    clone = folder / f"clone-{revision}"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", revision], check=True)
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "POLYBOOK_ENVS", "POLYBOOK_INSTALLER")
    environ = {k: v for k, v in os.environ.items() if k not in drop}
    started = time.monotonic()
    done = subprocess.run(
        ["make", "html"],
        cwd=clone,
        capture_output=True,
        text=True,
        env=environ,
        check=False,
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(
            f"bench: make html in a clone of {revision} failed:\n{done.stderr[-3000:]}"
        )
    return wall


def clone_figures(before: str | None) -> list[tuple[str, str, str]]:
    """A fresh clone's ``make html`` at HEAD, and at ``before`` when given."""
    with tempfile.TemporaryDirectory(prefix="polybook-bench-clone-") as tmp:
        now = make_html("HEAD", Path(tmp))
        rows = [("fresh clone: make html (HEAD)", f"{now:.1f} s", "")]
        if before:
            then = make_html(before, Path(tmp))
            rows += [
                (f"fresh clone: make html ({before})", f"{then:.1f} s", ""),
                ("saved", f"{then - now:.1f} s", ""),
            ]
    return rows
