"""The side doors next to the routes :mod:`tests.config.test_confinement` closes: every key of the
configuration that names a file (found through the schema, so a key added later is held to
the same rule), the ``_freeze/`` folder's entries, directives and roles in any letter case.
Each is refused at its line by ``polybook check`` and by a build, before anything is read
or written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polybook.commands.cli import main
from polybook.config import KEYS
from polybook.config.schema import ENV_SECTION, FRAMEWORK_SECTION, LIBRARY_SECTION

from ..books import FENCE, code, pages_book

SECRET = "host-secret-9d41e7"
CONFIG = "[project]\nname = c\ntitle = C\n[build]\ntabs = pytorch\neval_notebook = false\n"
OUTSIDE = "[polybook.source.outside]"
SAVED = code("#@save", "def saved():", "    return 1")


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """``polybook check``: its exit status and its errors of files outside the book."""
    code = main(["--quiet", "--root", str(root), "check"])
    err = capsys.readouterr().err
    return code, sorted({line.strip() for line in err.splitlines() if OUTSIDE in line})


def test_a_library_file_outside_the_book_is_refused_and_nothing_is_written_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    stale = outside / ".evil.py.tmp1234"  # what a library's writer clears beside it
    stale.write_text("keep me")
    config = CONFIG + "[library-pytorch]\nlib_file = ../outside/evil.py\n"
    root = pages_book(tmp_path / "book", {"page": SAVED}, config)
    code, errors = check(root, capsys)
    assert code == 1
    assert len(errors) == 1 and errors[0].startswith(
        f"config.ini:8: [library-pytorch] lib_file: '{outside / 'evil.py'}' is outside the book"
    ), errors
    assert main(["--quiet", "--root", str(root), "build", "lib"]) == 1
    assert "config.ini:8: [library-pytorch] lib_file:" in capsys.readouterr().err
    assert sorted(p.name for p in outside.iterdir()) == [stale.name]


def test_a_requirement_file_outside_the_book_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("hunter2-not-a-pin\n")  # read, it would be quoted as unpinned
    config = CONFIG + "requirements = ../outside/secret.txt\n"
    root = pages_book(tmp_path / "book", {"page": SAVED}, config)
    assert main(["--quiet", "--root", str(root), "check"]) == 1
    err = capsys.readouterr().err
    assert "config.ini:7: [build] requirements:" in err and "outside the book" in err
    assert "hunter2" not in err


def _section(key_section: str) -> str:
    """A section of the book's config that holds a key of ``key_section``."""
    return {LIBRARY_SECTION: "library-pytorch", FRAMEWORK_SECTION: "framework-pytorch"}.get(
        key_section, "env-pytorch" if key_section == ENV_SECTION else key_section
    )


FILE_KEYS = [k for k in KEYS if k.names_files]


def test_the_keys_that_name_files_are_derived_from_the_schema() -> None:
    """Every path key names a file of the book, but those that name the host's own and
    another edition's book."""
    host = {(k.section, k.name) for k in KEYS if k.kind == "path" and not k.names_files}
    assert host == {("build", "envs_dir"), (ENV_SECTION, "python"), ("edition-<name>", "root")}
    named = {(k.section, k.name) for k in FILE_KEYS}
    assert named == {
        ("build", "resources"),
        ("build", "requirements"),
        (LIBRARY_SECTION, "lib_file"),
        ("project", "bibfile"),
        ("pdf", "bibfile"),  # d2lbook's name of it
        ("pdf", "latex_logo"),
        ("html", "favicon"),
        ("html", "html_logo"),
        ("library", "version_file"),
        (FRAMEWORK_SECTION, "cpu_requirements"),
        (FRAMEWORK_SECTION, "cuda_requirements"),
    }


