"""The pieces of a comparison on their own: numbers and reprs read for their values, volatile
parts left out, warnings read from standard error, a cell's changes classified, images
compared by how they look, cells paired across edits, and the ``[drift]`` keys."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from polybook.config import load_config
from polybook.diagnostics import PolybookError
from polybook.drift.align import Pair, align, code_key
from polybook.drift.compare import Settings, compare_cells
from polybook.drift.images import compare_pixels, svg_drawing
from polybook.drift.numbers import canonical, compare_text
from polybook.drift.outputs import CellOutputs, Part, read_outputs, split_warnings
from polybook.drift.volatile import GROUPS, Volatile
from polybook.environments.packages import canonical as package_name

from ..books import drawn_png, executed_notebook, write_book

RTOL, ATOL = 1e-5, 1e-8


def verdict(before: str, after: str) -> str:
    return compare_text(before, after, RTOL, ATOL)[0]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("np.float64(3.0)", "3.0"),  # NumPy 2 names a scalar's type, NumPy 1 does not
        ("np.int64(3)", "3"),
        ("(np.int64(7), np.True_)", "(7, True)"),
        ("np.float64(0.30000000000000004)", "0.30000000000000004"),
        ("tensor([1., 2.])", "Array([1., 2.], dtype=float32)"),
        (
            "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>",
            "array([1., 2.], dtype=float32)",
        ),
        ("tf.Tensor([1. 2.], shape=(2,), dtype=float32)", "tf.Tensor([1.0000001 2.], shape=(2,))"),
        ("array([0.1, 0.2])", "array([0.1000001, 0.2      ])"),  # noise, and a wider column
        ("tensor([[1, 2],\n        [3, 4]])", "tensor([[1, 2], [3, 4]])"),
        ("loss 0.2500000", "loss 0.2500001"),
        ("np.float64(nan)", "nan"),
        ("tensor(0.5000, requires_grad=True)", "tensor(0.5000)"),
    ],
)
def test_the_same_values_written_differently_are_within_tolerance(before: str, after: str) -> None:
    assert verdict(before, after) == "tolerance"


@pytest.mark.parametrize(
    ("before", "after", "why"),
    [
        ("loss 0.25", "loss 0.26", "0.25 → 0.26"),
        ("np.int64(3)", "4", "3 → 4"),
        ("1000000", "1000001", "1000000 → 1000001"),  # integers are counts: exact
        ("Array([1., 2.], dtype=float32)", "Array([1., 2.], dtype=float64)", "dtype float32"),
        ("2.4.6", "1.26.4", "'2.4.6' → '1.26.4'"),  # a version is text, not numbers
        ("array([1., 2.])", "array([1., 2., 3.])", "line 1"),
        ("inf", "-inf", "inf → -inf"),
    ],
)
def test_other_values_are_changes_and_the_detail_says_which(
    before: str, after: str, why: str
) -> None:
    found, detail = compare_text(before, after, RTOL, ATOL)
    assert found == "changed"
    assert why in detail


def test_the_tolerance_is_relative_and_absolute() -> None:
    assert compare_text("100.0", "100.01", 1e-3, 0)[0] == "tolerance"
    assert compare_text("100.0", "100.01", 1e-5, 0)[0] == "changed"
    assert compare_text("0.0", "0.001", 0, 1e-2)[0] == "tolerance"
    assert verdict("same", "same") == "same"
    assert canonical("np.str_('a')").skeleton == "'a'"


def test_volatile_parts_are_left_out_by_group_and_by_pattern() -> None:
    every = Volatile.of(tuple(GROUPS))
    run = "<object at 0x7f5fd54fe530>\nepoch 1, 4567.8 examples/sec on cpu\ntook 2.31 sec\n"
    again = "<object at 0x7ff3a05e64c0>\nepoch 1, 4012.2 examples/sec on cpu\ntook 1.9 s\n"
    assert every.clean(run) == every.clean(again)
    timeit = "1.23 µs ± 4.5 ns per loop (mean ± std. dev. of 7 runs, 1,000,000 loops each)"
    assert every.clean(timeit) == every.clean(timeit.replace("1,000,000", "100,000"))
    stamped = "2026-11-24 14:46:03.123: I tensorflow/core: ready"
    assert every.clean(stamped) == every.clean(stamped.replace("14:46:03.123", "09:01:00.5"))
    tqdm = (
        "epoch:  40%|████      | 4/10 [00:01<00:02,  3.1it/s]"
        "\r100%|██████████| 10/10 [00:03<00:00,  3.3it/s]\n"
    )
    keras = "1/4 [======>......] - ETA: 1s\r4/4 [==============================] - 0s 3ms/step\n"
    assert every.clean(tqdm) == every.clean(
        tqdm.replace("3.3it/s", "2.9it/s").replace("00:03", "00:04")
    )
    assert every.clean(keras) == every.clean(keras.replace("3ms", "5ms"))
    assert "100%" not in every.clean(tqdm) and "40%" not in every.clean(tqdm)
    # Without the timings group, a timing is a change; a pattern of one's own is left out.
    addresses = Volatile.of(("addresses",))
    assert addresses.clean("took 2.31 sec") != addresses.clean("took 1.9 s")
    own = Volatile.of((), (r"seed \d+",))
    assert own.clean("seed 12, x = 1") == own.clean("seed 99, x = 1") == "<ignored>, x = 1"


def test_warnings_are_read_from_standard_error_without_their_file() -> None:
    stderr = (
        "/tmp/ipykernel_8610/3444664325.py:1: DeprecationWarning: numpy.core is deprecated\n"
        "  np.core.multiarray.array([1])\n"
        "/venv/lib/python3.11/site-packages/torch/nn/init.py:412: UserWarning: Initializing"
        " zero-element tensors\n"
        "plain text on stderr\n"
    )
    warnings, rest = split_warnings(stderr)
    assert warnings == (
        "DeprecationWarning: numpy.core is deprecated",
        "UserWarning: Initializing zero-element tensors",
    )
    assert rest == "plain text on stderr\n"


def outputs_of(*outputs: dict[str, object]) -> CellOutputs:
    nb = executed_notebook("p.md", "numpy", [("x", list(outputs))])
    return read_outputs(nb.cells[0])


def stream(text: str, name: str = "stdout") -> dict[str, object]:
    return {"output_type": "stream", "name": name, "text": text}


def result(text: str) -> dict[str, object]:
    return {
        "output_type": "execute_result",
        "execution_count": 1,
        "metadata": {},
        "data": {"text/plain": text},
    }


def error(ename: str, evalue: str) -> dict[str, object]:
    return {
        "output_type": "error",
        "ename": ename,
        "evalue": evalue,
        "traceback": [f"{ename}: {evalue}"],
    }


WARNED = "/tmp/ipykernel_1/2.py:1: FutureWarning: `np.long` will change\n  np.long(3)\n"


def kinds(before: CellOutputs, after: CellOutputs) -> list[str]:
    return [
        c.kind for c in compare_cells(before, after, Settings(volatile=Volatile.of(tuple(GROUPS))))
    ]


def test_a_cells_changes_are_classified() -> None:
    fine = outputs_of(result("np.int64(3)"))
    assert kinds(fine, outputs_of(result("3"))) == ["tolerance"]
    assert kinds(fine, outputs_of(result("4"))) == ["changed"]
    # A new error is that alone (the outputs it cut short are not changes of their own),
    # with the warning that came with it.
    broken = outputs_of(stream(WARNED, "stderr"), error("AttributeError", "no attribute 'long'"))
    assert kinds(fine, broken) == ["new-error", "new-warning"]
    assert kinds(broken, fine) == ["fixed-error", "gone-warning"]
    other = outputs_of(error("AttributeError", "no attribute 'int'"))
    assert kinds(broken, other) == ["changed", "gone-warning"]
    # Volatile parts and warnings' files do not count.
    assert (
        kinds(outputs_of(stream("at 0x7f5fd54fe530\n")), outputs_of(stream("at 0x7ff3a05e64c0\n")))
        == []
    )
    moved = WARNED.replace("ipykernel_1/2.py:1", "ipykernel_9/7.py:3")
    assert kinds(outputs_of(stream(WARNED, "stderr")), outputs_of(stream(moved, "stderr"))) == []
    assert kinds(fine, outputs_of(stream("3\n"))) == ["changed"]  # a result became a print


def test_images_are_compared_by_how_they_look() -> None:
    same, reencoded = drawn_png(50), drawn_png(50, level=1)
    assert same != reencoded
    found = compare_pixels(same, reencoded)
    assert found is not None and found.score == 0
    moved = compare_pixels(same, drawn_png(80))
    assert moved is not None and moved.score > 0.01
    with Image.open(io.BytesIO(moved.difference)) as difference:
        marked = difference.convert("RGB").getcolors(maxcolors=1 << 16) or []
    assert any(color == (220, 30, 30) for _, color in marked)  # the changed pixels, in red
    resized = compare_pixels(same, drawn_png(50, size=(400, 200)))
    assert resized is not None and "from 200×100 to 400×200" in resized.describe()
    assert compare_pixels(same, b"not an image") is None


def test_an_image_change_over_the_threshold_is_an_image_change_and_under_it_noise() -> None:
    before = CellOutputs((Part("display", "image/png", data=drawn_png(50)),))
    after = CellOutputs((Part("display", "image/png", data=drawn_png(52)),))
    strict = compare_cells(before, after, Settings(image_threshold=0.0001))
    assert [c.kind for c in strict] == ["image"] and strict[0].difference.startswith(b"\x89PNG")
    lenient = compare_cells(before, after, Settings(image_threshold=0.5))
    assert [c.kind for c in lenient] == ["tolerance"]


def test_svg_drawings_are_compared_without_their_metadata_and_ids() -> None:
    def svg(date: str, clip: str, y: str) -> str:
        return (
            f"<svg><metadata><dc:date>{date}</dc:date></metadata><defs><clipPath id='x'"
            f' id="{clip}"><rect/></clipPath></defs><path clip-path="url(#{clip})"'
            f' d="M 0 {y} L 10 20"/></svg>'
        )

    old = svg("2026-01-01", "p1a2b", "10.5")
    assert svg_drawing(old) == svg_drawing(svg("2026-11-24", "p9f8e", "10.5"))
    before = CellOutputs((Part("display", "image/svg+xml", old),))
    moved = CellOutputs((Part("display", "image/svg+xml", svg("2026-11-24", "q1", "14.5")),))
    assert [c.kind for c in compare_cells(before, moved, Settings())] == ["image"]


def test_cells_are_paired_by_their_code_across_insertions_and_edits() -> None:
    before = [
        "import numpy as np\nx = np.ones(3)",
        "y = x * 2\nprint(y)",
        "z = y.sum()\nz",
        "d = 4",
    ]
    after = [*before[:2], "w = 0", "z = y.mean()\nz", "d = 4"]
    assert align(before, after) == [
        Pair(0, 0),
        Pair(1, 1),
        Pair(None, 2),
        Pair(2, 3, edited=True),
        Pair(3, 4),
    ]
    assert align(after, before)[2] == Pair(2, None)
    assert align(before, before) == [Pair(i, i) for i in range(4)]
    # A comment or the layout changed: the same code.
    assert code_key("z = y.sum()  # the total\nz") == code_key("z = y.sum()\n\nz")
    assert code_key("%%tab jax\nx = 1") == "%%tab jax\nx = 1"


def test_the_drift_keys_are_read_and_checked(tmp_path: Path) -> None:
    keys = "[drift]\nrtol = 1e-3\natol = 0\nvolatile = addresses\n"
    keys += "ignore =\n    seed \\d+\n    run [a-f0-9]{8}\n"
    config = load_config(write_book(tmp_path / "a", {}, f"[build]\ntabs = pytorch\n\n{keys}"))
    assert (config.drift.rtol, config.drift.atol) == (1e-3, 0.0)
    assert config.drift.volatile == ("addresses",)
    assert config.drift.ignore == (r"seed \d+", "run [a-f0-9]{8}")
    assert Settings.of(config.drift).volatile.clean("seed 4 run 0badcafe") == "<ignored> <ignored>"
    bad = "[build]\ntabs = pytorch\n\n[drift]\nignore = (unclosed\n"
    with pytest.raises(PolybookError) as info:
        load_config(write_book(tmp_path / "b", {}, bad))
    assert str(info.value).startswith("config.ini:5: [drift] ignore: '(unclosed' is not a regular")
    with pytest.raises(PolybookError, match=r"\[drift\] rtol: '-1' is not a number ≥ 0"):
        load_config(write_book(tmp_path / "c", {}, "[build]\ntabs = pytorch\n[drift]\nrtol = -1\n"))
    assert (
        package_name("Typing_Extensions")
        == package_name("typing.extensions")
        == "typing-extensions"
    )
