"""``polybook env assets``: the browser assets from npm (MathJax, reveal.js; where they are
used: :mod:`polybook.render.assets`) installed with ``npm ci`` from the pinned lock file
shipped in the package (``polybook/requirements/node``)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from polybook.diagnostics import Location, PolybookError
from polybook.fsutil import write_atomic
from polybook.paths import NODE_REQUIREMENTS, assets_dir

LOCK_FILES = ("package.json", "package-lock.json")
STAMP = ".stamp"


def assets_current(target: Path | None = None) -> bool:
    """Whether the assets at ``target`` were installed from the lock file shipped now."""
    target = target or assets_dir()
    stamp = target / STAMP
    lock = (target / "package-lock.json", NODE_REQUIREMENTS / "package-lock.json")
    try:
        return stamp.is_file() and lock[0].read_bytes() == lock[1].read_bytes()
    except OSError:
        return False


def install_assets(target: Path | None = None) -> Path:
    """Install the pinned npm packages into ``target`` (default :func:`assets_dir`) with
    ``npm ci``, in a temporary folder renamed into place; returns ``target``."""
    target = target or assets_dir()
    if assets_current(target) and (target / "node_modules").is_dir():
        return target
    npm = shutil.which("npm")
    where = Location(str(NODE_REQUIREMENTS / "package-lock.json"))
    if npm is None:
        message = "npm is not installed: install Node.js (Debian: sudo apt-get install npm)"
        raise PolybookError(where, message, "env.assets")
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        for name in LOCK_FILES:
            shutil.copy2(NODE_REQUIREMENTS / name, building / name)
        command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        done = subprocess.run(command, cwd=building, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-10:])
            raise PolybookError(where, f"`npm ci` failed in {building}:\n{tail}", "env.assets")
        write_atomic(building / STAMP, "")
        if target.is_symlink() or target.exists():
            retired = target.with_name(f".{target.name}.retired")
            shutil.rmtree(retired, ignore_errors=True)
            target.rename(retired)
            shutil.rmtree(retired, ignore_errors=True)
        building.rename(target)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target
