"""``polybook linkcheck``: the site built (its internal links are checked by every build),
then its external links asked for, each broken one located at the line that writes it."""

from __future__ import annotations

import logging

from polybook.config import BookConfig
from polybook.diagnostics import Diagnostic, Reporter
from polybook.site.linkcheck import check_urls
from polybook.site.links import external_links, locate

logger = logging.getLogger("polybook")


def check_external(config: BookConfig, reporter: Reporter, timeout: float) -> None:
    """Ask for every external link of the built site; a broken one is an error, one that
    could not be reached a warning. Without a network, they are skipped with a note."""
    layout = config.layout
    pages = external_links(layout.html, layout.site_links)
    outcomes, unresolved = check_urls(sorted(pages), timeout)
    skipped = [o for o in outcomes if o.status == "skipped"]
    if skipped:
        logger.warning(
            "polybook linkcheck: no network here (none of the %d hosts' names resolves):"
            " %d external links not checked",
            unresolved,
            len(skipped),
        )
    for outcome in outcomes:
        if outcome.status in ("ok", "skipped"):
            if outcome.status == "ok":
                logger.debug("ok %s", outcome.url)
            continue
        page = pages[outcome.url][0]
        fallback = (layout.html / page).relative_to(config.root).as_posix()
        where = locate(
            config.root, layout.site_src, page.removesuffix(".html"), outcome.url, fallback
        )
        message = f"{outcome.url}: {outcome.detail}"
        if outcome.status == "broken":
            reporter.error(Diagnostic(where, f"broken link {message}", "linkcheck.broken", "error"))
        elif outcome.status == "unreachable":
            reporter.warn(where, f"unreachable link {message}", "linkcheck.unreachable")
        else:
            logger.info("%s: %s (not checked)", where, message)
    checked = len(outcomes) - len(skipped)
    logger.info("checked %d external links, %d skipped", checked, len(skipped))
