"""One ``config.ini`` key: how it is read, checked and documented (:class:`Key`), and the
helpers its values are read with."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar, Literal, Protocol

from polybook.config.schema.links import flat_links

Kind = Literal[
    "bool",
    "int",
    "float",
    "str",
    "choice",
    "words",
    "patterns",
    "path",
    "name",
    "url",
    "dist",
    "links",
    "variables",
]
Value = bool | int | float | str | tuple[str, ...]

TRUE = ("true", "yes", "on", "1")
FALSE = ("false", "no", "off", "0")
LIBRARY_SECTION = "library-<tab>"  # stands for [library-pytorch], [library-jax], …
FRAMEWORK_SECTION = "framework-<name>"  # a framework's declaration, [framework-paddle]
# A distribution's name as the packaging specifications accept it (PEP 508).
DIST_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
ENV_SECTION = "env-<tab>"  # where a framework runs when not in polybook's venv, [env-jax]
EDITION_SECTION = "edition-<name>"  # another edition of the book, [edition-zh]


class BadValue(ValueError):
    """A value a key does not accept; the text says what it accepts."""


@dataclass(frozen=True)
class Key:
    """One key of ``config.ini``: how it is read, checked and documented."""

    section: str
    name: str  # also the field of its section's dataclass that holds its value
    kind: Kind
    default: Value
    help: str
    d2lbook: bool = True  # False: a key polybook adds
    minimum: int = 0  # int: the least accepted value
    choices: tuple[str, ...] = ()  # choice, words: the accepted values
    required: bool = False  # words: at least one
    drop_prefix: str = ""  # words: removed from each word (``polybook.cite`` → ``cite``)
    pairs: bool = False  # words: one value for every framework, or `framework value` pairs
    names: bool = False  # words: each a Python name
    suffix: str = ""  # path: the name must end so
    absolute: bool = False  # path: stored resolved against the book root
    outside: bool = False  # path: the host's, not the book's (it may lie outside the book)
    files: bool = False  # words: each names a file or folder of the book (`tab:` prefix)
    lower: bool = False  # words: each stored in lower case
    default_text: str = ""  # the default as the reference shows it, when not the value
    # The stages that read it, by their outputs' names (``lib``: the pages and the library,
    # which every output reads; ``eval``: execution, which every output that executes
    # reads), or the commands (``serve``); () for every output.
    read_by: tuple[str, ...] = ()
    auto: bool = False  # int: `auto` is accepted too, read as 0 (polybook decides)

    def parse(self, raw: str) -> Value:
        """The value of ``raw``; an empty value is the default. Raises :class:`BadValue`."""
        text = raw.strip()
        if not text:
            return self.default
        if "\x00" in text:  # no name, word or number holds one; a path with one is none
            raise BadValue(f"{text!r} holds a NUL character")
        if self.kind == "bool":
            return _boolean(text)
        if self.kind == "int" and self.auto and text.lower() == "auto":
            return 0
        if self.kind == "int":
            return self._integer(text)
        if self.kind == "float":
            return _number(text)
        if self.kind == "patterns":
            return _patterns(text)
        if self.kind == "choice":
            return self._choose(text.lower())
        if self.kind == "words":
            return self._words(text)
        if self.kind == "variables":
            return _variables(text)
        if self.kind == "url":
            return _url(text)
        if self.kind == "links":
            return flat_links(raw)
        if self.kind == "dist" and not DIST_NAME.match(text):
            raise BadValue(f"{text!r} is not a distribution name (letters, digits, - _ .)")
        if self.kind == "name" and not text.isidentifier():
            raise BadValue(f"{text!r} is not a Python module name (letters, digits, _)")
        if self.kind == "path" and self.suffix and not text.endswith(self.suffix):
            raise BadValue(f"{text!r} is not a {self.suffix} file")
        if self.suffix == ".py" and not PurePosixPath(text).stem.isidentifier():
            raise BadValue(f"{text!r} cannot be imported: its name is not a Python module name")
        return text

    def _integer(self, text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise BadValue(f"{text!r} is not an integer") from None
        if number < self.minimum:
            raise BadValue(f"{number} is too small: the least accepted is {self.minimum}")
        return number

    def _choose(self, word: str) -> str:
        if word not in self.choices:
            accepted = ", ".join(self.choices)
            raise BadValue(f"{word!r} is not one of {accepted}{did_you_mean(word, self.choices)}")
        return word

    def _words(self, text: str) -> tuple[str, ...]:
        words = tuple(w.removeprefix(self.drop_prefix) for w in split_words(text))
        if self.lower:
            words = tuple(w.lower() for w in words)
        if self.choices:
            words = tuple(self._choose(w.lower()) for w in words)
        bad = [w for w in words if self.names and not w.isidentifier()]
        if bad:
            raise BadValue(f"{bad[0]!r} is not a name (letters, digits, _)")
        twice = [w for i, w in enumerate(words) if w in words[:i]]
        if twice and (self.choices or self.names):
            raise BadValue(f"{twice[0]!r} is named twice")
        if self.required and not words:
            raise BadValue(f"name at least one of {', '.join(self.choices) or 'them'}")
        if self.pairs and len(words) > 1:
            _check_pairs(words)
        return words

    def resolve(self, value: Value, root: Path) -> Value:
        """``value`` (parsed) as stored: an ``absolute`` path resolved against ``root``."""
        if self.absolute and isinstance(value, str) and value:
            return str((root / Path(value).expanduser()).resolve())
        return value

    def read_for(self, output: str, executes: bool) -> bool:
        """Whether the build of the output named ``output`` (``executes``: it runs the
        execute stage) reads this key: its value is part of that output's fingerprint."""
        if not self.read_by or "lib" in self.read_by or output in self.read_by:
            return True
        return executes and "eval" in self.read_by

    @property
    def read_by_text(self) -> str:
        """Who reads it, as the reference shows it."""
        if not self.read_by or "lib" in self.read_by:
            return "every output"
        named = [f"`{name}`" for name in self.read_by if name != "eval"]
        if "eval" in self.read_by:
            named.insert(0, "every output that executes")
        return ", ".join(named)

    @property
    def names_files(self) -> bool:
        """Whether the key's values name files of the book, which must lie inside it."""
        return (self.kind == "path" and not self.outside) or (self.kind == "words" and self.files)

    def named_files(self, value: Value) -> tuple[str, ...]:
        """The files and folders ``value`` (this key's, parsed) names."""
        if not self.names_files or not value:
            return ()
        if isinstance(value, tuple):
            return tuple(word.rpartition(":")[2] for word in value)
        return (str(value),)

    @property
    def type_text(self) -> str:
        """The accepted values, for the reference."""
        if self.kind == "bool":
            return "boolean"
        if self.kind == "int":
            return ("`auto` or " if self.auto else "") + f"integer ≥ {self.minimum}"
        if self.kind == "float":
            return "number ≥ 0"
        if self.kind == "patterns":
            return "regular expressions, one a line"
        if self.kind == "links":
            return "`name, URL, icon` links, one a line"
        listed = ", ".join(f"`{c}`" for c in self.choices)
        if self.kind == "choice":
            return f"one of {listed}"
        if self.kind == "words" and self.pairs:
            return "a word, or `framework word` pairs"
        if self.kind == "words":
            return f"words from {listed}" if self.choices else "names" if self.names else "words"
        if self.kind == "variables":
            return "`NAME=VALUE` words"
        if self.kind == "name":
            return "module name"
        if self.kind == "url":
            return "`http(s)://` address"
        if self.kind == "dist":
            return "distribution name"
        if self.kind == "path":
            return f"path to a `{self.suffix}` file" if self.suffix else "path"
        return "text"

    @property
    def shown_default(self) -> str:
        """The default, for the reference."""
        if self.default_text:
            return self.default_text
        if isinstance(self.default, bool):
            return f"`{str(self.default).lower()}`"
        if isinstance(self.default, tuple):
            return f"`{' '.join(self.default)}`" if self.default else "none"
        return f"`{self.default}`" if self.default != "" else "empty"


