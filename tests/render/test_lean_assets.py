"""The tool's scripts and styles published without their comments (``site.lean_assets``)."""

from __future__ import annotations

import re
import subprocess
import zlib
from pathlib import Path

from polybook.site.lean_assets import (
    TOOL_STATIC,
    script_without_comments,
    style_without_comments,
)

SCRIPT = """/*
 * What the script does.
 */
(function () {
  // a note
  /* One line. */
  const a = 1; // kept: code comes first
  const url = "http://example.org/*";
})();
"""


def test_a_script_loses_its_whole_line_comments_and_keeps_its_code() -> None:
    assert script_without_comments(SCRIPT) == (
        "(function () {\n  const a = 1; // kept: code comes first\n"
        '  const url = "http://example.org/*";\n})();\n'
    )


def test_a_template_literal_across_lines_keeps_the_script_as_it_is() -> None:
    text = "const t = `\n// not a comment\n`;\n// a comment\n"
    assert script_without_comments(text) == text


def test_a_style_sheet_loses_its_comments() -> None:
    text = '/* head */\na { color: red; } /* why */\nb::after { content: "x"; }\n'
    assert style_without_comments(text) == 'a { color: red; } \nb::after { content: "x"; }\n'


def test_every_script_of_the_tool_still_parses_once_lean(tmp_path: Path) -> None:
    """Node reads each lean script (a syntax error would stop it in the reader's browser)."""
    node = Path(__file__).resolve().parents[2] / ".envs" / "node" / "bin" / "node"
    runner = str(node) if node.is_file() else "node"
    for source in sorted(TOOL_STATIC.glob("*.js")):
        lean = script_without_comments(source.read_text(encoding="utf-8"))
        assert len(lean) < source.stat().st_size, source.name  # each has comments to lose
        target = tmp_path / source.name
        target.write_text(lean, encoding="utf-8")
        done = subprocess.run(
            [runner, "--check", str(target)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (source.name, done.stderr)


def test_each_asset_a_page_names_is_named_by_the_checksum_of_what_is_published(
    shipped_site: Path,
) -> None:
    """A cold build's pages name each static file by its published content (``?v=``): the
    lean copies and the theme's code styles are written before the pages name them, so a
    page written by a later build, in another process, names the same."""
    site = shipped_site / "_build" / "html"
    named: dict[str, set[str]] = {}
    for page in sorted(site.rglob("*.html")):
        for name, checksum in re.findall(r"_static/([\w./-]+)\?v=([0-9a-f]+)", page.read_text()):
            named.setdefault(name, set()).add(checksum)
    assert {"pygments.css", "polybook.css", "polybook-tabs.js"} <= set(named)
    for name, checksums in sorted(named.items()):
        content = (site / "_static" / name).read_bytes().replace(b"\r", b"")
        assert checksums == {f"{zlib.crc32(content):08x}"}, name
