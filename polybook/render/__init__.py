"""The Sphinx core every output shares: pages as MyST with their cells' data, outputs made
inert, Sphinx's settings, extension, warnings and process. No output of its own: the site,
the PDF (and later ones) are adapters on it."""
