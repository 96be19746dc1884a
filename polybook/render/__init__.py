"""The render core every output shares: pages as MyST with their cells' data, outputs made
inert, Sphinx's sources. It imports neither Sphinx nor docutils: its adapter to them is
:mod:`polybook.render.sphinx` (settings, extension, warnings, process). No output of its
own: the site, the PDF (and later ones) are adapters on it."""
