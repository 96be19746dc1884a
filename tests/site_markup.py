"""The markup of a page's tab sets that the site's scripts and styles read, as a set of
paths (``div.pb-tabset[data-pb-kind=code][id] > div.pb-tabbar[…] > button.pb-tab[…]``):
each element's tag, classes and attribute names (with the values of the attributes that say
what an element is), from a tab set down to its code blocks' and outputs' ``pre``. Text,
ids' values and highlighted code are left out, so that hand-written test pages can be held
against the pages a real build writes (``test_site_fixture.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bs4 import BeautifulSoup, Tag

# Attributes whose value says what an element is; of the others only the name counts.
VALUED = ("role", "type", "data-pb-kind")
# Elements of a panel's content below which the scripts and styles look: the rest of the
# prose (paragraphs, lists) counts by its tag alone.
WALKED = ("pb-", "highlight")


def describe(element: Tag) -> str:
    """``div.pb-tab.is-active[aria-selected][role=tab]``: tag, sorted classes, sorted
    attributes (names, with the values of :data:`VALUED`)."""
    classes = "".join(f".{c}" for c in sorted(element.get_attribute_list("class")) if c)
    names = sorted(a for a in element.attrs if a != "class")
    attrs = "".join(f"[{a}={element[a]}]" if a in VALUED else f"[{a}]" for a in names)
    return f"{element.name}{classes}{attrs}"


def _walked(element: Tag) -> bool:
    return any(c.startswith(WALKED) for c in element.get_attribute_list("class") if c)


def _content(element: Tag, path: str, found: set[str]) -> None:
    """The paths of a panel's content, down to each ``pre`` (highlighted code left out)."""
    for child in element.find_all(True, recursive=False):
        shown = describe(child) if _walked(child) or child.name == "pre" else child.name
        here = f"{path} > {shown}"
        found.add(here)
        if child.name != "pre" and _walked(child):
            _content(child, here, found)


@dataclass
class TabSetMarkup:
    """The paths of tab sets: their frame (the set, its bar, its tabs, its panels, and
    whether it lies in an ``article``) and their panels' content."""

    frame: set[str] = field(default_factory=set)
    content: set[str] = field(default_factory=set)

    def add(self, page: str) -> None:
        """The tabbed tab sets of the HTML ``page``."""
        soup = BeautifulSoup(page, "html.parser")
        for tab_set in soup.select("div.pb-tabset:not(.pb-untabbed)"):
            top = describe(tab_set)
            where = "article … " if tab_set.find_parent("article") else "(no article) "
            self.frame |= {top, where + top}
            bar, *panels = tab_set.find_all(True, recursive=False)
            self.frame.add(f"{top} > {describe(bar)}")
            for tab in bar.find_all(True, recursive=False):
                self.frame.add(f"{top} > {describe(bar)} > {describe(tab)}")
            for panel in panels:
                self.frame.add(f"{top} > {describe(panel)}")
                _content(panel, f"{top} > {describe(panel)}", self.content)


def head_markup(page: str) -> tuple[set[str], list[str]]:
    """The ``pb-`` meta names of the page's head, and its polybook scripts in order."""
    soup = BeautifulSoup(page, "html.parser")
    metas = {str(m["name"]) for m in soup.select("meta[name^=pb-]")}
    scripts = [str(s["src"]) for s in soup.select("script[src]")]
    names = [s.rpartition("/")[2].partition("?")[0] for s in scripts]
    return metas, [n for n in names if n.startswith("polybook-")]
