"""A cell that fails because it cannot download (a host without the network): the build says
so in one line, naming the URL, instead of the error of whichever library tried."""

from __future__ import annotations

import re

from polybook.nb import strip_ansi

NETWORK_ERRORS = frozenset(
    {
        "ConnectionError",
        "ConnectTimeout",
        "ConnectionRefusedError",
        "gaierror",
        "MaxRetryError",
        "NewConnectionError",
        "URLError",
    }
)
NETWORK = re.compile(
    r"Max retries exceeded|Failed to establish a new connection|Name or service not known"
    r"|Temporary failure in name resolution|Network is unreachable|No route to host"
    r"|Connection refused|urlopen error|Error downloading"
)
POOL = re.compile(
    r"(HTTPS?)ConnectionPool\(host='([^']+)', port=(\d+)\): Max retries exceeded with url: (\S+)"
)
URL = re.compile(r"(?:https?|ftp)://[^\s'\"<>()\[\]\\]+")


def _pool_url(text: str) -> str:
    found = POOL.search(text)
    if not found:
        return ""
    scheme, host, port, path = found.groups()
    default = "443" if scheme == "HTTPS" else "80"
    place = host if port == default else f"{host}:{port}"
    return f"{scheme.lower()}://{place}{path}"


NAMED = re.compile(r"Error downloading (\S+?):?\s")  # torchvision's: the file, then its mirror


def _last_url(text: str) -> str:
    urls = URL.findall(text)
    url = urls[-1].rstrip(".,:;") if urls else ""
    named = NAMED.search(text)
    return url + named.group(1) if url.endswith("/") and named else url


def failed_download(ename: str, evalue: str, traceback: str, printed: str) -> str | None:
    """The URL a failed cell could not download (``printed``: what the cell wrote before it
    failed), "" where the URL is not known; None where the error is not the network's."""
    if ename not in NETWORK_ERRORS and not NETWORK.search(evalue):
        return None
    return (
        _pool_url(evalue)
        or _last_url(evalue)
        or _last_url(strip_ansi(printed))
        or _last_url(strip_ansi(traceback))
    )


def download_message(url: str, ename: str) -> str:
    """The one line a build says of a cell that could not download ``url``."""
    what = url or "a file"
    return (
        f"needs the network: downloading {what} failed ({ename}); on a host without the"
        " network, put the file in the book's download folder ([build] data) first"
    )
