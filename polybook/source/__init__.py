"""The source stage: Markdown pages parsed with their line numbers, the book ordered by its
toc, each page split into one notebook per framework. Entry point: :mod:`polybook.source.stage`."""
