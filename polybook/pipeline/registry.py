"""Every output ``polybook build`` knows, in one list: adding an output is a package that
exports an :class:`~polybook.output.Output` and a line here. The build graph, the check that
nothing changed and the command line's choices take this tuple (or another: a test's)."""

from __future__ import annotations

from polybook.epub.output import OUTPUT as EPUB
from polybook.notebooks.output import OUTPUT as NOTEBOOKS
from polybook.output import Output
from polybook.pdf.output import OUTPUT as PDF
from polybook.pipeline.stages import DIST, EVAL, LIB
from polybook.site.output import OUTPUT as SITE
from polybook.slides.output import OUTPUT as SLIDES

OUTPUTS: tuple[Output, ...] = (LIB, DIST, EVAL, NOTEBOOKS, SITE, PDF, EPUB, SLIDES)