@pytest.mark.parametrize("key", FILE_KEYS, ids=lambda k: f"{k.section}.{k.name}")
def test_every_key_that_names_a_file_outside_the_book_is_an_error_at_its_line(
    tmp_path: Path, key: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from polybook.config import Key

    assert isinstance(key, Key)
    name = f"x{key.suffix or '.txt'}"
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / name).write_text("six==1.16.0\n")  # a pinned requirement
    section = _section(key.section)
    header = "" if section == "build" else f"[{section}]\n"
    config = CONFIG + f"{header}{key.name} = ../outside/{name}\n"
    line = config.count("\n")
    if section == "project":  # in the section the config has already
        config = CONFIG.replace("[build]", f"{key.name} = ../outside/{name}\n[build]")
        line = 4
    root = pages_book(tmp_path / "book", {"page": "Words.\n"}, config)
    code, errors = check(root, capsys)
    assert code == 1
    assert [e.split(" is outside")[0] for e in errors] == [
        f"config.ini:{line}: [{section}] {key.name}: '{tmp_path / 'outside' / name}'"
    ]


def _frozen_entry(root: Path, names: list[str]) -> Path:
    """A ``_freeze/`` entry of ``page.md`` whose image outputs name ``names``."""
    outputs = [
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": {"file": name}}}
        for name in names
    ]
    entry = {
        "format": 1,
        "page": "page.md",
        "framework": "pytorch",
        "code": "k",
        "run": {"device_class": "cuda"},
        "cells": [{"code": "c", "line": 3, "execution_count": 1, "outputs": outputs}],
    }
    path = root / "_freeze" / "pytorch" / "page.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(entry, indent=1) + "\n")
    return path


def test_a_frozen_entry_naming_a_host_file_is_refused_at_its_line_and_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from polybook.diagnostics import Reporter
    from polybook.execution.cache import CacheKey
    from polybook.execution.frozen_outputs import FrozenOutputs
    from polybook.nb import new_notebook

    secret = tmp_path / "host" / "secret.png"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    root = pages_book(tmp_path / "book", {"page": "Words.\n"}, CONFIG)
    linked = "files/" + "a" * 64 + ".png"  # a name of the folder's, a link to a host file
    (root / "_freeze" / "files").mkdir(parents=True)
    (root / "_freeze" / linked).symlink_to(secret)
    names = ["../../host/secret.png", str(secret), linked]
    path = _frozen_entry(root, names)
    text = path.read_text().split("\n")
    lines = {n: next(i for i, t in enumerate(text, 1) if json.dumps(n) in t) for n in names}
    code, errors = check(root, capsys)
    assert code == 1
    assert [e.split(", which")[0] for e in errors] == sorted(
        f"_freeze/pytorch/page.json:{lines[n]}: a frozen image names {n!r}" for n in names
    )
    frozen = FrozenOutputs(root)
    reporter = Reporter(quiet=True)
    key = CacheKey.of(new_notebook(), "pytorch", "k")
    place = ("page.md", "pytorch")
    assert frozen.find(place, new_notebook(), key, lambda _: key, reporter) is None
    assert len(reporter.errors) == 3
    shown = frozen.as_notebook(json.loads(path.read_text()))  # behind find: nothing read
    assert SECRET not in json.dumps(shown) and "image/png" not in json.dumps(shown)


def test_a_frozen_image_is_named_only_by_its_sha256_in_the_files_folder(tmp_path: Path) -> None:
    """Files of ``_freeze/files/`` (real ones, inside the folder) are refused unless named
    ``files/<64 hex digits>.<image type>``: no other name, case, folder or type."""
    from polybook.source.frozen import frozen_image

    folder = tmp_path / "_freeze"
    digest = "0123456789abcdef" * 4
    good = f"files/{digest}.png"
    bad = [
        "files/page.png",  # not a content name
        f"files/{digest[:-1]}.png",  # 63 digits
        f"files/{digest}0.png",  # 65
        f"files/{digest.upper()}.png",
        f"files/{digest}.html",  # not an image type
        f"files/{digest}.png.txt",
        f"files/sub/{digest}.png",  # a folder inside
        f"files/{digest}",
        f"files/./{digest}.png",
    ]
    for name in [good, *bad]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("an image")
    assert frozen_image(folder, good) == folder / good
    for ext in ("jpg", "gif", "webp", "svg"):
        (folder / f"files/{digest}.{ext}").write_text("an image")
        assert frozen_image(folder, f"files/{digest}.{ext}") == folder / f"files/{digest}.{ext}"
    assert {name: frozen_image(folder, name) for name in bad} == dict.fromkeys(bad)


