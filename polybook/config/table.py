"""The configuration reference (``docs/configuration.md``), generated from the schema so
the two never drift.

``python tools/config_table.py`` rewrites the block between the markers in that page; a test
fails when it is out of date.
"""

from __future__ import annotations

from polybook.config.executors import EXECUTORS
from polybook.config.schema import (
    D2LBOOK_SECTIONS,
    FRAMEWORK_SECTION,
    KEYS,
    LIBRARY_SECTION,
)
from polybook.config.schema.executors import EXECUTOR_PREFIX
from polybook.config.schema.ignored import WHY_IGNORED


def markdown_table() -> str:
    """The keys polybook reads (its executors' sections' last), as a Markdown table, then
    d2lbook's keys it ignores and why."""
    rows = [
        "| key | accepts | default | meaning | read by | from |",
        "|---|---|---|---|---|---|",
    ]
    for key in (*KEYS, *(key for entry in EXECUTORS.values() for key in entry.keys)):
        origin = "d2lbook" if key.d2lbook else "polybook"
        rows.append(
            f"| `[{key.section}] {key.name}` | {key.type_text} | {key.shown_default}"
            f" | {key.help} | {key.read_by_text} | {origin} |"
        )
    whole = ", ".join(f"`[{s}]`" for s in D2LBOOK_SECTIONS)
    notes = [
        "",
        f"`[{LIBRARY_SECTION}]` is one section per framework, e.g. `[library-jax]`;"
        f" `[{FRAMEWORK_SECTION}]` declares a framework (those polybook ships are declared the same"
        " way, in `polybook/frameworks.ini`, and a book's section overrides their keys);"
        f" `[{EXECUTOR_PREFIX}<name>]` holds what the executor `<name>` alone reads, each of"
        " its keys an option of `polybook build` too (`[executor-dask] scheduler` is"
        " `--scheduler`). Words are separated by spaces, commas or lines; a boolean is"
        " `true`/`false`, `yes`/`no`, `on`/`off` or `1`/`0`; an empty value is the default.",
        "",
        "d2lbook keys polybook reads but does not implement (a warning at its line when set),"
        f" and why; any other key of {whole} is ignored too:",
        "",
        "| key | why |",
        "|---|---|",
        *(f"| `[{section}] {name}` | {why} |" for (section, name), why in WHY_IGNORED.items()),
    ]
    return "\n".join(rows + notes) + "\n"


def with_table(readme: str) -> str:
    """``readme`` with the block between the markers replaced by :func:`markdown_table`."""
    return with_block(readme, "config-table", markdown_table())


def with_block(text: str, name: str, body: str) -> str:
    """``text`` with the lines between ``<!-- name:start -->`` and ``<!-- name:end -->``
    replaced by ``body``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        raise ValueError(f"the reference has no {start} … {end} block")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}{end}{tail}"
