"""``make bench``'s guard: a figure beside the release's, moved only beyond noise."""

from __future__ import annotations

from tools.bench_baseline import read_figure, record, verdict

THEN = {"value": 10.0, "low": 9.0, "high": 12.0, "unit": "s", "shown": "10.0 s"}


def test_figures_are_read_with_their_runs_range() -> None:
    assert read_figure("4.70 s") == (4.7, 4.7, 4.7, "s")
    assert read_figure("median 71.4 s (69.5–73.7)") == (71.4, 69.5, 73.7, "s")
    assert read_figure("1.9x") == (1.9, 1.9, 1.9, "x")
    assert read_figure("not measured") is None


def test_a_figure_moves_only_when_the_ranges_part_beyond_noise() -> None:
    assert verdict((13.0, 13.0, 13.0, "s"), THEN) == "within noise"  # the machine was busy
    assert verdict((16.0, 15.5, 16.5, "s"), THEN) == "higher, beyond noise"
    assert verdict((6.0, 5.0, 6.5, "s"), THEN) == "lower, beyond noise"
    assert verdict((16.0, 11.0, 20.0, "s"), THEN) == "within noise"  # the runs overlap


def test_a_baseline_is_recorded_from_what_bench_printed() -> None:
    log = (
        "polybook bench (embedded book, one run)\n"
        "  no-op rebuild                   0.18 s   [target <= 0.5 s]"
        "   [main at 1: 0.19 s; within noise]\n"
        "  d2l-en html, eval off: polybook  median 27.0 s (26.1–27.9)\n"
        "  against d2lbook: not measured   set D2L_EN\n"
    )
    made = record(log, "main at 2", "quiet")
    assert made["release"] == "main at 2" and set(made["figures"]) == {
        "no-op rebuild",
        "d2l-en html, eval off: polybook",
    }
    assert made["figures"]["no-op rebuild"]["shown"] == "0.18 s"
    assert made["figures"]["d2l-en html, eval off: polybook"]["low"] == 26.1
