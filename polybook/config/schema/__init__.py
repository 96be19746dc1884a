"""Every ``config.ini`` key polybook reads, declared once: as a field of its section's
dataclass (one module per group of sections), which holds its value too. :data:`KEYS` lists
them all, derived from those fields.

Parsing and validation (:meth:`Key.parse`), the values :class:`~polybook.config.BookConfig`'s
sections hold and the configuration reference are all derived from these declarations.
d2lbook keys that polybook does not implement are listed in :data:`D2LBOOK_IGNORED`: they are
read and reported as ignored.
"""

from __future__ import annotations

from polybook.config.schema.book import BuildSection, ProjectSection
from polybook.config.schema.drift import CompatSection, DriftSection
from polybook.config.schema.editions import Edition
from polybook.config.schema.ignored import WHY_IGNORED
from polybook.config.schema.key import (
    EDITION_SECTION,
    ENV_SECTION,
    FALSE,
    FRAMEWORK_SECTION,
    LIBRARY_SECTION,
    TRUE,
    BadValue,
    Key,
    Kind,
    Section,
    Value,
    declared_keys,
    did_you_mean,
    for_framework,
    nearest,
    split_words,
)
from polybook.config.schema.libraries import (
    FRAMEWORK_DEFAULTS,
    FRAMEWORK_KEYS,
    FRAMEWORK_NAME,
    EnvSettings,
    LibraryAliases,
    LibrarySection,
    LibraryTarget,
)
from polybook.config.schema.outputs import (
    ColabSection,
    HtmlSection,
    PdfSection,
    SagemakerSection,
    SlidesSection,
)

__all__ = [
    "D2LBOOK_IGNORED",
    "D2LBOOK_SECTIONS",
    "EDITION_SECTION",
    "ENV_SECTION",
    "FALSE",
    "FRAMEWORK_DEFAULTS",
    "FRAMEWORK_KEYS",
    "FRAMEWORK_NAME",
    "FRAMEWORK_SECTION",
    "KEYS",
    "LIBRARY_SECTION",
    "RENAMED",
    "SECTIONS",
    "TRUE",
    "WHY_IGNORED",
    "BadValue",
    "BuildSection",
    "ColabSection",
    "CompatSection",
    "DriftSection",
    "Edition",
    "EnvSettings",
    "HtmlSection",
    "Key",
    "Kind",
    "LibraryAliases",
    "LibrarySection",
    "LibraryTarget",
    "PdfSection",
    "ProjectSection",
    "SagemakerSection",
    "Section",
    "SlidesSection",
    "Value",
    "declared_keys",
    "did_you_mean",
    "for_framework",
    "keys_of",
    "nearest",
    "split_words",
]

# The sections that are one per book, in the order the reference lists them; each is a field of
# BookConfig named after the section.
SECTIONS: tuple[type[Section], ...] = (
    ProjectSection,
    BuildSection,
    LibrarySection,
    ColabSection,
    SagemakerSection,
    HtmlSection,
    PdfSection,
    SlidesSection,
    DriftSection,
    CompatSection,
)
# The sections of which a book has one per framework (or edition).
_PER_NAME: tuple[type[Section], ...] = (LibraryTarget, LibraryAliases, EnvSettings, Edition)
KEYS: tuple[Key, ...] = (
    *(k for section in SECTIONS for k in declared_keys(section)),
    *(k for section in _PER_NAME for k in declared_keys(section)),
    *FRAMEWORK_KEYS,
)

# Keys d2lbook defines in the sections polybook reads, that polybook does not implement.
D2LBOOK_IGNORED: dict[str, tuple[str, ...]] = {
    "project": (),
    "build": (
        "index",
        "rsts",
        "non-notebooks",
        "dependencies",
        "source_dir",
        "output_dir",
        "warning_is_error",
        "sphinx_configs",
        "origin_repo",
        "max_line_length",
        "rename",
    ),
    "library": (
        "root_dir",
        "release",
        "save_filename",
        "save_mark",
        "save_patterns",
        "version",
    ),
    LIBRARY_SECTION: (),
}
# d2lbook's sections of which polybook reads only the keys in KEYS: each other key set in them
# is reported as ignored.
D2LBOOK_SECTIONS = ("html", "pdf", "deploy", "colab", "sagemaker", "slides", "translation")
# Hints for ignored keys that polybook covers under another name (their reasons).
RENAMED = {
    k: WHY_IGNORED[k]
    for k in (("build", "warning_is_error"), ("colab", "gpu_pattern"), ("html", "include_css"))
}


def keys_of(section: str) -> tuple[Key, ...]:
    """The keys of ``section``; ``[library-<tab>]`` and ``[framework-<name>]`` sections share
    theirs."""
    if section.startswith("library-"):
        section = LIBRARY_SECTION
    elif section.startswith("framework-"):
        section = FRAMEWORK_SECTION
    elif section.startswith("env-"):
        section = ENV_SECTION
    elif section.startswith("edition-"):
        section = EDITION_SECTION
    return tuple(k for k in KEYS if k.section == section)