def rst(*lines: str) -> str:
    return f"{FENCE}eval_rst\n" + "\n".join(lines) + f"\n{FENCE}\n"


# Page bodies (the body's first line is line 3) that name a host file in a letter case,
# or a form, that docutils and MyST read as the lower-case directive or role.
CASES = {
    "Include": (rst(".. Include:: {secret}"), 4, "`include`"),
    "RAW_FILE": (rst(".. RAW:: html", "   :FILE: {secret}"), 5, "`raw` :file:"),
    "Literalinclude": (rst(".. LiteralInclude:: {secret}"), 4, "`literalinclude`"),
    "myst_Include": (f"{FENCE}{{{{Include}}}} {{secret}}\n{FENCE}\n", 3, "`include`"),
    "colon_Raw": (":::{{Raw}} html\n:File: {secret}\n:::\n", 4, "`raw` :file:"),
    "Download": (rst("Get :DOWNLOAD:`it <{secret}>`."), 4, "a download"),
    "eval_rst_upper": (f"{FENCE}{{{{Eval-Rst}}}}\n.. include:: {{secret}}\n{FENCE}\n", 4, "`incl"),
    "substitution": (rst(".. |logo| image:: {secret}", "", "A |logo|."), 4, "`image`"),
    "markdown_link": ("Read [the notes]({secret}).\n", 3, "a link"),
    "link_definition": ("Read [the notes][n].\n\n[n]: {secret}\n", 5, "a link"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_check_reads_directives_and_roles_in_any_letter_case_and_every_link(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    body, line, words = CASES[kind]
    secret = tmp_path / "host" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    root = pages_book(tmp_path / "book", {"page": body.format(secret=secret)}, CONFIG)
    code, errors = check(root, capsys)
    assert code == 1
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"page.md:{line}: {words}"), errors


def test_links_inside_the_book_and_to_the_web_are_not_files_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "See [the index](index.md), [the web](https://example.com/x) and [a](#here).\n"
    root = pages_book(tmp_path / "book", {"page": body}, CONFIG)
    assert check(root, capsys) == (0, [])


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["eval_off", "executor_none"])
def test_a_build_that_executes_nothing_imports_nothing_of_the_book(
    tmp_path: Path, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess
    import sys

    marker = tmp_path / "book-code-ran"
    config = CONFIG if mode == "eval_off" else CONFIG.replace("false", "true")
    page = SAVED + rst(".. autofunction:: d2l.torch.saved") + "\n"
    root = pages_book(tmp_path / "book", {"page": page}, config)
    trap = f"open({str(marker)!r}, 'w').write('ran')\n"
    (root / "d2l").mkdir()
    (root / "d2l" / "__init__.py").write_text(trap)
    (root / "book_ext.py").write_text(trap + "def setup(app):\n    return {}\n")
    command = [sys.executable, "-m", "polybook", "--quiet", "build", "html"]
    if mode == "executor_none":
        command += ["--executor", "none"]
    # Run from the book's folder, as an author (or a CI job) does.
    if mode == "eval_off":  # (with executor none, a notebook must be in the cache)
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        assert not marker.exists()
        html = (root / "_build" / "html" / "page.html").read_text()
        assert "saved" in html and "d2l.torch." in html  # documented from its source
    (root / "config.ini").write_text(config + "sphinx_extensions = book_ext\n")
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "config.ini:7: [build] sphinx_extensions: 'book_ext' is a module of the book" in (
        done.stderr
    )
    assert not marker.exists()
    # The person who runs the build may vouch for the book; config.ini cannot.
    trusted = [*command, "--trust"]
    done = subprocess.run(trusted, cwd=root, capture_output=True, text=True, check=False)
    assert "sphinx_extensions" not in done.stderr
    assert done.returncode == (0 if mode == "eval_off" else 1)  # executor none: uncached
    assert marker.read_text() == "ran"
