from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from polybook.config import KEYS, BookConfig, find_book_root, load_config, with_table
from polybook.config.model import Edition
from polybook.config.schema import keys_of
from polybook.diagnostics import Location, PolybookError, Reporter

from ..books import REPO, write_book


def write(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.ini").write_text(text, encoding="utf-8")
    return root


def error(root: Path, overrides: dict[str, str] | None = None) -> str:
    with pytest.raises(PolybookError) as info:
        load_config(root, overrides)
    assert info.value.diagnostic.subtype == "config"
    return str(info.value)


def warnings(text: str, root: Path) -> list[str]:
    return [str(d) for d in load_config(write(root, text)).ignored]


def test_reads_d2lbook_keys_and_reports_unknown_ones_once_with_their_line(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        "[project]\nname = b\n\n[build]\ntabs = mxnet, jax\n"
        "max_line_length = 80\n\n[library-jax]\nlib_file = lib/j.py\n"
        "[html]\ninclude_js = x\n",
    )
    config = load_config(root)
    assert config.build.tabs == ("mxnet", "jax")
    assert config.default_tab == "mxnet"
    assert config.library_for("jax").lib_file == "lib/j.py"
    assert config.library_for("jax").lib_name == "j"
    assert config.library_for("mxnet").lib_file == "d2l/mxnet.py"
    shown = sorted(str(d) for d in config.ignored)
    assert shown == [
        "config.ini:11: [html] include_js is ignored [polybook.config]",
        "config.ini:6: [build] max_line_length is ignored [polybook.config]",
    ]


def test_warnings_can_be_suppressed_by_subtype(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[build]\nsuppress_warnings = polybook.cite exec\n"))
    reporter = Reporter(suppressed=frozenset(config.build.suppress_warnings))
    here = Location("a.md", 3)
    reporter.warn(here, "shown as keys", "cite")
    reporter.warn(here, "not run", "exec.devices")
    reporter.warn(here, "no heading", "label")
    assert [str(d) for d in reporter.diagnostics] == ["a.md:3: no heading [polybook.label]"]


def test_an_undeclared_tab_is_accepted_and_a_likely_typo_is_a_warning_at_its_line(
    tmp_path: Path,
) -> None:
    root = write(tmp_path, "[build]\n\ntabs = pytorch, plain\n")
    config = load_config(root)
    assert config.build.tabs == ("pytorch", "plain") and config.ignored == ()
    assert not config.framework("plain").declared
    assert config.framework("plain").display_name == "plain"
    assert config.library_for("plain").lib_file == "d2l/plain.py"
    assert [str(d) for d in warnings("[build]\ntabs = jax, pytorh\n", root)] == [
        "config.ini:2: tab 'pytorh' is not a declared framework; did you mean 'pytorch'? (an"
        " undeclared tab runs in the default Python environment: declare"
        " [framework-pytorh] to give it its own) [polybook.config]"
    ]
    # d2lbook's own tabs are labels, no typos of a framework's name.
    assert warnings("[build]\ntabs = python, numpy, cpython\n", root) == []
    write(root, "[build]\ntabs = jax jax\n")
    assert "'jax' is named twice" in error(root)
    write(root, "[build]\ntabs = ,\n")
    assert "name at least one" in error(root)
    write(root, "[build]\ntabs = jax, torch-2\n")
    assert error(root).startswith("config.ini:2: [build] tabs: 'torch-2' is not a name")


def test_bad_device_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PolybookError, match=r"no config\.ini"):
        load_config(tmp_path)
    root = write(tmp_path / "b", "[build]\ndevice = tpu\n")
    assert error(root) == (
        "config.ini:2: [build] device: 'tpu' is not one of auto, cpu, cuda;"
        " did you mean 'cpu'? [polybook.config]"
    )
    write(root, "[build]\ndevice = CPU\n")
    assert load_config(root).build.device == "cpu"


@pytest.mark.parametrize(
    ("written", "value"),
    [("on", True), ("off", False), ("YES", True), ("no", False), ("1", True), ("0", False)],
)
def test_booleans_accept_the_usual_words(tmp_path: Path, written: str, value: bool) -> None:
    config = load_config(write(tmp_path, f"[build]\neval_notebook = {written}\nstrict = {written}"))
    assert config.build.eval_notebook is value
    assert config.build.strict is value


def test_a_bad_boolean_is_an_error_naming_what_is_accepted(tmp_path: Path) -> None:
    root = write(tmp_path, "[project]\nname = b\n[build]\neval_notebook = maybe\n")
    assert error(root) == (
        "config.ini:4: [build] eval_notebook: 'maybe' is not a boolean:"
        " use true/false, yes/no, on/off or 1/0 [polybook.config]"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("jobs = -1", "[build] jobs: -1 is too small: the least accepted is 0"),
        ("jobs = two", "[build] jobs: 'two' is not an integer"),
        ("cell_timeout = 0", "[build] cell_timeout: 0 is too small: the least accepted is 1"),
        ("gpu_share = 0", "[build] gpu_share: 0 is too small: the least accepted is 1"),
        ("cell_timeout = 1.5", "[build] cell_timeout: '1.5' is not an integer"),
    ],
)
def test_integers_below_their_minimum_are_errors(tmp_path: Path, line: str, message: str) -> None:
    root = write(tmp_path, f"[build]\ntabs = jax\n{line}\n")
    assert error(root) == f"config.ini:3: {message} [polybook.config]"


