"""Keys across Python versions: the key-format-2 text of every Python file and Markdown code
cell under the given folders, hashed by each interpreter given, compared; and key format 1's
emulation checked against the real thing: what each interpreter's ``legacy_dump`` makes of
its trees for every other interpreter's version is that interpreter's own ``ast.dump``.

.envs/tool/bin/python -m tools.key_versions PYTHON… [--in FOLDER…]
.envs/tool/bin/python -m tools.key_versions --installed [--in FOLDER…]
.envs/tool/bin/python -m tools.key_versions --require N

Each interpreter runs ``polybook/library/canonical.py`` alone (the standard library only), so
any CPython 3.10 or later can be named (e.g. ``uv python find 3.13``); ``--installed`` names
one of each version this machine has (see :func:`installed`). Prints, per interpreter, how
many trees it read, how many differ from the first interpreter's, and how many of its
``ast.dump``s another interpreter's emulation missed; exits 1 when one does. ``--require N``
lists the installed interpreters and exits 1 when there are fewer than N (``make pythons``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CANONICAL = REPO / "polybook" / "library" / "canonical.py"
# Run in each interpreter: its version and format-1 dialect, and per file's and code cell's
# tree the hash of its format-2 text, of its own ast.dump, of its emulated dump per dialect.
PROBE = r"""
import ast, hashlib, importlib.util, json, platform, re, sys
spec = importlib.util.spec_from_file_location("canonical", sys.argv[1])
canonical = importlib.util.module_from_spec(spec)
spec.loader.exec_module(canonical)
CELL = re.compile(r"```\{\.python \.input[^}]*\}\n(.*?)```", re.S)
MAGIC = re.compile(r"\s*[%!]")
def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()
keys, dumps, legacy = {}, {}, {}
for name in sys.argv[2:]:
    text = open(name, encoding="utf-8").read()
    sources = CELL.findall(text) if name.endswith(".md") else [text]
    for n, source in enumerate(sources):
        source = "\n".join("" if MAGIC.match(line) else line for line in source.split("\n"))
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        place = f"{name}#{n}"
        keys[place] = digest(canonical.canonical(tree))
        dumps[place] = digest(ast.dump(tree))
        legacy[place] = {
            d: digest(canonical.legacy_dump(tree, d)) for d in canonical.LEGACY_DIALECTS
        }
found = {"version": platform.python_version(), "dialect": canonical.own_dialect()}
print(json.dumps({**found, "keys": keys, "dumps": dumps, "legacy": legacy}))
"""


OLDEST = (3, 10)  # the oldest Python whose syntax tree canonical.py reads (``match``)
# The version of a CPython, nothing for another implementation.
VERSION = (
    "import platform, sys\n"
    "if platform.python_implementation() == 'CPython': print(*sys.version_info[:3])"
)


def installed() -> list[str]:
    """One interpreter of each CPython version (3.10 or later, the newest patch release of
    each) this machine has: ``python3.N`` on the PATH, the versions pyenv and uv installed."""
    candidates = [sys.executable]
    candidates += [found for n in range(10, 20) if (found := shutil.which(f"python3.{n}"))]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    uv = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local/share") / "uv/python"
    candidates += [str(p) for folder in (pyenv, uv) for p in sorted(folder.glob("*/bin/python3"))]
    newest: dict[tuple[int, int], tuple[tuple[int, ...], str]] = {}
    for python in candidates:
        try:
            done = subprocess.run(
                [python, "-c", VERSION], check=False, capture_output=True, text=True, timeout=60
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        version = tuple(int(part) for part in done.stdout.split())
        if len(version) == 3 and version[:2] >= OLDEST:
            minor = (version[0], version[1])
            newest[minor] = max(newest.get(minor, (version, python)), (version, python))
    return [python for _, (_, python) in sorted(newest.items())]


def probe(python: str, files: list[str]) -> dict[str, Any]:
    """What ``python`` makes of ``files`` (see :data:`PROBE`)."""
    done = subprocess.run(
        [python, "-c", PROBE, str(CANONICAL), *files],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def missed(found: dict[str, Any], others: list[dict[str, Any]]) -> list[str]:
    """The trees whose ``ast.dump`` (``found``'s interpreter's) another interpreter's
    emulation of that dialect did not make."""
    dialect = found["dialect"]
    return sorted(
        f"{place} (emulated on Python {other['version']})"
        for other in others
        for place, dump in found["dumps"].items()
        if place in other["legacy"] and other["legacy"][place][dialect] != dump
    )


def require(count: int) -> int:
    """0 when this machine has ``count`` CPythons to compare (see :func:`installed`), else 1,
    saying how to add one."""
    found = installed()
    print(f"CPythons to compare cache keys with: {' '.join(found)}")
    if len(found) >= count:
        return 0
    print(
        f"CPythons (3.10 or later) on this machine: {len(found)}, {count} needed by"
        " tests/library/test_key_formats.py: add one (`pyenv install 3.12`,"
        " `uv python install 3.12`, or python3.N on the PATH)",
        file=sys.stderr,
    )
    return 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["--require"] and len(argv) == 2 and argv[1].isdigit():
        return require(int(argv[1]))
    pythons = argv[: argv.index("--in")] if "--in" in argv else argv
    folders = argv[argv.index("--in") + 1 :] if "--in" in argv else [str(REPO)]
    if pythons == ["--installed"]:
        pythons = installed()
    if not pythons:
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(
        str(p)
        for folder in folders
        for p in Path(folder).rglob("*")
        if p.suffix in (".py", ".md") and not any(part.startswith(".") for part in p.parts)
    )
    probes = [probe(python, files) for python in pythons]
    base = probes[0]["keys"]
    wrong = 0
    for found in probes:
        keys = found["keys"]
        changed = sorted(k for k in keys.keys() & base.keys() if keys[k] != base[k])
        emulated = missed(found, [other for other in probes if other is not found])
        wrong += len(changed) + len(emulated)
        print(
            f"Python {found['version']}: {len(keys)} trees, {len(changed)} differ from the"
            f" first, {len(emulated)} dumps emulated otherwise"
        )
        for name in (changed + emulated)[:5]:
            print(f"  {name}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
