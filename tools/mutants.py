"""``make mutants``: mutation testing of the modules that guard correctness. mutmut (its
settings in pyproject.toml's ``[tool.mutmut]``) changes their code one small way at a time
and runs the fast tests that cover it; a change no test notices survives. Prints killed /
total per module and every survivor that ``tests/mutants-accepted.txt`` does not accept
(one line per mutant: its name, then why it is equivalent); exit 1 if any is left, or a
mutant was not run.

.envs/tool/bin/python -m tools.mutants [--report] [MODULE ...]

MODULE: a path of :data:`MODULES` (all by default), run one after another (mutmut keeps its
results in ``mutants/``, so a second run tests only what changed); ``--report`` runs nothing.
"""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MUTMUT = Path(sys.executable).parent / "mutmut"
ACCEPTED = REPO / "tests" / "mutants-accepted.txt"
# Each module and the mutants (by mutmut's name) that count (all of them).
MODULES = {
    "polybook/library/usage.py": "polybook.library.usage.*",
    "polybook/source/frozen.py": "polybook.source.frozen.*",
    "polybook/confine.py": "polybook.confine.*",
    "polybook/execution/kernels/badges.py": "polybook.execution.kernels.badges.*",
    "polybook/execution/kernels/device_errors.py": "polybook.execution.kernels.device_errors.*",
    "polybook/environments/installer.py": "polybook.environments.installer.*",
    "polybook/render/svg.py": "polybook.render.svg.*",
    "polybook/commands/serve_requests.py": "polybook.commands.serve_requests.*",
}
# mutmut's exit codes of a mutant's tests: caught (failed, timed out, crashed) or not.
KILLED = {1, 3, 36, 37, -24, 24, 152, 255, -11, -9}
UNCHECKED = None


@dataclass(frozen=True)
class Tally:
    """One module's mutants: how many, how many the tests killed, which survived and which
    were not run yet."""

    total: int
    killed: int
    survivors: tuple[str, ...]
    unchecked: int


def accepted(text: str) -> dict[str, str]:
    """The accepted survivors of ``text`` (``NAME  why`` per line, ``#`` comments): name ->
    why. A line without a reason accepts nothing."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip().startswith("#"):
            continue
        name, _, why = line.strip().partition(" ")
        if name and why.strip():
            found[name] = why.strip()
    return found


def tally(meta: dict[str, object], pattern: str) -> Tally:
    """The mutants of a module's ``.meta`` (mutmut's results) whose names match ``pattern``."""
    codes = meta.get("exit_code_by_key", {})
    assert isinstance(codes, dict)
    chosen = {k: v for k, v in codes.items() if fnmatch.fnmatchcase(k, pattern)}
    killed = sum(1 for v in chosen.values() if v in KILLED)
    unchecked = sum(1 for v in chosen.values() if v is UNCHECKED)
    survivors = tuple(sorted(k for k, v in chosen.items() if v is not None and v not in KILLED))
    return Tally(len(chosen), killed, survivors, unchecked)


def results(module: str) -> Tally:
    path = REPO / "mutants" / f"{module}.meta"
    meta = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return tally(meta, MODULES[module])


def run(module: str) -> int:
    """mutmut on ``module``'s mutants, niced (it keeps every core busy)."""
    command = ["nice", "-n", "10", str(MUTMUT), "run", "--max-children", "2", MODULES[module]]
    return subprocess.run(command, cwd=REPO, check=False).returncode


def main(argv: list[str]) -> int:
    report_only = "--report" in argv
    modules = [a for a in argv if a != "--report"] or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(f"not a module `make mutants` tests: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if not report_only and not MUTMUT.is_file():
        print(f"no mutmut at {MUTMUT}: `make mutants` installs it", file=sys.stderr)
        return 2
    ok = set(accepted(ACCEPTED.read_text(encoding="utf-8")) if ACCEPTED.is_file() else {})
    left: list[str] = []
    unchecked = 0
    for module in modules:
        if not report_only:
            run(module)
        found = results(module)
        share = f"{100 * found.killed / found.total:.0f}%" if found.total else "-"
        waiting = f", {found.unchecked} not run" if found.unchecked else ""
        unaccepted = [s for s in found.survivors if s not in ok]
        print(
            f"{module}: {found.killed}/{found.total} killed ({share}),"
            f" {len(found.survivors) - len(unaccepted)} accepted{waiting}"
        )
        left += unaccepted
        unchecked += found.unchecked
    for name in left:
        print(f"  survived: {name}  (mutmut show {name})")
    if unchecked:
        print(f"{unchecked} mutants not run yet: run `make mutants` (without --report)")
    return 1 if left or unchecked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
