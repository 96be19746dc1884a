"""Outputs without framework noise or host paths, as they are stored after execution (and
so in the site, the notebooks and the PDF alike).

A framework declares the lines it logs that say nothing of the reader's code
(``output_noise`` in ``[framework-<name>]``: XLA's and TensorFlow's C++ log, absl, Keras'
chatter): such a line of a cell's stderr is dropped, with a Python warning's whole record
(its message and the source line it quotes) and the blank lines after it. ``[build]
keep_output`` keeps a line the author wants shown. Every text of an output then loses the
build machine's paths: a package's file reads from its ``site-packages`` folder down
(``keras/src/layers/layer.py``), the home folder reads ``~``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from nbformat import NotebookNode

# A folder of installed packages, from the root (or $ENVS, ~) to its name and slash.
SITE_PACKAGES = re.compile(r"(?:\$\w+|~)?(?:/[^\s'\"()\[\]<>,:;\x1b/]+)+?/(?:site|dist)-packages/")
# ``warnings``' record: ``FILE:LINE: CategoryWarning: message`` (the message may run on).
WARNING = re.compile(r"^\S+:\d+: \w*Warning: ")
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex")
# The home folder as a whole path: not inside another one (``/srv/root``; ``file:///root`` is
# it), nor the start of a longer name (``/rootfs``); after a colour code or any other mark.
_AT_EDGES = r"(\x1b\[[\d;]*m|(?<![\w.~/-])|(?<=//)){}(?![\w.~-])"


@dataclass(frozen=True)
class OutputFilter:
    """What a framework's outputs lose: ``noise`` (regexes of its log lines), unless a line
    matches one of ``keep``; ``home``: the home folder, shown as ``~``."""

    noise: tuple[str, ...] = ()
    keep: tuple[str, ...] = ()
    home: str = ""

    @classmethod
    def of(cls, noise: tuple[str, ...], keep: tuple[str, ...]) -> OutputFilter:
        home = os.path.expanduser("~").rstrip("/")
        return cls(noise, keep, home if home not in ("", "~") else "")

    def _noisy(self, record: str) -> bool:
        head = record.split("\n", 1)[0]
        return any(re.search(p, head) for p in self.noise) and not any(
            re.search(k, line) for k in self.keep for line in record.splitlines()
        )

    def quiet(self, text: str) -> str:
        """``text`` (a stream's) without the records its framework logs as noise."""
        if not self.noise:
            return text
        lines = text.splitlines(keepends=True)
        kept: list[str] = []
        i = 0
        while i < len(lines):
            end = i + 1
            if WARNING.match(lines[i]):  # its message runs on to the source line it quotes
                j = i + 1
                while j < len(lines) and not lines[j].startswith("  "):
                    j += 1
                end = j + 1 if j < len(lines) else i + 1
            record = "".join(lines[i:end])
            if self._noisy(record):
                while end < len(lines) and not lines[end].strip():
                    end += 1  # the blank lines a log record leaves
            else:
                kept.append(record)
            i = end
        return "".join(kept)

    def unplaced(self, text: str) -> str:
        """``text`` without this machine's paths."""
        text = SITE_PACKAGES.sub("", text)
        if self.home and self.home in text:
            text = re.sub(_AT_EDGES.format(re.escape(self.home)), r"\1~", text)
        return text

    def clean(self, nb: NotebookNode) -> NotebookNode:
        """``nb`` with its outputs cleaned in place; a stream left empty is dropped."""
        for cell in nb.cells:
            if cell.get("cell_type") != "code":
                continue
            kept = []
            for out in cell.get("outputs", []):
                if out.get("output_type") == "stream" and out.get("name") == "stderr":
                    out["text"] = self.quiet(_text(out.get("text", "")))
                    if not out["text"]:
                        continue
                _unplace_all(out, self)
                kept.append(out)
            cell["outputs"] = kept
        return nb


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _unplace_all(out: NotebookNode, found: OutputFilter) -> None:
    if "text" in out:
        out["text"] = found.unplaced(_text(out["text"]))
    if "traceback" in out:
        out["traceback"] = [found.unplaced(str(line)) for line in out["traceback"]]
    if "evalue" in out:
        out["evalue"] = found.unplaced(str(out["evalue"]))
    data = out.get("data", {})
    for mime in TEXT_MIMES:
        if mime in data:
            data[mime] = found.unplaced(_text(data[mime]))
