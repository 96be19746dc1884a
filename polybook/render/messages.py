"""The message catalog: every string polybook adds to a page (the notebook links, the
compare view's buttons and announcements, the GPU notes), in the book's language.

Each language is one JSON file in ``catalog/`` (``en.json``, ``zh.json``…), keys to texts with
``{name}`` fields for Python and ``{0}`` fields for the scripts; a language (``zh_CN``,
``pt-BR``) falls back to its base (``zh``, ``pt``), and a key a catalog lacks to English.
Adding a language is adding a file. The scripts read the catalog from ``window.pbMessages``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

CATALOG = Path(__file__).resolve().parent / "catalog"
DEFAULT = "en"

# The notes execution writes into notebooks, in English (a cache entry serves every
# edition): read back here to be written in the page's language.
_BADGE = re.compile(r"needs (?P<needed>\d+) GPUs?; built on a host with (?P<host>\d+)")
_PROVENANCE = re.compile(r"output of a build on a host with (?P<host>\d+) GPUs? \((?P<made>.*)\)")


def languages() -> list[str]:
    """The languages the catalog holds."""
    return sorted(p.stem for p in CATALOG.glob("*.json"))


def base_language(lang: str) -> str:
    """``zh_CN`` and ``zh-cn`` as ``zh``: the catalog's name for a language."""
    return re.split(r"[-_]", lang.strip())[0].lower() or DEFAULT


@cache
def _read(lang: str) -> dict[str, str]:
    path = CATALOG / f"{lang}.json"
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in data.items()}


def catalog(lang: str) -> dict[str, str]:
    """Every message in ``lang``, English where its catalog has none."""
    return _read(DEFAULT) | _read(base_language(lang))


def message(lang: str, key: str, **fields: object) -> str:
    """The message ``key`` in ``lang``, its ``{name}`` fields filled in."""
    return catalog(lang)[key].format(**fields)


def gpus(lang: str, count: int) -> str:
    return message(lang, "gpu" if count == 1 else "gpus")


def localized_note(lang: str, text: str) -> str:
    """A GPU note execution wrote (in English) in ``lang``; any other text as it is."""
    if found := _BADGE.fullmatch(text):
        needed, host = int(found["needed"]), int(found["host"])
        return message(lang, "gpu_badge", needed=needed, gpus=gpus(lang, needed), host=host)
    if found := _PROVENANCE.fullmatch(text):
        host = int(found["host"])
        made = found["made"]
        return message(lang, "provenance", host=host, gpus=gpus(lang, host), made=made)
    return text


def language_name(lang: str) -> str:
    """The language's own name for itself (中文, English, português), as Babel (Sphinx's
    own dependency) knows it; the code where Babel does not."""
    from babel import Locale, UnknownLocaleError

    try:
        return str(Locale.parse(lang.replace("-", "_")).get_display_name() or lang)
    except (ValueError, UnknownLocaleError):
        return lang


def script(lang: str) -> str:
    """The catalog as the scripts read it: ``window.pbMessages = {...};``."""
    data = json.dumps(catalog(lang), ensure_ascii=False, sort_keys=True)
    return "window.pbMessages = " + data.replace("</", "<\\/") + ";"
