"""``make mutants``: mutation testing of the modules that guard correctness. mutmut (its
settings in pyproject.toml's ``[tool.mutmut]``) changes their code one small way at a time
and runs the fast tests that cover it; a change no test notices survives. A mutant counts as
killed only when a test failed (pytest's exit 1): an internal error, a crash, a timeout or a
mutant no test ran is not a kill. Prints killed / survived / accepted per module and every
survivor that ``tests/mutants-accepted.txt`` does not accept; exit 1 if any is left, or a
mutant was not run. ``--summary`` also writes every module's figures to :data:`SUMMARY_JSON`
and :data:`SUMMARY_PAGE` (committed).

Accepted survivors are keyed by what the mutant changed, not by mutmut's numbers (which move
when code moves): a ``[path]`` line names the module, then one line per survivor,
``function: before => after  ## why it is equivalent``.

.envs/tool/bin/python -m tools.mutants [--report] [--summary] [MODULE ...]

MODULE: a path of :data:`MODULES` (all by default), run one after another (mutmut keeps its
results in ``mutants/``, so a second run tests only what changed); ``--report`` runs nothing.
"""

from __future__ import annotations

import ast
import datetime
import difflib
import fnmatch
import json
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MUTMUT = Path(sys.executable).parent / "mutmut"
ACCEPTED = REPO / "tests" / "mutants-accepted.txt"
SUMMARY_JSON = REPO / "benchmarks" / "mutants.json"
SUMMARY_PAGE = REPO / "docs" / "mutants.md"
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
    "polybook/library/head.py": "polybook.library.head.*",
    "polybook/library/canonical.py": "polybook.library.canonical.*",
    "polybook/library/foreign.py": "polybook.library.foreign.*",
    "polybook/execution/output_noise.py": "polybook.execution.output_noise.*",
    "polybook/render/sphinx/parallel_write.py": "polybook.render.sphinx.parallel_write.*",
}
# mutmut's exit status of a mutant's tests, in words. Only a failed test kills.
KILLED = 1
STATUS = {0: "survived", 1: "killed", 3: "pytest internal error", 5: "no test ran"}
STATUS |= {33: "no test ran", 34: "skipped", 36: "timeout", 37: "caught by type check"}
STATUS |= {code: "timeout" for code in (24, -24, 152, 255)}
STATUS |= {-11: "crashed", -9: "crashed"}
SEPARATOR = "  ## "


@dataclass(frozen=True)
class Mutant:
    """A mutant not killed: mutmut's name, what happened to it, and what it changed
    (``function: before => after``)."""

    name: str
    status: str
    change: str


@dataclass(frozen=True)
class Tally:
    """One module's mutants: how many, how many a failing test killed, the others that were
    run, and how many were not run yet."""

    total: int
    killed: int
    survivors: tuple[Mutant, ...]
    unchecked: int


def accepted(text: str) -> dict[tuple[str, str], str]:
    """The accepted survivors in ``text``: (module, change) -> why. ``[module]`` lines open
    a module; ``#`` lines are comments; a line without a reason accepts nothing."""
    found: dict[tuple[str, str], str] = {}
    module = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            module = stripped[1:-1]
        elif stripped and not stripped.startswith("#"):
            change, _, why = stripped.partition(SEPARATOR.strip())
            if change.strip() and why.strip():
                found[(module, change.strip())] = why.strip()
    return found