class Section(Protocol):
    """A dataclass holding one ``config.ini`` section's values, a field per key."""

    SECTION: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


_DECLARED = "polybook.key"  # the metadata entry of a field that declares a key


def key(kind: Kind, default: Value, help: str, **options: Any) -> Any:
    """A section dataclass's field that declares a key, named after the field, of the section
    its class names (``SECTION``); ``options`` are :class:`Key`'s."""
    declared = Key("", "", kind, default, help, **options)
    return field(default=default, metadata={_DECLARED: declared})


def declared_keys(section: type[Section]) -> tuple[Key, ...]:
    """The keys ``section``'s fields declare, in field order."""
    return tuple(
        replace(f.metadata[_DECLARED], section=section.SECTION, name=f.name)
        for f in fields(section)
        if _DECLARED in f.metadata
    )


def _url(text: str) -> str:
    """An absolute ``http(s)`` address, ending with ``/``."""
    scheme, _, rest = text.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.split("/")[0]:
        raise BadValue(f"{text!r} is not an http:// or https:// address")
    return text if text.endswith("/") else text + "/"


def _boolean(text: str) -> bool:
    word = text.lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    raise BadValue(f"{text!r} is not a boolean: use true/false, yes/no, on/off or 1/0")


def _number(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise BadValue(f"{text!r} is not a number") from None
    if not number >= 0:  # also rejects nan
        raise BadValue(f"{text!r} is not a number ≥ 0")
    return number


def _patterns(text: str) -> tuple[str, ...]:
    found = tuple(line.strip() for line in text.splitlines() if line.strip())
    for pattern in found:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise BadValue(f"{pattern!r} is not a regular expression ({exc})") from None
    return found


def _variables(text: str) -> tuple[str, ...]:
    found = split_words(text)
    for word in found:
        if not word.partition("=")[0].isidentifier() or "=" not in word:
            raise BadValue(f"{word!r} is not NAME=VALUE")
    return found


def _check_pairs(words: tuple[str, ...]) -> None:
    names = words[::2]
    if len(words) % 2 or not all(n.isidentifier() for n in names):
        raise BadValue("give one value for every framework, or `framework value` pairs")


def for_framework(words: tuple[str, ...], framework: str, default: str = "") -> str:
    """The value a ``pairs`` key gives ``framework``: its pair's, or the one value."""
    if len(words) == 1:
        return words[0]
    return dict(zip(words[::2], words[1::2], strict=True)).get(framework, default)


def split_words(text: str) -> tuple[str, ...]:
    """A list value: words separated by commas, spaces or lines."""
    return tuple(text.replace(",", " ").split())


def nearest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The candidate closest to ``word`` (a likely typo of it), if any is close."""
    close = difflib.get_close_matches(word.lower(), list(candidates), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the candidate closest to ``word``, else ``""``."""
    close = nearest(word, candidates)
    return f"; did you mean {close!r}?" if close else ""
