"""Outputs without framework noise: XLA's C++ log, absl and Keras' chatter dropped as each
framework declares (``output_noise``), what the author keeps kept (``[build] keep_output``),
and no host path left in an output. The strings are the H200 run's (``_freeze/``) and a
TensorFlow build's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from nbformat import NotebookNode

from polybook.config.declarations import shipped
from polybook.execution.frozen_outputs import FrozenOutputs
from polybook.execution.output_noise import OutputFilter
from polybook.nb import new_code_cell, new_notebook

from ..books import REPO, build, chapter_book, code

XLA = (
    "I1127 14:56:43.407838     997 service.cc:154] XLA service 0x202c2980 initialized for"
    " platform CUDA (this does not guarantee that XLA will be used). Devices:\n"
    "I1127 14:56:43.407875     997 service.cc:170]   StreamExecutor [0]: NVIDIA H200, Compute"
    " Capability 9.0a (Driver: 13.0.0[580.159.4]; Runtime: 13.0.0; Toolkit: 13.0.0; DNN:"
    " 9.19.0)\n"
)
PTXAS = (
    "I1127 14:56:53.512483    1059 subprocess_compilation.cc:349] ptxas warning : Registers are"
    " spilled to local memory in function 'gemm_fusion_dot_general_1', 44 bytes spill stores,"
    " 40 bytes spill loads\n\n"
)
KERAS = (
    "/home/ci/book/.envs/tensorflow/lib/python3.11/site-packages/keras/src/layers/layer.py:1570:"
    " UserWarning: Layer 'loop_mlp_1' looks like it has unbuilt state, but Keras is not able to"
    " trace the layer `call()` in order to build it automatically. Possible causes:\n"
    "1. The `call()` method of your layer may be crashing.\n"
    "Exception encountered: ''Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.''\n"
    "  warnings.warn(\n"
)
MINE = "epoch 1, loss 0.25\n"


def stderr_cell(*texts: str) -> NotebookNode:
    nb = new_notebook()
    cell = new_code_cell("train()", "c")
    cell.outputs = [{"output_type": "stream", "name": "stderr", "text": t} for t in texts]
    nb.cells.append(cell)
    return nb


def streams(nb: NotebookNode) -> list[str]:
    return [o["text"] for c in nb.cells for o in c.outputs]


def test_xla_log_lines_are_dropped_the_cells_own_kept() -> None:
    jax = OutputFilter.of(shipped("jax").output_noise, ())
    assert GLOG in shipped("jax").output_noise and GLOG in shipped("tensorflow").output_noise
    assert streams(jax.clean(stderr_cell(XLA + MINE + PTXAS, PTXAS))) == [MINE]
    # PyTorch declares no such log: its outputs keep every line.
    torch = OutputFilter.of(shipped("pytorch").output_noise, ())
    assert streams(torch.clean(stderr_cell(XLA + MINE))) == [XLA + MINE]


def test_keras_chatter_is_dropped_unless_the_author_keeps_it() -> None:
    tensorflow = shipped("tensorflow").output_noise
    assert streams(OutputFilter.of(tensorflow, ()).clean(stderr_cell(KERAS + MINE))) == [MINE]
    kept = OutputFilter.of(tensorflow, (r"unbuilt\sstate",)).clean(stderr_cell(KERAS + MINE))
    [text] = streams(kept)
    assert text.startswith("keras/src/layers/layer.py:1570: UserWarning: Layer 'loop_mlp_1'")
    assert text.endswith("  warnings.warn(\n" + MINE)
    assert "/home/" not in text and "site-packages" not in text


def test_no_output_shows_a_host_path() -> None:
    home = "/home/ci"
    found = OutputFilter(home=home)
    nb = new_notebook()
    cell = new_code_cell("f()", "c")
    trace = (
        "File \x1b[0;32m$ENVS/pytorch/lib/python3.11/site-packages/torch/nn/modules/module.py:1553"
        "\x1b[0m, in \x1b[0;36mModule._wrapped_call_impl\x1b[0m"
    )
    cell.outputs = [
        {
            "output_type": "error",
            "ename": "E",
            "evalue": f"{home}/data/x.csv",
            "traceback": [trace],
        },
        {"output_type": "execute_result", "data": {"text/plain": f"'{home}/.cache'"}},
    ]
    nb.cells.append(cell)
    found.clean(nb)
    [error, result] = nb.cells[0].outputs
    assert error["traceback"] == [
        "File \x1b[0;32mtorch/nn/modules/module.py:1553\x1b[0m, in"
        " \x1b[0;36mModule._wrapped_call_impl\x1b[0m"
    ]
    assert error["evalue"] == "~/data/x.csv" and result["data"]["text/plain"] == "'~/.cache'"


def test_the_home_folder_of_this_environment_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(tmp_path / "me")
    monkeypatch.setenv("HOME", home + "/")  # as a build finds it, a trailing slash or not
    found = OutputFilter.of((), ())  # what every stored output goes through
    nb = new_notebook()
    cell = new_code_cell("f()", "c")
    shown = [
        f"{home}/data/x.csv",
        f"PYTHONPATH={home}:{home}/lib",  # a list of folders
        f"File \x1b[0;32m{home}\x1b[0m, in",  # coloured, as IPython shows a traceback
        f"cwd ({home}), {home}",
        f"file://{home}/data",
    ]
    cell.outputs = [{"output_type": "stream", "name": "stdout", "text": "\n".join(shown)}]
    nb.cells.append(cell)
    [out] = found.clean(nb).cells[0].outputs
    assert out["text"].split("\n") == [
        "~/data/x.csv",
        "PYTHONPATH=~:~/lib",
        "File \x1b[0;32m~\x1b[0m, in",
        "cwd (~), ~",
        "file://~/data",
    ]


def test_a_path_that_only_contains_the_home_folders_name_is_kept() -> None:
    found = OutputFilter(home="/root")
    text = "/root.bak /rootfs/x /srv/root/x ./root/x data/root"
    assert found.unplaced(text) == text


def test_the_h200_runs_jax_outputs_show_no_xla_log() -> None:
    frozen = FrozenOutputs(REPO)
    path = REPO / "_freeze/jax/chapter_builders-guide/use-gpu.json"
    nb = frozen.as_notebook(json.loads(path.read_text()))
    before = json.dumps(streams_of(nb))
    assert "service.cc:154] XLA service" in before  # as the H200 made it
    after = json.dumps(streams_of(OutputFilter.of(shipped("jax").output_noise, ()).clean(nb)))
    assert "I1127" not in after and "ptxas" not in after
    assert "CudaDevice(id=0)" in json.dumps([c.outputs for c in nb.cells])


def streams_of(nb: NotebookNode) -> list[str]:
    return [str(o.get("text", "")) for c in nb.cells for o in c.get("outputs", [])]


NOISY = code(
    "import sys, warnings",
    f"sys.stderr.write({XLA!r})",
    "sys.stderr.write('I1127 14:56:43.410467 997 keep me.cc:1] kept\\n')",
    "warnings.warn_explicit('chatter', UserWarning,"
    " '/opt/venv/lib/python3.11/site-packages/keras/src/layers/layer.py', 1570)",
    "print('loss 0.25')",
)
GLOG = r"^[IWEF]\d{4}\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]"  # as jax declares it
NOISE_SECTION = f"\n[framework-pytorch]\noutput_noise = {GLOG}\n"


@pytest.mark.slow
def test_a_kernels_noise_is_dropped_before_outputs_are_stored(tmp_path: Path) -> None:
    root = chapter_book(
        tmp_path / "book", {"noisy": NOISY}, "keep_output = keep\\sme\n", NOISE_SECTION
    )
    assert build(root, "html") == 0
    stored = json.loads((root / "_build/eval/pytorch/chap/noisy.ipynb").read_text())
    text = json.dumps([c.get("outputs", []) for c in stored["cells"]])
    assert "XLA service" not in text and "StreamExecutor" not in text
    assert "keep me.cc:1] kept" in text  # [build] keep_output
    assert "keras/src/layers/layer.py:1570: UserWarning: chatter" in text
    assert "/opt/venv" not in text and "site-packages" not in text
    page = BeautifulSoup((root / "_build/html/chap/noisy.html").read_text(), "html.parser")
    shown = " ".join(o.get_text() for o in page.select("div.pb-output"))
    assert "loss 0.25" in shown and "XLA service" not in shown and "site-packages" not in shown


# A warning's record: its line, the lines its message runs on to, the source line it quotes.
OLD = "x.py:3: DeprecationWarning: old API\nuse the new one\n  call()\n"


@pytest.mark.timeout(60)  # a record read wrong may never end: fail, not hang
def test_a_warnings_whole_record_is_noise_by_its_first_line_only() -> None:
    noisy = OutputFilter(noise=("DeprecationWarning",))
    assert noisy.quiet(OLD + MINE) == MINE
    assert noisy.quiet(MINE + OLD + "\n\n" + MINE) == MINE + MINE  # its blank lines too
    # A record without the quoted line is its first line alone.
    assert noisy.quiet("x.py:3: DeprecationWarning: old\n" + MINE) == MINE
    assert noisy.quiet(MINE + "x.py:3: DeprecationWarning: old") == MINE
    # What a record's later lines say does not make it noise.
    later = OutputFilter(noise=("new one",))
    assert later.quiet(OLD + MINE) == OLD + MINE


def test_only_a_cells_stderr_loses_noise_and_every_output_its_paths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", "/home/ci/")
    found = OutputFilter.of(("noise",), ())
    assert found.home == "/home/ci"
    nb = new_notebook()
    nb.cells.append({"cell_type": "markdown", "source": "noise", "metadata": {}})
    cell = new_code_cell("f()", "c")
    cell.outputs = [
        {"output_type": "stream", "name": "stderr", "text": ["noise\n"]},  # left empty: dropped
        {"output_type": "stream", "name": "stdout", "text": ["noise\n", "/home/ci/x\n"]},
        {"output_type": "stream", "name": "stderr", "text": ["mine\n", "noise\n"]},
    ]
    nb.cells.append(cell)
    assert [o["text"] for o in found.clean(nb).cells[1].outputs] == ["noise\n~/x\n", "mine\n"]
    for home in ("", "/"):  # no home folder to hide
        monkeypatch.setenv("HOME", home)
        assert OutputFilter.of((), ()).home == ""
        assert OutputFilter.of((), ()).unplaced("/ and /x") == "/ and /x"
