"""Precise cache keys (which saved blocks a notebook uses) and the shared cache's store."""

from __future__ import annotations

import hashlib
import threading
import uuid
from pathlib import Path

from nbformat import NotebookNode

from polybook.execution.cache import CacheKey, ExecutionCache, adopt_outputs
from polybook.library.model import SavedBlock
from polybook.library.usage import LibraryUsage, cell_digest
from polybook.meta import Requires, RunInfo, update_cell_meta, update_notebook_meta
from polybook.nb import new_code_cell, new_notebook, node, writes

LIBRARY = {
    "import inspect": 0,
    "def helper(x):\n    return x + 1": 0,
    "def double(x):\n    return helper(x) * 2": 0,
    "class Module:\n    def save(self):\n        return inspect.stack()": 0,
    "@d2l.add_to_class(d2l.Module)\ndef fit(self):\n    return 1": 1,
    "class Linear(d2l.Module):\n    pass": 1,
    "DATA = {}": 1,
    "d2l.DATA['a'] = 1": 2,
    "def unrelated():\n    return 0": 2,
}


def library(**edits: str) -> LibraryUsage:
    blocks = []
    for original, notebook in LIBRARY.items():
        code = original
        for old, new in edits.items():
            code = code.replace(old, new)
        blocks.append(SavedBlock("page.md", (1,), code, notebook))
    return LibraryUsage(blocks, "d2l/torch.py")


def notebook(*cells: str) -> NotebookNode:
    nb = new_notebook()
    nb.cells = [new_code_cell(code, f"c{n}") for n, code in enumerate(cells)]
    return nb


def used(nb: NotebookNode, usage: LibraryUsage | None = None) -> set[str] | None:
    usage = usage or library()
    blocks = usage.used_blocks(nb)
    if blocks is None:
        return None
    return {usage.blocks[i].code.split("\n")[0] for i in blocks}


IMPORT = "from d2l import torch as d2l"


def test_a_function_brings_what_it_calls() -> None:
    assert used(notebook(IMPORT, "d2l.double(3)")) == {
        "def double(x):",
        "def helper(x):",
    }


def test_a_class_brings_its_bases_their_methods_and_their_imports() -> None:
    assert used(notebook(IMPORT, "net = d2l.Linear()")) == {
        "class Linear(d2l.Module):",
        "class Module:",
        "@d2l.add_to_class(d2l.Module)",
        "import inspect",
    }


def test_a_name_extended_later_brings_the_extension() -> None:
    assert used(notebook(IMPORT, "print(d2l.DATA)")) == {"DATA = {}", "d2l.DATA['a'] = 1"}


def test_other_spellings_of_the_import() -> None:
    assert used(notebook("from d2l.torch import helper", "helper(1)")) == {"def helper(x):"}
    assert used(notebook("import d2l.torch", "d2l.torch.helper(1)")) == {"def helper(x):"}
    assert used(notebook("import d2l.torch as lib", "lib.helper(1)")) == {"def helper(x):"}
    assert used(notebook("import torch", "torch.zeros(1)")) == set()


def test_dynamic_access_cannot_be_followed() -> None:
    assert used(notebook(IMPORT, "getattr(d2l, 'double')(1)")) is None
    assert used(notebook(IMPORT, "d2l.__dict__['double']")) is None
    assert used(notebook("from d2l.torch import *")) is None
    assert used(notebook(IMPORT, "x = (")) is None  # does not parse


def _with(*codes: str) -> LibraryUsage:
    """The library, and ``codes`` saved on a page after it."""
    usage = library()
    extra = [SavedBlock("more.md", (1,), code, 3) for code in codes]
    return LibraryUsage([*usage.blocks, *extra], "d2l/torch.py")


def test_a_saved_statement_that_defines_nothing_counts_for_every_page() -> None:
    """Run as the library is imported, whatever a page uses: it, and what it reads, are in
    every page's key."""
    usage = _with("print(unrelated())")
    nb = notebook(IMPORT, "d2l.helper(1)")
    assert used(nb, usage) == {"def helper(x):", "print(unrelated())", "def unrelated():"}
    edited = _with("print(unrelated(), 'loaded')")
    assert edited.digest(nb) != usage.digest(nb)
    assert used(notebook(IMPORT, "d2l.helper(1)")) == {"def helper(x):"}  # none saved: none


