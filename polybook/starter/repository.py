"""The GitHub repository a new book lives in, read from its git remote: what its CI workflow
publishes the notebooks to (``[project] repository``)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

# git@github.com:owner/name.git, ssh://git@github.com/owner/name, https://github.com/owner/name
GITHUB_REMOTE = re.compile(
    r"^(?:git@github\.com:|(?:ssh://)?git@github\.com/|https?://(?:[^@/]+@)?github\.com/)"
    r"(?P<repo>[\w.-]+/[\w.-]+?)(?:\.git)?/?$"
)


def github_repository(remote: str) -> str:
    """``owner/name`` of a GitHub remote's URL, "" for any other."""
    found = GITHUB_REMOTE.match(remote.strip())
    return found.group("repo") if found else ""


def book_repository(folder: Path) -> str:
    """``owner/name`` of the GitHub repository ``folder`` (or the nearest folder above it
    that exists) is a clone of, by its ``origin`` remote; "" when there is none."""
    place = folder
    while not place.is_dir() and place != place.parent:
        place = place.parent
    return github_repository(git_output(place, "remote", "get-url", "origin"))


def git_output(folder: Path, *args: str) -> str:
    """What ``git -C folder ARGS`` prints, stripped; "" where git fails or is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            check=False,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
