"""d2lbook's keys that polybook reads and does not implement, each with why: a book that sets
one gets a warning at its line, and the configuration reference lists them all from here."""

from __future__ import annotations

_PUBLISHING = "publishing is the CI workflow's (`polybook new --ci github`, docs/ci.md)"
_NO_NETWORK = "a build downloads nothing"
_INSTALL = (
    "the notebooks' first cell installs what the page needs: the library (`[library]"
    " install`) and the framework at its pinned version"
)

WHY_IGNORED: dict[tuple[str, str], str] = {
    ("build", "index"): "the front page is the book's `index.md`",
    ("build", "rsts"): "polybook reads Markdown pages only",
    ("build", "non-notebooks"): "every page is a `notebooks` page; one without code runs nothing",
    ("build", "dependencies"): "each output is rebuilt from what it reads, found by content",
    ("build", "source_dir"): "the book is the folder of `config.ini`",
    ("build", "output_dir"): "outputs go to the book's `_build/`",
    ("build", "warning_is_error"): "polybook's key is `strict`",
    ("build", "sphinx_configs"): "the site's Sphinx settings are polybook's; a book adds"
    " extensions with `sphinx_extensions`",
    ("build", "origin_repo"): "a translation names its source with `[edition-<name>] source`",
    ("build", "max_line_length"): "polybook does not rewrap code",
    ("build", "rename"): "pages keep their file names",
    ("library", "root_dir"): "the library is written from `#@save` cells to each"
    " `[library-<tab>] lib_file`",
    ("library", "release"): "the release is `[project] release`",
    ("library", "save_filename"): "each framework's library is `[library-<tab>] lib_file`",
    ("library", "save_mark"): "the mark is `#@save`",
    ("library", "save_patterns"): "each framework's library is `[library-<tab>] lib_file`",
    ("library", "version"): "the release is `[project] release`",
    ("html", "include_css"): "the site links every `.css` and `.js` file in the book's"
    " `static/` folder",
    ("html", "include_js"): "the site links every `.css` and `.js` file in the book's"
    " `static/` folder",
    ("pdf", "post_latex"): "the PDFs come from polybook's own LaTeX: no script edits it",
    ("pdf", "latex_url"): f"{_NO_NETWORK}: the PDFs' style is polybook's",
    ("pdf", "style"): "the PDFs have one layout",
    ("deploy", "google_analytics_tracking_id"): "the site tracks no reader and loads"
    " nothing from the network",
    ("deploy", "github_repo"): _PUBLISHING,
    ("deploy", "s3_bucket"): _PUBLISHING,
    ("deploy", "other_file_s3urls"): _PUBLISHING,
    ("colab", "exclusions"): "every page's notebook is published",
    ("colab", "libs"): _INSTALL,
    ("colab", "libs_header"): _INSTALL,
    ("colab", "gpu_pattern"): "polybook infers GPU needs from the code, as the build does",
    ("colab", "replace_svg_url"): "a notebook's images are linked on the published site"
    " (`[html] base_url`) or attached to their cells",
    ("sagemaker", "libs"): _INSTALL,
    ("sagemaker", "libs_header"): _INSTALL,
    ("translation", "origin_repo"): "translations are editions (`[edition-<name>]`), not"
    " machine translated",
    ("translation", "origin_lang"): "an edition's language is its `[project] lang`",
    ("translation", "translator"): "polybook translates nothing",
    ("translation", "terminology"): "polybook translates nothing",
}