def test_a_saved_block_read_by_a_page_that_reads_the_library_dynamically_uses_it_all() -> None:
    """A block the page uses that reads ``getattr(d2l, …)`` may read any of it: the key is
    the whole library's; a page that does not use the block keeps its own."""
    usage = _with("def lookup(name):\n    return getattr(d2l, name)")
    assert used(notebook(IMPORT, "d2l.lookup('helper')(1)"), usage) is None
    assert used(notebook(IMPORT, "d2l.helper(1)"), usage) == {"def helper(x):"}
    whole = usage.digest(notebook(IMPORT, "d2l.lookup('helper')(1)"))
    edited = library(**{"return 0": "return 1"})  # a block no page names
    edited = LibraryUsage([*edited.blocks, *usage.blocks[len(edited.blocks) :]], "d2l/torch.py")
    assert edited.digest(notebook(IMPORT, "d2l.lookup('helper')(1)")) != whole


def test_the_key_holds_the_package_init_every_notebook_imports() -> None:
    nb = notebook(IMPORT, "d2l.helper(1)")
    blocks = library().blocks
    keys = [LibraryUsage(blocks, "d2l/torch.py", init).key(nb) for init in (b"", b"x = 1\n")]
    assert keys[0] != keys[1]
    assert LibraryUsage(blocks, "d2l/torch.py", b"x = 1\n").key(nb) == keys[1]


def test_blocks_later_in_the_book_count_for_every_page() -> None:
    # Every page imports the whole library: what page 2 adds to DATA is part of page 0's key.
    usage = library()
    nb = notebook(IMPORT, "print(d2l.DATA)")
    assert usage.used_blocks(nb) == [6, 7]
    edited = library(**{"d2l.DATA['a'] = 1": "d2l.DATA['a'] = 2"})
    assert edited.digest(nb) != usage.digest(nb)


def test_comments_and_layout_do_not_change_the_key_code_does() -> None:
    nb = notebook(IMPORT, "d2l.double(3)")
    before = library().digest(nb)
    commented = library(**{"return x + 1": "# add one\n    return (x +\n            1)"})
    assert commented.digest(nb) == before
    assert library(**{"return x + 1": "return x + 2"}).digest(nb) != before
    assert library(**{"return 0": "return 1"}).digest(nb) == before  # unrelated


def test_a_cell_counts_by_its_meaning() -> None:
    key = CacheKey.of(notebook("x = 1  # one\nx"), "pytorch", "lib").on("env").digest
    assert CacheKey.of(notebook("x=1\n\nx"), "pytorch", "lib").on("env").digest == key
    assert CacheKey.of(notebook("x = 1\nx;"), "pytorch", "lib").on("env").digest != key  # quiet
    assert CacheKey.of(notebook("x = 2\nx"), "pytorch", "lib").on("env").digest != key
    assert cell_digest("%time x = 1") != cell_digest("x = 1")


def executed(text: str, gpus: int = 0, skipped: int = 0) -> NotebookNode:
    nb = notebook(text)
    update_cell_meta(nb.cells[0], requires=Requires(2))
    update_notebook_meta(nb, run=RunInfo(host_gpus=gpus, skipped=skipped, date="today"))
    return nb


def test_a_shared_store_is_read_through_a_local_copy(tmp_path: Path) -> None:
    url = f"memory://polybook-{uuid.uuid4().hex}"
    writer = ExecutionCache(tmp_path / "a", url)
    writer.put("ab" * 32, executed("print(1)"))
    reader = ExecutionCache(tmp_path / "b", url)
    got = reader.get("ab" * 32, host_gpus=0)
    assert got is not None and got.cells[0].source == "print(1)"
    assert (tmp_path / "b" / "ab" / f"{'ab' * 32}.ipynb").is_file()  # kept here
    assert reader.get("cd" * 32, host_gpus=0) is None


