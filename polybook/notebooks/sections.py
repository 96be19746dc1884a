"""What the students' notebooks read of the configuration, as one record built by the
output (:func:`polybook.notebooks.output.notebook_sections`)."""

from __future__ import annotations

from dataclasses import dataclass

from polybook.notebooks.library_source import InstallSettings


@dataclass(frozen=True)
class NotebookSections:
    """What the students' notebooks read of the configuration: where they install the
    library from and ``[build] resources`` (the files beside them); the references they
    cite are the book's (``Book.bibliography``)."""

    install: InstallSettings
    resources: tuple[str, ...]
