"""Read a committed ``polybook compat`` record again with today's judgement, from what it
stored (no run): each section whose changed cells (in its drift report) changed only by
chance, after an unseeded random draw, becomes ``random``.

    python -m tools.compat_reclassify _compat/compat.json _build/eval

``_build/eval``: the current build's notebooks, for each page's code before a cell."""

from __future__ import annotations

import base64
import html
import json
import re
import sys
from pathlib import Path
from typing import Any

from polybook.drift.randomness import by_chance
from polybook.fsutil import write_atomic
from polybook.nb import reads

ARTICLE = re.compile(
    r'<article id="cell-\d+">\s*<h3>(.*?):\d+ \[(\w+)\] cell (\d+)</h3>(.*?)</article>', re.S
)
KIND = re.compile(r'<span class="kind ([\w-]+)">')
SIDE = re.compile(r'<div class="(before|after)">(.*?)</div>\s*(?=<div class="after">|</div>)', re.S)
PART = re.compile(
    r'<pre>(.*?)</pre>|<img alt="[^"]*" src="data:image/svg\+xml;base64,([^"]+)">', re.S
)


def _parts(side: str) -> list[str]:
    found = []
    for text, svg in PART.findall(side):
        if svg:
            found.append(base64.b64decode(svg).decode("utf-8", "replace"))
        else:
            found.append(html.unescape(re.sub(r"</?mark>", "", text)))
    return found


def chance_cells(report: str, eval_dir: Path) -> dict[tuple[str, str], bool]:
    """Per (page, framework): whether every changed cell of the report changed by chance."""
    found: dict[tuple[str, str], bool] = {}
    for page, fw, number, body in ARTICLE.findall(report):
        kinds = KIND.findall(body)
        if set(kinds) == {"tolerance"}:
            continue
        sides = dict(SIDE.findall(body.split("</details>", 1)[-1]))
        before, after = _parts(sides.get("before", "")), _parts(sides.get("after", ""))
        nb = reads((eval_dir / fw / page.replace(".md", ".ipynb")).read_text("utf-8"))
        code = [str(c.source) for c in nb.cells if c.cell_type == "code"][: int(number)]
        pairs = list(zip(before, after, strict=False)) if len(before) == len(after) else []
        chance = by_chance(fw, code, kinds, pairs)
        found[(page, fw)] = found.get((page, fw), True) and chance
    return found


def main(record_path: Path, eval_dir: Path) -> int:
    record: dict[str, Any] = json.loads(record_path.read_text(encoding="utf-8"))
    moved = 0
    for result in record["results"]:
        if result["status"] != "changed" or not result.get("report"):
            continue
        report = (record_path.parent / result["report"].split("#")[0]).read_text("utf-8")
        if chance_cells(report, eval_dir).get((result["page"], result["framework"])):
            result["status"] = "random"
            moved += 1
    write_atomic(record_path, json.dumps(record, indent=1) + "\n")
    print(f"{moved} results now random")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
