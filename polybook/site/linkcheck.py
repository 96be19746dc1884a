"""The site's external links, checked over the network where there is one.

Each ``http``/``https`` address is asked for once (``HEAD``, then ``GET`` where a server
refuses ``HEAD``), several at a time. Whether there is a network is read from the names of
the hosts: where none of them resolves (and no proxy is configured), nothing is asked and
the links are skipped with a note; where some resolve, a host that does not is a broken
link. Addresses of hosts given by IP (a local server) are always asked for.
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

TIMEOUT = 15.0  # seconds per request
WORKERS = 8
AGENT = "polybook-linkcheck (+https://pypi.org/project/polybook/)"
# Answers that say the page exists but is not shown to a program: not broken.
GUARDED = {401: "asks for a login", 403: "refuses programs", 429: "asks to slow down"}

Status = Literal["ok", "guarded", "broken", "unreachable", "skipped"]


@dataclass(frozen=True)
class Outcome:
    """What asking for one address gave."""

    url: str
    status: Status
    detail: str = ""


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost"
    return True


def _resolves(host: str) -> bool:
    try:
        socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return True


def _proxied() -> bool:
    proxies = urllib.request.getproxies()
    return bool(proxies.get("http") or proxies.get("https"))


def resolving_hosts(hosts: Iterable[str]) -> dict[str, bool]:
    """Whether each host's name resolves (hosts given by address, and every host where a
    proxy resolves names, count as resolving)."""
    named = sorted({h for h in hosts if not _is_address(h)})
    if _proxied() or not named:
        return {h: True for h in hosts}
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        found = dict(zip(named, pool.map(_resolves, named), strict=True))
    return {h: found.get(h, True) for h in hosts}


def _opener(host: str) -> urllib.request.OpenerDirector:
    """A loopback host is asked directly, whatever proxy the environment names."""
    if _is_address(host) and (host == "localhost" or ipaddress.ip_address(host).is_loopback):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def ask(url: str, timeout: float = TIMEOUT) -> Outcome:
    """Ask for ``url``: HEAD, then GET where the server does not answer HEAD."""
    opener = _opener(urlsplit(url).hostname or "")
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers={"User-Agent": AGENT})
        try:
            with opener.open(request, timeout=timeout):
                return Outcome(url, "ok")
        except urllib.error.HTTPError as err:
            if method == "HEAD" and err.code in (403, 404, 405, 501):
                continue  # some servers answer HEAD wrongly: GET says
            if err.code in GUARDED:
                return Outcome(url, "guarded", f"HTTP {err.code}: it {GUARDED[err.code]}")
            return Outcome(url, "broken", f"HTTP {err.code} {err.reason}".strip())
        except (urllib.error.URLError, OSError, ValueError) as err:
            reason = getattr(err, "reason", err)
            return Outcome(url, "unreachable", str(reason))
    return Outcome(url, "broken", "no answer")  # not reached: GET returns above


def check_urls(urls: Sequence[str], timeout: float = TIMEOUT) -> tuple[list[Outcome], int]:
    """Each of ``urls`` asked for, or skipped when the network is missing; and how many
    hosts were found not to resolve when every named one failed (0 otherwise)."""
    hosts = {url: urlsplit(url).hostname or "" for url in urls}
    resolves = resolving_hosts(hosts.values())
    named = {h for h in hosts.values() if not _is_address(h)}
    offline = bool(named) and not any(resolves[h] for h in named)
    outcomes: dict[str, Outcome] = {}
    asked = []
    for url, host in hosts.items():
        if offline and host in named:
            outcomes[url] = Outcome(url, "skipped", "no network")
        elif not resolves[host]:
            outcomes[url] = Outcome(url, "broken", f"the host {host} is not found")
        else:
            asked.append(url)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        for outcome in pool.map(lambda url: ask(url, timeout), asked):
            outcomes[outcome.url] = outcome
    return [outcomes[url] for url in urls], len(named) if offline else 0