def _functions(source: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(source)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    return {node.name: node for node in ast.walk(tree) if isinstance(node, kinds)}


def _function_name(mangled: str) -> str:
    """``x_name`` -> ``name``; ``xǁClassǁname`` -> ``Class.name``."""
    if mangled.startswith("xǁ"):
        return ".".join(mangled[2:].split("ǁ"))
    return mangled.removeprefix("x_")


def change_of(source: str, name: str) -> str:
    """What mutant ``name`` changed in ``source`` (the mutated module mutmut writes, every
    mutant a function beside the original): ``function: before => after``, each side the
    changed lines, stripped, joined by `` / ``."""
    mutant = name.rpartition(".")[2]
    mangled = mutant.rpartition("__mutmut_")[0]
    functions = _functions(source)
    lines = source.splitlines()

    def body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
        return lines[node.lineno : node.end_lineno]  # without the def line, which names it

    if mutant not in functions or f"{mangled}__mutmut_orig" not in functions:
        return f"{_function_name(mangled)}: ?"
    diff = difflib.ndiff(body(functions[f"{mangled}__mutmut_orig"]), body(functions[mutant]))
    before = [line[2:].strip() for line in diff if line.startswith("- ")]
    diff = difflib.ndiff(body(functions[f"{mangled}__mutmut_orig"]), body(functions[mutant]))
    after = [line[2:].strip() for line in diff if line.startswith("+ ")]
    return f"{_function_name(mangled)}: {' / '.join(before)} => {' / '.join(after)}"


def tally(meta: dict[str, object], pattern: str, source: str = "") -> Tally:
    """The mutants of a module's ``.meta`` (mutmut's results) whose names match ``pattern``;
    ``source``: the mutated module, to say what each survivor changed."""
    codes = meta.get("exit_code_by_key", {})
    assert isinstance(codes, dict)
    chosen = {k: v for k, v in codes.items() if fnmatch.fnmatchcase(k, pattern)}
    killed = sum(1 for v in chosen.values() if v == KILLED)
    unchecked = sum(1 for v in chosen.values() if v is None)
    survivors = tuple(
        Mutant(k, STATUS.get(v, f"exit {v}"), change_of(source, k) if source else "")
        for k, v in sorted(chosen.items())
        if v is not None and v != KILLED
    )
    return Tally(len(chosen), killed, survivors, unchecked)


def results(module: str) -> Tally:
    path = REPO / "mutants" / f"{module}.meta"
    meta = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    mutated = REPO / "mutants" / module
    source = mutated.read_text(encoding="utf-8") if mutated.is_file() else ""
    return tally(meta, MODULES[module], source)


def run(module: str) -> int:
    """mutmut on ``module``'s mutants, niced (it keeps every core busy)."""
    command = ["nice", "-n", "10", str(MUTMUT), "run", "--max-children", "2", MODULES[module]]
    return subprocess.run(command, cwd=REPO, check=False).returncode


@dataclass(frozen=True)
class Row:
    """A module's line of the summary."""

    module: str
    total: int
    killed: int
    survived: int
    accepted: int
    unchecked: int

    @property
    def score(self) -> float | None:
        """Killed of the mutants that are not equivalent (the accepted ones left out); None
        while some are not run."""
        if self.unchecked:
            return None
        counted = self.total - self.accepted
        return 100 * self.killed / counted if counted else 100.0

    @property
    def shown_score(self) -> str:
        return "not run" if self.score is None else f"{self.score:.1f}%"


def row(module: str, found: Tally, ok: dict[tuple[str, str], str]) -> tuple[Row, list[Mutant]]:
    """``module``'s figures, and its survivors ``ok`` does not accept."""
    left = [s for s in found.survivors if (module, s.change) not in ok or s.status != "survived"]
    survived = len(found.survivors)
    line = Row(module, found.total, found.killed, survived, survived - len(left), found.unchecked)
    return line, left


def mutmut_version() -> str:
    try:
        return metadata.version("mutmut")
    except metadata.PackageNotFoundError:
        return "unknown"


def write_summary(rows: list[Row], version: str, today: str, repo: Path = REPO) -> None:
    """The figures of ``rows`` as JSON (benchmarks/) and as a table (docs/), with mutmut's
    ``version`` and the date they were made."""
    data = {
        "mutmut": version,
        "date": today,
        "modules": [r.__dict__ | {"score": r.score and round(r.score, 1)} for r in rows],
    }
    (repo / SUMMARY_JSON.relative_to(REPO)).write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    table = [
        "# Mutation testing: the figures",
        "",
        f"`make mutants` with mutmut {version}, run on {today} (written by"
        " `python -m tools.mutants --summary`; the same in `benchmarks/mutants.json`). A mutant"
        " is killed only when a test fails; accepted survivors are the equivalent mutants"
        " `tests/mutants-accepted.txt` lists, each with why; the score is killed / (total −"
        ' accepted); "not run": the module\'s mutants were not run on that date. See'
        " architecture.md, *Mutation testing*.",
        "",
        "| module | mutants | killed | survived | accepted | score |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        table.append(
            f"| `{r.module}` | {r.total} | {r.killed} | {r.survived} | {r.accepted}"
            f" | {r.shown_score} |"
        )
    (repo / SUMMARY_PAGE.relative_to(REPO)).write_text("\n".join(table) + "\n", "utf-8")


def main(argv: list[str]) -> int:
    flags = {"--report", "--summary"}
    report_only = "--report" in argv
    modules = [a for a in argv if a not in flags] or list(MODULES)
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(f"not a module `make mutants` tests: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if not report_only and not MUTMUT.is_file():
        print(f"no mutmut at {MUTMUT}: `make mutants` installs it", file=sys.stderr)
        return 2
    ok = accepted(ACCEPTED.read_text(encoding="utf-8")) if ACCEPTED.is_file() else {}
    left: list[tuple[str, Mutant]] = []
    rows: list[Row] = []
    for module in modules:
        if not report_only:
            run(module)
        line, unaccepted = row(module, results(module), ok)
        waiting = f", {line.unchecked} not run" if line.unchecked else ""
        print(
            f"{module}: {line.killed}/{line.total} killed, {line.survived} survived,"
            f" {line.accepted} accepted (score {line.shown_score}){waiting}"
        )
        rows.append(line)
        left += [(module, mutant) for mutant in unaccepted]
    for module, mutant in left:
        print(f"  {mutant.status}: [{module}] {mutant.change}  (mutmut show {mutant.name})")
    if "--summary" in argv:
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        every = [row(module, results(module), ok)[0] for module in MODULES]
        write_summary(every, mutmut_version(), today)
    unchecked = sum(r.unchecked for r in rows)
    if unchecked:
        print(f"{unchecked} mutants not run yet: run `make mutants` (without --report)")
    return 1 if left or unchecked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
