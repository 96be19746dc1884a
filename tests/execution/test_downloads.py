"""A page that downloads, on a host without the network: one line naming the URL, not a
traceback; and every framework's notebooks download into the book's one folder,
``[build] data`` (default ``_build/data``), which a page reaches as ``../data``."""

from __future__ import annotations

from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.execution.kernels.download_errors import failed_download

from ..books import chapter_book, code

URL = "http://127.0.0.1:9/fra-eng.zip"  # nothing listens: refused, as offline
SAVES = code(
    "import os",
    "os.makedirs('../data', exist_ok=True)",
    "with open('../data/shared.txt', 'w') as f:",
    "    f.write('downloaded once')",
)
DOWNLOADS = code(
    "import urllib.request",
    f"url = {URL!r}",
    "print(f'Downloading ../data/fra-eng.zip from {url}...')",
    "urllib.request.urlretrieve(url, '../data/fra-eng.zip')",
)


@pytest.mark.slow
def test_a_page_that_cannot_download_says_so_in_one_line_and_data_is_shared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = chapter_book(tmp_path / "book", {"saves": SAVES, "downloads": DOWNLOADS})
    assert main(["--root", str(root), "build", "eval"]) != 0  # not quiet: what it logs too
    err = capsys.readouterr().err
    said = {line.strip() for line in err.splitlines() if "chap/downloads.md:" in line}
    assert len(said) == 1 and f"downloading {URL} failed" in said.pop(), err  # as it happens,
    # and in the summary: the same line
    assert "Traceback" not in err and "urlopen error" not in err
    assert (root / "_build/data/shared.txt").read_text() == "downloaded once"
    assert (root / "_build/eval/pytorch/data").resolve() == (root / "_build/data").resolve()


def test_the_url_of_a_failed_download_is_named() -> None:
    pool = (
        "HTTPConnectionPool(host='d2l-data.s3-accelerate.amazonaws.com', port=80): Max retries"
        " exceeded with url: /fra-eng.zip (Caused by NameResolutionError(...))"
    )
    assert (
        failed_download("ConnectionError", pool, "", "")
        == "http://d2l-data.s3-accelerate.amazonaws.com/fra-eng.zip"
    )
    tried = "Error downloading t.gz:\nTried http://mnist.example/t.gz, got:\n<urlopen error>"
    assert failed_download("RuntimeError", tried, "", "") == "http://mnist.example/t.gz"
    mirror = "Error downloading t.gz:\nTried http://mnist.example/, got:\n<urlopen error>"
    assert failed_download("RuntimeError", mirror, "", "") == "http://mnist.example/t.gz"
    printed = 'Downloading: "https://models.example/vgg.pth" to /tmp/vgg.pth\n'
    assert failed_download("URLError", "<urlopen error [Errno -2]>", "", printed) == (
        "https://models.example/vgg.pth"
    )
    assert failed_download("ValueError", "no network here", "", "") is None