def test_an_entry_is_parsed_once_while_unchanged_and_its_outputs_are_taken_as_copies(
    tmp_path: Path,
) -> None:
    cache = ExecutionCache(tmp_path / "cache")
    key = "34" * 32
    run = executed("print(1)")
    run.cells[0].outputs = [node({"output_type": "stream", "name": "stdout", "text": "1\n"})]
    cache.put(key, run)
    kept = cache.get(key, host_gpus=0)
    assert kept is not None and cache.get(key, host_gpus=0) is kept  # read once
    adopted = adopt_outputs(executed("print(1)"), kept)
    assert adopted.cells[0].outputs == kept.cells[0].outputs
    adopted.cells[0].outputs[0]["text"] = "changed by a later step\n"
    adopted.cells[0].outputs.append(node({"output_type": "stream", "name": "stderr"}))
    assert kept.cells[0].outputs == run.cells[0].outputs  # the kept entry, as read
    entry = next((tmp_path / "cache").rglob("*.ipynb"))
    run.cells[0].outputs[0]["text"] = "2\n"
    entry.write_text(writes(run), encoding="utf-8")  # an entry written again: read again
    again = cache.get(key, host_gpus=0)
    assert again is not None and again.cells[0].outputs[0]["text"] == "2\n"


def test_runs_of_smaller_hosts_never_replace_or_hide_bigger_ones(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    key = "ef" * 32
    laptop = ExecutionCache(tmp_path / "laptop", str(shared))
    laptop.put(key, executed("laptop", gpus=0, skipped=1))
    assert laptop.get(key, host_gpus=0, wanted=2) is not None
    gpu_host = ExecutionCache(tmp_path / "gpu", str(shared))
    assert gpu_host.get(key, host_gpus=2, wanted=2) is None  # it can run more: it will
    gpu_host.put(key, executed("gpu host", gpus=2))
    fresh = ExecutionCache(tmp_path / "fresh", str(shared))
    got = fresh.get(key, host_gpus=0, wanted=2)
    assert got is not None and got.cells[0].source == "gpu host"


def test_concurrent_writers_of_one_entry_leave_one_whole_entry(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    key = "12" * 32

    def write(n: int) -> None:
        ExecutionCache(tmp_path / f"local{n}", str(shared)).put(key, executed(f"run {n}"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries = list(shared.rglob("*.ipynb"))
    assert len(entries) == 1 and not list(shared.rglob("*.pbtmp"))
    got = ExecutionCache(tmp_path / "reader", str(shared)).get(key, 0)
    assert got is not None and got.cells[0].source.startswith("run ")


def test_the_books_package_init_is_read_from_beside_its_library_file(tmp_path: Path) -> None:
    """``LibraryUsage.of`` reads ``d2l/__init__.py`` beside the framework's ``lib_file``;
    none there hashes as empty."""
    from polybook.config import load_config

    from ..books import write_book

    files = {"index.md": "# T\n", "d2l/torch.py": "def helper(x):\n    return x\n"}
    root = write_book(tmp_path / "book", files, "[project]\nname = t\n[build]\ntabs = pytorch\n")
    book = load_config(root).book
    blocks = library().blocks
    nb = notebook(IMPORT, "d2l.helper(1)")
    bare = LibraryUsage.of(book, "pytorch", blocks)
    assert bare.key(nb) == LibraryUsage(blocks, "d2l/torch.py", b"").key(nb)
    (root / "d2l" / "__init__.py").write_text("VERSION = 1\n")
    assert LibraryUsage.of(book, "pytorch", blocks).key(nb) == (
        LibraryUsage(blocks, "d2l/torch.py", b"VERSION = 1\n").key(nb)
    )
    assert LibraryUsage.of(book, "pytorch", blocks).key(nb) != bare.key(nb)
    assert LibraryUsage.of(book, "pytorch", blocks).module == "d2l.torch"
    config = (
        "[project]\nname = t\n[build]\ntabs = pytorch\n[library-pytorch]\nlib_file = lib/t.py\n"
    )
    other = write_book(tmp_path / "other", {**files, "lib/__init__.py": "X = 2\n"}, config)
    usage = LibraryUsage.of(load_config(other).book, "pytorch", blocks)  # its own folder's
    assert usage.key(nb) == LibraryUsage(blocks, "lib/t.py", b"X = 2\n").key(nb)


def test_a_cell_ending_with_a_semicolon_shows_nothing_and_keys_apart() -> None:
    """IPython shows no result after a final ``;`` (outside comments and strings)."""
    from polybook.library.usage import cell_digest

    shown, hidden = cell_digest("x = 1\nx"), cell_digest("x = 1\nx;")
    assert shown.startswith("tree:0:") and hidden.startswith("tree:1:")
    assert cell_digest("x;  # done\n\n") == cell_digest("x;")
    assert cell_digest("x  # a comment;") == cell_digest("x")
    assert cell_digest("s = 'a;'") == cell_digest("s = 'a;'  # text")
    assert cell_digest("s = 'a;'").startswith("tree:0:")
    assert cell_digest("f(';')").startswith("tree:0:")
    assert cell_digest("%time x;") == "text:%time x;"
    assert cell_digest("x = (;") == "text:x = (;"


def test_a_block_is_keyed_by_its_tree_or_its_text_where_it_does_not_parse() -> None:
    from polybook.library.usage import syntax_digest

    assert syntax_digest("x = 1  # one") == syntax_digest("x  =  1")
    assert syntax_digest("x = 1") != syntax_digest("x = 2")
    assert syntax_digest("x = (") != syntax_digest("x = ((")
    assert len(syntax_digest("x = (")) == 64


def test_import_star_and_globals_escape_in_the_library_too() -> None:
    """A saved block that reads names without spelling them makes its users' keys whole."""
    for code in (
        "def everything():\n    return globals()",
        "def names():\n    from d2l.torch import *\n    return 1",
        "def inner():\n    return d2l.__dict__",
    ):
        usage = _with(code)
        name = code.split("(")[0].removeprefix("def ")
        assert used(notebook(IMPORT, f"d2l.{name}()"), usage) is None, code
    assert used(notebook(IMPORT, "d2l.helper(1)"), _with("def g():\n    return local()")) == {
        "def helper(x):"
    }


def test_a_dynamic_notebooks_key_is_not_that_of_one_using_every_block() -> None:
    usage = library()
    names = {"double", "Linear", "DATA", "unrelated", "helper", "Module", "inspect", "fit"}
    assert usage.closure(names) == list(range(len(LIBRARY)))
    dynamic = usage.digest(notebook(IMPORT, "getattr(d2l, 'double')(1)"))
    assert dynamic == usage.digest_for(None)
    assert usage.digest_for(names) != dynamic
    assert usage.digest_for(set()) not in (dynamic, usage.digest_for(names))
    nb = notebook(IMPORT, "d2l.helper(1)")
    assert LibraryUsage(usage.blocks, "d2l/torch.py").key(nb) == (
        LibraryUsage(usage.blocks, "d2l/torch.py", b"").key(nb)
    )


def test_the_library_read_through_its_package() -> None:
    """``import d2l.torch``: ``d2l.torch.NAME`` is read; ``d2l.torch`` passed around is not
    followed; other modules' attributes before it change nothing."""
    spelled = notebook("import d2l.torch", "torch.zeros(1)\nd2l.torch.helper(1)")
    assert used(spelled) == {"def helper(x):"}
    assert used(notebook("import d2l.torch", "lib = d2l.torch\nlib.helper(1)")) is None
    assert used(notebook("import d2l.torch", "d2l.other.x\nd2l.torch.double(1)")) == {
        "def double(x):",
        "def helper(x):",
    }


def test_a_key_of_key_format_1_is_its_pythons_and_format_2_the_default() -> None:
    """``dialect``: the key as key format 1 made it on that Python (3.12 dumps a def's
    ``type_params``), each block read again; none given: format 2's, the same on all."""
    usage = library()
    nb = notebook(IMPORT, "d2l.double(1)")
    other = notebook(IMPORT, "d2l.unrelated()")
    assert usage.key(nb) == usage.key(nb, "") != usage.key(nb, "3.11")
    assert usage.key(nb, "3.11") != usage.key(nb, "3.12") != usage.key(other, "3.12")
    assert usage.key(nb, "3.11") == library().key(nb, "3.11")  # the same each time
    assert usage.key(nb, "3.11") != library(**{"x + 1": "x + 2"}).key(nb, "3.11")
    assert usage.key(nb) != usage.key(other)  # the blocks a page reads, not all
    assert usage.digest_for(None) == usage.digest_for(None, "")
    assert cell_digest("def f(): pass", "3.11") != cell_digest("def f(): pass", "3.12")
    assert cell_digest("def f(): pass", "3.11").startswith("ast:0:")


def test_the_key_of_a_page_reading_no_block_is_as_stored_entries_hold_it() -> None:
    """The key's text is what entries stored in ``_freeze/`` and the cache were keyed by:
    a page that reads no saved block keys as the bare marker did when they were stored."""
    usage = LibraryUsage([SavedBlock("page.md", (1,), "def f():\n    return 1", 0)], "d2l/t.py")
    assert usage.digest_for(set()) == hashlib.sha256(b"used").hexdigest()
    assert usage.digest_for(None) != usage.digest_for(set())
