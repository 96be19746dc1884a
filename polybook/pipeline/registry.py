"""Every output ``polybook build`` knows, in one list: adding an output is a package that
exports an :class:`~polybook.output.Output` and a line here (or, from outside the tree, an
entry point ``polybook.outputs`` naming one: :mod:`polybook.plugins`). The build graph, the
check that nothing changed, the command line's choices and README's table of commands take
this tuple (or another: a test's)."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint

from polybook import plugins
from polybook.epub.output import OUTPUT as EPUB
from polybook.notebooks.output import OUTPUT as NOTEBOOKS
from polybook.output import Output
from polybook.pdf.output import OUTPUT as PDF
from polybook.pipeline.stages import DIST, EVAL, LIB
from polybook.site.output import OUTPUT as SITE
from polybook.slides.output import OUTPUT as SLIDES

OUTPUTS: tuple[Output, ...] = (LIB, DIST, EVAL, NOTEBOOKS, SITE, PDF, EPUB, SLIDES)


def load_output(plugin: plugins.Plugin, point: EntryPoint) -> Output:
    """The output a ``polybook.outputs`` entry point names, checked."""
    taken = frozenset(o.name for o in OUTPUTS)
    return plugins.load_one(plugin, point, Output, taken, lambda output: output.name)


@cache
def _plugins() -> tuple[Output, ...]:
    return tuple(plugins.load(plugins.OUTPUTS_GROUP, load_output).values())


def registered() -> tuple[Output, ...]:
    """polybook's outputs, then those of the plugins installed."""
    return OUTPUTS + _plugins()
