"""The configuration reference (``docs/configuration.md``), generated from the schema so
the two never drift.

``python tools/config_table.py`` rewrites the block between the markers in that page; a test
fails when it is out of date.
"""

from __future__ import annotations

from polybook.config.schema import (
    D2LBOOK_IGNORED,
    D2LBOOK_SECTIONS,
    FRAMEWORK_SECTION,
    KEYS,
    LIBRARY_SECTION,
)

START = "<!-- config-table:start -->"
END = "<!-- config-table:end -->"


def markdown_table() -> str:
    """The keys polybook reads, as a Markdown table, then d2lbook's keys it ignores."""
    rows = [
        "| key | accepts | default | meaning | from |",
        "|---|---|---|---|---|",
    ]
    for key in KEYS:
        origin = "d2lbook" if key.d2lbook else "polybook"
        rows.append(
            f"| `[{key.section}] {key.name}` | {key.type_text} | {key.shown_default}"
            f" | {key.help} | {origin} |"
        )
    ignored = "; ".join(
        f"`[{section}]` " + ", ".join(f"`{k}`" for k in keys)
        for section, keys in D2LBOOK_IGNORED.items()
        if keys
    )
    whole = ", ".join(f"`[{s}]`" for s in D2LBOOK_SECTIONS)
    notes = [
        "",
        f"`[{LIBRARY_SECTION}]` is one section per framework, e.g. `[library-jax]`;"
        f" `[{FRAMEWORK_SECTION}]` declares a framework (polybook's four are declared the same"
        " way, in `polybook/frameworks.ini`, and a book's section overrides their keys). Words are"
        " separated by spaces, commas or lines; a boolean is `true`/`false`, `yes`/`no`,"
        " `on`/`off` or `1`/`0`; an empty value is the default.",
        "",
        f"d2lbook keys polybook reads but does not implement (a warning when set): {ignored};"
        f" and every other key of {whole}.",
    ]
    return "\n".join(rows + notes) + "\n"


def with_table(readme: str) -> str:
    """``readme`` with the block between the markers replaced by :func:`markdown_table`."""
    if START not in readme or END not in readme:
        raise ValueError(f"the reference has no {START} … {END} block")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{markdown_table()}{END}{tail}"
