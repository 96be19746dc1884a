"""Keys across Python versions: the key-format-2 text of every Python file and Markdown code
cell under the given folders, hashed by each interpreter given, compared.

.envs/tool/bin/python -m tools.key_versions PYTHON… [--in FOLDER…]

Each interpreter runs ``polybook/library/canonical.py`` alone (the standard library only), so
any CPython 3.10 or later can be named (e.g. ``uv python find 3.13``). Prints, per
interpreter, how many trees it read and how many differ from the first interpreter's; exits 1
when one does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CANONICAL = REPO / "polybook" / "library" / "canonical.py"
# Run in each interpreter: the hash of every file's and code cell's tree, as JSON.
PROBE = r"""
import ast, hashlib, importlib.util, json, re, sys
spec = importlib.util.spec_from_file_location("canonical", sys.argv[1])
canonical = importlib.util.module_from_spec(spec)
spec.loader.exec_module(canonical)
CELL = re.compile(r"```\{\.python \.input[^}]*\}\n(.*?)```", re.S)
MAGIC = re.compile(r"\s*[%!]")
found = {}
for name in sys.argv[2:]:
    text = open(name, encoding="utf-8").read()
    sources = CELL.findall(text) if name.endswith(".md") else [text]
    for n, source in enumerate(sources):
        source = "\n".join("" if MAGIC.match(line) else line for line in source.split("\n"))
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        found[f"{name}#{n}"] = hashlib.sha256(canonical.canonical(tree).encode()).hexdigest()
print(json.dumps(found))
"""


def hashes(python: str, files: list[str]) -> dict[str, str]:
    done = subprocess.run(
        [python, "-c", PROBE, str(CANONICAL), *files],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    found: dict[str, str] = json.loads(done.stdout)
    return found


def main(argv: list[str]) -> int:
    pythons = argv[: argv.index("--in")] if "--in" in argv else argv
    folders = argv[argv.index("--in") + 1 :] if "--in" in argv else [str(REPO)]
    if not pythons:
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(
        str(p)
        for folder in folders
        for p in Path(folder).rglob("*")
        if p.suffix in (".py", ".md") and not any(part.startswith(".") for part in p.parts)
    )
    base: dict[str, str] = {}
    differ = 0
    for python in pythons:
        found = hashes(python, files)
        version = subprocess.run(
            [python, "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        base = base or found
        changed = sorted(k for k in found.keys() & base.keys() if found[k] != base[k])
        differ += len(changed)
        print(f"Python {version}: {len(found)} trees, {len(changed)} differ from the first")
        for name in changed[:5]:
            print(f"  {name}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
