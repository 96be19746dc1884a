"""Marks inside code cells: ``tab.selected``, ``#@hide*``, ``#@requires``, ``#@timeout``."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from polybook.diagnostics import Location, PolybookError
from polybook.source.parse import unknown_framework

SELECTED_IF = re.compile(r"^(\s*)if\s+tab\.selected\((.*)\)\s*:\s*(#.*)?$")
ELSE = re.compile(r"^(\s*)else\s*:\s*(#.*)?$")
HIDE = re.compile(r"\s*#@(hide_code|hide_output|hide)\s*$")
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


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _loose(text: str) -> bool:
    """Blank and comment lines: Python ignores their indentation."""
    stripped = text.strip()
    return not stripped or stripped.startswith("#")


def _block(lines: list[Line], start: int, indent: int) -> int:
    """End (exclusive) of the indented body that starts at ``start``."""
    end = start
    while end < len(lines) and (_loose(lines[end][1]) or _indent(lines[end][1]) > indent):
        end += 1
    # Blank lines, and comments no deeper than the ``if``, after the body are not its own.
    while end > start and _loose(text := lines[end - 1][1]):
        if text.strip() and _indent(text) > indent:
            break
        end -= 1
    return end


def _else_at(lines: list[Line], index: int, indent: int) -> int | None:
    """Index of an ``else:`` at ``indent`` that continues the ``if`` ending at ``index``."""
    while index < len(lines) and _loose(lines[index][1]):
        index += 1
    match = ELSE.match(lines[index][1]) if index < len(lines) else None
    return index if match and len(match.group(1)) == indent else None


def _dedent(lines: list[Line], by: int) -> list[Line]:
    """Lines less ``by`` columns of indentation (less only whitespace); numbers kept."""
    return [(n, t[min(by, _indent(t)) :] if t.strip() else "") for n, t in lines]


def _names(args: str, where: Location) -> set[str]:
    try:
        value = ast.literal_eval(f"({args},)")
    except (SyntaxError, ValueError):
        value = None
    if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
        raise PolybookError(where, "tab.selected() takes framework names as strings", "split.tab")
    return set(value)


def select_branches(
    lines: list[Line], framework: str, path: str, tabs: tuple[str, ...]
) -> list[Line]:
    """Keep the ``if tab.selected(...)`` bodies that apply to ``framework``, dedented."""
    kept: list[Line] = []
    index = 0
    while index < len(lines):
        number, text = lines[index]
        match = SELECTED_IF.match(text)
        if not match:
            if "tab.selected" in text:
                where = Location(path, number, framework)
                raise PolybookError(
                    where, "tab.selected() must stand alone as `if tab.selected(...):`", "split.tab"
                )
            kept.append((number, text))
            index += 1
            continue
        where = Location(path, number, framework)
        names = _names(match.group(2), where)
        unknown = sorted(names - set(tabs))
        if unknown:
            message = f"tab.selected() names {unknown_framework(unknown[0], tabs)}"
            raise PolybookError(where, message, "split.tab")
        indent = len(match.group(1))
        end = _block(lines, index + 1, indent)
        if end == index + 1:
            raise PolybookError(where, "`if tab.selected(...):` has no body", "split.tab")
        chosen = lines[index + 1 : end] if framework in names else []
        index = end
        if (at := _else_at(lines, index, indent)) is not None:
            index = _block(lines, at + 1, indent)
            if framework not in names:
                chosen = lines[at + 1 : index]
        if chosen:
            code = [_indent(t) for _, t in chosen if not _loose(t)]
            body_indent = min(code) if code else indent
            nested = _dedent(chosen, body_indent - indent)
            kept.extend(select_branches(nested, framework, path, tabs))
    return kept


def infer_gpus(source: str) -> int:
    """GPUs a cell needs, judged from the devices its statements use (definitions aside)."""
    used = "\n".join(
        line
        for line in source.split("\n")
        if not line.lstrip().startswith(("def ", "async def ", "class ", "#"))
    )
    needed = 2 if ALL_GPUS.search(used) else 0
    for match in GPU_INDEX.finditer(used):
        needed = max(needed, int(match.group(1) or match.group(2)) + 1)
    return needed


def read_marks(lines: list[Line], path: str, framework: str) -> CellMarks:
    """Strip ``#@hide*`` and ``#@requires`` marks from ``lines`` and report what they say."""
    kept: list[Line] = []
    tags: list[str] = []
    declared: int | None = None
    timeout: int | None = None
    for number, text in lines:
        if D2LBOOK_PLUMBING.match(text):
            continue
        timeout_mark = TIMEOUT.match(text)
        if timeout_mark:
            value = timeout_mark.group(1).strip()
            if not value.isdigit() or int(value) == 0:
                where = Location(path, number, framework)
                raise PolybookError(where, "expected `#@timeout SECONDS`", "split.timeout")
            timeout = int(value)
            continue
        requires = REQUIRES.match(text)
        if requires:
            where = Location(path, number, framework)
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
    gpus = declared if declared is not None else infer_gpus(code)
    return CellMarks(tuple(kept), tuple(dict.fromkeys(tags)), gpus, declared is not None, timeout)
