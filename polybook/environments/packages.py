"""The packages an environment holds, as its own Python resolves them: the provenance that
``polybook diff`` and ``polybook upgrade`` name."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

LIST = (
    "import importlib.metadata as m, json; "
    "print(json.dumps([[d.metadata['Name'] or '', d.version] for d in m.distributions()]))"
)


def canonical(name: str) -> str:
    """A distribution name as pip compares it: ``Typing_Extensions`` is ``typing-extensions``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def resolved_versions(python: Path) -> dict[str, str]:
    """Each distribution installed where ``python`` runs, by canonical name, with its version;
    empty when it does not run."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        done = subprocess.run(
            [str(python), "-c", LIST],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=environ,
        )
        listed = json.loads(done.stdout) if done.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}
    found = {canonical(str(name)): str(version) for name, version in listed if name}
    return dict(sorted(found.items()))
