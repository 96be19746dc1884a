"""The epub: one per framework, through Sphinx's epub builder, for readers offline.
Entry point: :mod:`polybook.epub.stage`."""
