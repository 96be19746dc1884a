"""The configuration Sphinx saves equals the one it starts the next run with.

Sphinx compares the configuration of a new run, as the extensions have set it up, with the
one it saved at the end of the last run. Some packages change values later, once the
builder starts: sphinx-copybutton adds its static folder, MyST-Parser the MathJax options,
the HTML builder a priority to each CSS and JavaScript file, and furo registers its
``pygments_dark_style`` (an ``env`` value) only when the theme loads. Each run then starts
with "the configuration has changed" and, for a value of kind ``env``, rereads every page.
Here these values are set when the configuration is ready to what those packages leave,
and the packages' own changes find them already made (or are undone where they add twice).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

LATE = 900  # after Sphinx's own conversions (800) and the packages' handlers (500)
USER_FILE_PRIORITY = 800  # what the HTML builder gives the configured CSS and JS files


def _copybutton_static() -> str:
    """The folder sphinx-copybutton adds to ``html_static_path``, spelt as it spells it."""
    import sphinx_copybutton  # type: ignore[import-untyped]

    return str(Path(sphinx_copybutton.__file__).parent.joinpath("_static").absolute())


def _settle(app: Sphinx, config: Config) -> None:
    """At ``config-inited``: the values as they will be once the builder has started."""
    for files in (config.html_css_files, config.html_js_files):
        for _, attributes in files:
            attributes.setdefault("priority", USER_FILE_PRIORITY)
    if "sphinx_copybutton" in config.extensions:
        static = _copybutton_static()
        if static not in config.html_static_path:
            config.html_static_path = [*config.html_static_path, static]
    _settle_mathjax(config)


def _settle_mathjax(config: Config) -> None:
    """MyST-Parser's MathJax options (only math it marks is typeset), as it sets them."""
    if "myst_parser" not in config.extensions:
        return
    if "dollarmath" not in config.myst_enable_extensions or not config.myst_update_mathjax:
        return
    if config.mathjax4_config or config.mathjax3_config:
        return  # set by the book: MyST-Parser updates it, and warns where it must
    config.mathjax4_config = {"options": {"processHtmlClass": config.myst_mathjax_classes}}


def _once(app: Sphinx) -> None:
    """At ``builder-inited``, after the packages: a folder they added again appears once."""
    app.config.html_static_path = list(dict.fromkeys(app.config.html_static_path))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("pb_builder", "", "", str)  # the builder this run makes
    if app.config.pb_builder == "html" and app.config.html_theme == "furo":
        app.setup_extension("furo")  # its configuration values exist from the start
    app.connect("config-inited", _settle, priority=LATE)
    app.connect("builder-inited", _once, priority=LATE)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