def test_integers_and_an_empty_value(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[build]\njobs = 0\ncell_timeout = 5\ngpu_share =\n"))
    assert (config.build.jobs, config.build.cell_timeout, config.build.gpu_share) == (0, 5, 0)
    assert config.effective_jobs >= 1


def test_a_typo_key_is_a_warning_with_the_nearest_key(tmp_path: Path) -> None:
    shown = warnings("[build]\ntabs = jax\neval_notbook = false\n", tmp_path)
    assert shown == [
        "config.ini:3: unknown key [build] eval_notbook is ignored;"
        " did you mean `eval_notebook`? [polybook.config]"
    ]
    shown = warnings("[project]\njobs = 2\nzzz = 1\n", tmp_path)
    assert shown == [
        "config.ini:2: unknown key [project] jobs is ignored; it belongs in [build]"
        " [polybook.config]",
        "config.ini:3: unknown key [project] zzz is ignored [polybook.config]",
    ]


def test_a_typo_section_is_a_warning_with_the_nearest_section(tmp_path: Path) -> None:
    shown = warnings("[project]\nname = b\n\n[bulid]\njobs = 2\n[DEFAULT]\n", tmp_path)
    assert shown == [
        "config.ini:4: unknown section [bulid] is ignored; did you mean [build]? [polybook.config]",
        "config.ini:6: unknown section [DEFAULT] is ignored [polybook.config]",
    ]
    shown = warnings("[library-pytorh]\nlib_file = d2l/torch.py\n", tmp_path)
    assert shown == [
        "config.ini:1: [library-pytorh] is ignored: unknown framework 'pytorh';"
        " did you mean 'pytorch'? [polybook.config]"
    ]


def test_d2lbook_sections_are_ignored_key_by_key_and_empty_keys_silently(tmp_path: Path) -> None:
    text = (
        "[build]\nwarning_is_error = True\nsphinx_configs =\n[pdf]\nlatex_logo =\n"
        "post_latex = fix.py\n[colab]\nanything = x\n[library-mxnet]\nlib_name = np\n"
        "[library]\nrelease = 1.0\n"
    )
    assert warnings(text, tmp_path) == [
        "config.ini:2: [build] warning_is_error is ignored: polybook's key is `strict`"
        " [polybook.config]",
        "config.ini:6: [pdf] post_latex is ignored [polybook.config]",
        "config.ini:8: [colab] anything is ignored [polybook.config]",
        "config.ini:12: [library] release is ignored [polybook.config]",
    ]


def test_the_library_module_is_named_by_lib_file(tmp_path: Path) -> None:
    root = write(tmp_path, "[library-mxnet]\nlib_file = d2l/mx.py\n")
    config = load_config(root)
    assert config.library_for("mxnet").lib_name == "mx"
    assert config.library_for("jax").lib_file == "d2l/jax.py"
    assert not config.ignored
    write(root, "[library-jax]\n\nlib_file = d2l/jax.txt\n")
    assert error(root) == (
        "config.ini:3: [library-jax] lib_file: 'd2l/jax.txt' is not a .py file [polybook.config]"
    )


def test_overrides_are_checked_and_located_on_the_command_line(tmp_path: Path) -> None:
    root = write(tmp_path, "[build]\njobs = 3\n")
    assert error(root, {"build.jobs": "-2"}) == (
        "command line: [build] jobs: -2 is too small: the least accepted is 0 [polybook.config]"
    )
    config = load_config(root, {"build.strict": "true", "build.jobs": "4"})
    assert (config.build.strict, config.build.jobs) == (True, 4)


def test_envs_dir_is_relative_to_the_book_root(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[build]\nenvs_dir = ../envs\n"))
    assert config.build.envs_dir == str((tmp_path.parent / "envs").resolve())
    assert load_config(write(tmp_path, "[build]\n")).build.envs_dir == ""


def test_an_unreadable_file_is_an_error_at_its_line(tmp_path: Path) -> None:
    root = write(tmp_path, "[build]\njobs = 1\njobs = 2\n")
    assert error(root).startswith("config.ini:3: cannot read:")


def test_find_book_root_looks_in_parent_folders(tmp_path: Path) -> None:
    root = write(tmp_path / "book", "[project]\nname = b\n")
    inner = root / "chapter" / "sub"
    inner.mkdir(parents=True)
    assert find_book_root(inner) == root.resolve()
    assert find_book_root(root) == root.resolve()
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    with pytest.raises(PolybookError) as info:
        find_book_root(elsewhere)
    assert info.value.diagnostic.subtype == "config"
    assert info.value.location == Location(str(elsewhere.resolve()))
    assert str(info.value).startswith(
        f"{elsewhere.resolve()}: no config.ini in {elsewhere.resolve()} or any parent folder:"
        " run polybook inside a book, or pass --root DIR"
    )


def test_each_key_is_read_into_the_field_of_its_section(tmp_path: Path) -> None:
    config = load_config(write_book(tmp_path, {}, "[project]\nname = b\n"))
    per_name = ("library-", "framework-", "env-", "edition-")
    one_per_book = [k for k in KEYS if not k.section.startswith(per_name)]
    assert {k.section for k in one_per_book} == {
        f.name for f in dataclasses.fields(BookConfig) if f.name in {k.section for k in KEYS}
    }
    for key in one_per_book:
        if (key.section, key.name) != ("project", "name"):
            assert getattr(getattr(config, key.section), key.name) == key.default, key.name
    edition = {f.name: f.default for f in dataclasses.fields(Edition)}
    for key in keys_of("edition-zh"):
        if key.name != "root":  # required: the edition's folder
            assert edition[key.name] == key.default, key.name


def test_the_book_of_this_repository_reads_without_warnings() -> None:
    assert load_config(REPO).ignored == ()


def test_the_configuration_reference_is_generated_from_the_schema() -> None:
    reference = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert with_table(reference) == reference, "run .envs/tool/bin/python tools/config_table.py"


@pytest.mark.parametrize("section", ["project", "pdf"])
def test_the_bibliography_is_the_books_and_d2lbooks_pdf_key_names_it_too(
    tmp_path: Path, section: str
) -> None:
    root = write(tmp_path, f"[{section}]\nbibfile = refs.bib\n")
    config = load_config(root)
    assert [str(d) for d in config.ignored] == [  # one warning, at the key's line
        f"config.ini:2: [{section}] bibfile: no file 'refs.bib' in the book:"
        " citations are shown as their keys [polybook.config]"
    ]
    assert config.book.bibliography is None
    (root / "refs.bib").write_text("@book{a, title={A}}\n", encoding="utf-8")
    config = load_config(root)
    assert config.ignored == ()
    assert config.book.bibliography == root / "refs.bib"  # every output that cites reads it
