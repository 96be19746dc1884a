"""Marks inside code cells: ``#@hide*``, ``#@requires``, ``#@timeout``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from polybook.diagnostics import Location, PolybookError
from polybook.frameworks import Framework

HIDE = re.compile(r"\s*#\s*@(hide_code|hide_output|hide)\s*$")
# A cell's frameworks, on its first line: `%%tab pytorch`, `#@tab all`, `# @tab`, `# %%tab`.
# Elsewhere in a cell, such a line says nothing (d2lbook drops it too): it is left out.
TAB_LINE = re.compile(r"^\s*(?:%%tab|#\s*@tab|#\s*%%tab)\b(.*)$")
REQUIRES = re.compile(r"^\s*#@requires\b(.*)$")
TIMEOUT = re.compile(r"^\s*#@timeout\b(.*)$")
# d2lbook's own tab plumbing at the top of its notebooks: polybook does this itself.
D2LBOOK_PLUMBING = re.compile(r"^\s*(%load_ext\s+d2lbook\.tab|tab\.interact_select\(.*\))\s*$")
HIDE_TAGS = {"hide": "remove-cell", "hide_code": "remove-input", "hide_output": "remove-output"}

# Device use that needs GPUs when a cell declares nothing: index k needs k + 1 GPUs.
GPU_INDEX = re.compile(r"(?:\btry_gpu|\bgpu|\.cuda)\(\s*(\d+)\s*\)|['\"]cuda:(\d+)['\"]")
ALL_GPUS = re.compile(r"\btry_all_gpus\(\s*\)")

Line = tuple[int, str]  # (source line number, text)


@dataclass(frozen=True)
class CellMarks:
    """What the marks of one cell say, after they are removed from its source."""

    lines: tuple[Line, ...]
    tags: tuple[str, ...]
    gpus: int
    gpus_declared: bool
    timeout: int | None = None


def infer_gpus(source: str, fw: Framework | None = None) -> int:
    """GPUs a cell needs, judged from the devices its statements use (definitions aside),
    named generically or in ``fw``'s declared conventions."""
    if "gpu" not in source and "cuda" not in source and not (fw and fw.gpu_patterns):
        return 0  # what the generic patterns need is not there: most cells
    used = "\n".join(
        line
        for line in source.split("\n")
        if not line.lstrip().startswith(("def ", "async def ", "class ", "#"))
    )
    needed = 2 if ALL_GPUS.search(used) else 0
    for match in GPU_INDEX.finditer(used):
        needed = max(needed, int(match.group(1) or match.group(2)) + 1)
    return max([needed, *(k + 1 for k in (fw.device_indices(used) if fw else ()))])


def read_marks(lines: list[Line], path: str, fw: Framework) -> CellMarks:
    """Strip ``#@hide*`` and ``#@requires`` marks from ``lines`` and report what they say."""
    if not any(
        "@" in t or "%%tab" in t or "d2lbook" in t or "interact_select" in t for _, t in lines
    ):
        code = "\n".join(t for _, t in lines)  # no mark: most cells
        return CellMarks(tuple(lines), (), infer_gpus(code, fw), False)
    kept: list[Line] = []
    tags: list[str] = []
    declared: int | None = None
    timeout: int | None = None
    for number, text in lines:
        if D2LBOOK_PLUMBING.match(text) or TAB_LINE.match(text):
            continue
        timeout_mark = TIMEOUT.match(text)
        if timeout_mark:
            value = timeout_mark.group(1).strip()
            if not value.isdigit() or int(value) == 0:
                where = Location(path, number, fw.name)
                raise PolybookError(where, "expected `#@timeout SECONDS`", "split.timeout")
            timeout = int(value)
            continue
        requires = REQUIRES.match(text)
        if requires:
            where = Location(path, number, fw.name)
            key, _, value = requires.group(1).strip().partition("=")
            if key.strip() != "gpus" or not value.strip().isdigit():
                raise PolybookError(where, "expected `#@requires gpus=N`", "split.requires")
            declared = int(value)
            continue
        hide = HIDE.search(text)
        if hide:
            tags.append(HIDE_TAGS[hide.group(1)])
            code = text[: hide.start()]
            if code.strip():
                kept.append((number, code))
            continue
        kept.append((number, text))
    code = "\n".join(t for _, t in kept)
    gpus = declared if declared is not None else infer_gpus(code, fw)
    return CellMarks(tuple(kept), tuple(dict.fromkeys(tags)), gpus, declared is not None, timeout)
