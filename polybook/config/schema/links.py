"""``[html] header_links``: the links of the site's header, as d2lbook writes them.

A link is three comma-separated items, ``name, URL, icon``, the icon a Font Awesome class
(``fas fa-file-pdf``, ``fab fa-github``) or nothing. d2lbook reads one link a line, a trailing
comma allowed (``PDF, https://x.org/b.pdf, fas fa-file-pdf,``); several links on one line are
read too. A line that is not whole links, a link without a name or URL, and one holding a
``###_NAME_###`` placeholder (which d2l's build scripts replace in ``config.ini`` before
d2lbook runs) are left out and reported, by the index of their line in the value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLACEHOLDER = re.compile(r"###_\w+?_###")


@dataclass(frozen=True)
class HeaderLink:
    """One link of the header: its text, its address and its Font Awesome icon class."""

    name: str
    url: str
    icon: str


@dataclass(frozen=True)
class LinkProblem:
    """A part of the value left out: ``line`` is its line's index in the value (0: the key's
    own line)."""

    line: int
    message: str


def read_header_links(text: str) -> tuple[tuple[HeaderLink, ...], tuple[LinkProblem, ...]]:
    """The links of the value ``text`` (as configparser gives it: its lines unindented), and
    what was left out."""
    links: list[HeaderLink] = []
    problems: list[LinkProblem] = []
    for index, line in enumerate(text.split("\n")):
        items = [item.strip() for item in line.split(",")]
        if items[-1] == "":
            items.pop()  # the comma that ends a line
        if not any(items):
            continue
        if len(items) % 3:
            count = f"{len(items)} item" + ("s" if len(items) > 1 else "")
            message = (
                f"{count} in {line.strip()!r}: a link is `name, URL, icon`"
                " (the icon may be empty), one link a line"
            )
            problems.append(LinkProblem(index, message))
            continue
        for start in range(0, len(items), 3):
            link = HeaderLink(*items[start : start + 3])
            problem = _link_problem(link)
            if problem:
                problems.append(LinkProblem(index, problem))
            else:
                links.append(link)
    return tuple(links), tuple(problems)


def _link_problem(link: HeaderLink) -> str:
    placeholder = PLACEHOLDER.search(f"{link.name} {link.url}")
    if placeholder:
        return (
            f"{placeholder.group(0)} is a placeholder that a script replaces before d2lbook"
            f" runs: the link {link.name!r} is left out"
        )
    if not link.name:
        return f"the link to {link.url!r} has no name: it is left out"
    if not link.url:
        return f"the link {link.name!r} has no URL: it is left out"
    return ""


def flat_links(text: str) -> tuple[str, ...]:
    """The links of ``text`` as the key's value holds them: name, URL and icon of each."""
    links, _ = read_header_links(text)
    return tuple(item for link in links for item in (link.name, link.url, link.icon))


def header_links(value: tuple[str, ...]) -> tuple[HeaderLink, ...]:
    """The links of the key's value (see :func:`flat_links`)."""
    return tuple(HeaderLink(*value[k : k + 3]) for k in range(0, len(value) - 2, 3))
