"""Every output ``polybook build`` knows, in one list: adding an output is a package that
exports an :class:`~polybook.output.Output` and a line here (or, from outside the tree, an
entry point ``polybook.outputs`` naming one: :mod:`polybook.plugins`). The build graph, the
check that nothing changed, the command line's choices and README's table of commands take
this tuple (or another: a test's)."""

from __future__ import annotations

from functools import cache

from polybook import plugins
from polybook.epub.output import OUTPUT as EPUB
from polybook.notebooks.output import OUTPUT as NOTEBOOKS
from polybook.output import Output
from polybook.pdf.output import OUTPUT as PDF
from polybook.pipeline.stages import DIST, EVAL, LIB
from polybook.site.output import OUTPUT as SITE
from polybook.slides.output import OUTPUT as SLIDES

OUTPUTS: tuple[Output, ...] = (LIB, DIST, EVAL, NOTEBOOKS, SITE, PDF, EPUB, SLIDES)


@cache
def _plugins() -> tuple[Output, ...]:
    loaded = plugins.load(plugins.OUTPUTS_GROUP, Output, frozenset(o.name for o in OUTPUTS))
    for name, output in loaded.items():
        if output.name != name:
            point = next(p for p, _ in plugins.found(plugins.OUTPUTS_GROUP) if p.name == name)
            raise plugins.broken(point, f"names the output {output.name!r}, not {name!r}")
    return tuple(loaded.values())


def registered() -> tuple[Output, ...]:
    """polybook's outputs, then those of the plugins installed."""
    return OUTPUTS + _plugins()
