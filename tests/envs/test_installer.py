"""uv installs the environments, given the sources pip is configured with: pip's settings as
pip merges them, uv resolving every framework's requirement set to what pip resolves (local
build tags included), and pip installing where uv is not to (said once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from polybook.config.declarations import SHIPPED, shipped
from polybook.diagnostics import Location, PolybookError
from polybook.environments import installer, sources, venvs
from polybook.environments.packages import canonical
from polybook.frameworks import DEVICES
from polybook.paths import REQUIREMENTS

from ..books import made_wheel, simple_index
from ..tiny_envs import environment, run, tiny_book

PYTHON = Path(sys.executable)


def test_pip_settings_are_read_as_pip_merges_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pip's own reading (a configuration file, PIP_* variables): [install] over [global],
    a variable over both; lists split on whitespace; then said to uv as options."""
    conf = tmp_path / "pip.conf"
    conf.write_text(
        "[global]\nindex-url = https://global.example/simple\n"
        "extra-index-url = https://one.example/simple\n  https://two.example/simple\n"
        "trusted-host = one.example\n"
        "[install]\nindex-url = https://install.example/simple\npre = yes\n"
        "[download]\nfind-links = /nowhere\n"
    )
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    monkeypatch.setenv("PIP_FIND_LINKS", f"{tmp_path / 'a'} {tmp_path / 'b'}")
    monkeypatch.setenv("PIP_CONSTRAINT", str(tmp_path / "caps.txt"))
    monkeypatch.setenv("PIP_CERT", str(tmp_path / "ca.pem"))
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "30")
    settings = sources.read(PYTHON)
    assert settings["index-url"] == "https://install.example/simple"
    assert settings["find-links"].split() == [str(tmp_path / "a"), str(tmp_path / "b")]
    options = sources.uv_options(settings)
    assert options[:2] == ["--index-strategy", "unsafe-best-match"]  # pip's: the best version
    pairs = list(zip(options[::2], options[1::2], strict=True))
    for pair in (
        ("--index-url", "https://install.example/simple"),
        ("--extra-index-url", "https://one.example/simple"),
        ("--extra-index-url", "https://two.example/simple"),
        ("--find-links", str(tmp_path / "a")),
        ("--find-links", str(tmp_path / "b")),
        ("--constraint", str(tmp_path / "caps.txt")),
        ("--allow-insecure-host", "one.example"),
        ("--prerelease", "allow"),
    ):
        assert pair in pairs
    assert ("--find-links", "/nowhere") not in pairs  # another command's section
    environ = sources.uv_environ(settings, {"UV_INDEX_URL": "https://uv.example", "HOME": "/h"})
    certified = {"SSL_CERT_FILE": str(tmp_path / "ca.pem"), "UV_HTTP_TIMEOUT": "30"}
    assert environ == {"HOME": "/h", **certified}  # uv's own sources left out
    monkeypatch.setenv("PIP_NO_BINARY", ":all:")
    assert sources.unfollowed(sources.read(PYTHON)) == ["no-binary"]


def test_an_installer_that_is_neither_uv_nor_pip_is_a_located_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, "conda")
    with pytest.raises(PolybookError) as raised:
        installer.current()
    assert str(raised.value).startswith("$POLYBOOK_INSTALLER: $POLYBOOK_INSTALLER is 'conda'")
    assert "uv or pip" in str(raised.value) and "[polybook.env]" in str(raised.value)
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, "PIP")
    assert installer.current().name == "pip" and installer.current().asked


def _local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pip configured (a file of its own, as ``$PIP_CONFIG_FILE`` names it) with a package
    index in ``tmp_path`` alone, the host's other sources blanked: it offers ``demo
    1.0+local``, a build no other index has."""
    wheel = made_wheel(tmp_path / "files", "demo", "1.0+local", {"demo/__init__.py": "V = 7\n"})
    index = simple_index(tmp_path / "simple", [wheel])
    conf = tmp_path / "pip.conf"
    conf.write_text(f"[global]\nindex-url = {index}\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    for variable in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT"):
        monkeypatch.setenv(variable, "")  # the host's own sources (its files, its variables)
    monkeypatch.setenv("PIP_INDEX_URL", index)
    for variable in sources.UV_SOURCES:  # uv's own, which it must not read instead
        monkeypatch.setenv(variable, "https://uv.invalid/simple")


@pytest.mark.parametrize("name", installer.CHOICES)
def test_install_takes_the_package_from_the_index_pip_is_configured_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """``installer.install`` into a new venv: ``demo==1.0+local`` is on the local index
    alone, so only an installer given pip's sources finds it; uv and pip alike."""
    _local_index(tmp_path, monkeypatch)
    for variable in sources.UV_SOURCES:
        monkeypatch.delenv(variable)
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, name)
    where = Location("test")
    installer.make_venv(tmp_path / "venv", where, "no venv")
    python = tmp_path / "venv" / "bin" / "python"
    settings = sources.read(python)
    assert sources.uv_options(settings) == [
        *("--index-strategy", "unsafe-best-match", "--index-url", settings["index-url"])
    ]
    done = installer.install(python, ["demo==1.0+local"], where, "not installed")
    assert done == name
    shown = subprocess.run(
        [
            str(python),
            "-c",
            "import demo, importlib.metadata as m; print(demo.V, m.version('demo'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.split() == ["7", "1.0+local"]
    (info,) = (tmp_path / "venv").glob("lib/python*/site-packages/demo-1.0+local.dist-info")
    assert (info / "INSTALLER").read_text().strip() == name
    compiled = list((info.parent / "demo" / "__pycache__").glob("__init__.*.pyc"))
    assert len(compiled) == 1  # compiled as pip compiles what it installs


def test_an_install_whose_sources_uv_is_not_given_fails_with_a_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing on the index pip is configured with: the installer's error, at its place,
    with uv's last lines; uv's own sources (set here) are not read."""
    _local_index(tmp_path, monkeypatch)
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, "uv")
    where = Location("requirements/x.txt", 3)
    installer.make_venv(tmp_path / "venv", where, "no venv")
    python = tmp_path / "venv" / "bin" / "python"
    with pytest.raises(PolybookError) as raised:
        installer.install(python, ["demo==2.0"], where, "demo did not install")
    said = str(raised.value)
    assert said.startswith("requirements/x.txt:3: demo did not install:\n")
    assert "demo==2.0" in said and "uv.invalid" not in said
    assert "[polybook.env]" in said


def _pip_resolves(requirements: Path) -> dict[str, str]:
    command = [str(PYTHON), "-m", "pip", "install", "--dry-run", "--ignore-installed"]
    command += ["--quiet", "--report", "-", "--requirement", str(requirements)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    return {
        canonical(item["metadata"]["name"]): item["metadata"]["version"]
        for item in report["install"]
    }


def _uv_resolves(requirements: Path) -> dict[str, str]:
    uv = installer.current().uv
    assert uv is not None, installer.current().why
    settings = sources.read(PYTHON)
    assert sources.unfollowed(settings) == []
    command = [str(uv), "pip", "compile", "--quiet", "--no-header", "--no-annotate"]
    command += ["--no-config", "--python", str(PYTHON), *sources.uv_options(settings)]
    done = subprocess.run(
        [*command, str(requirements)],
        capture_output=True,
        text=True,
        check=True,
        env=sources.uv_environ(settings, os.environ),
    )
    pins = [line.strip().split("==", 1) for line in done.stdout.splitlines() if "==" in line]
    return {canonical(name): version for name, version in pins}


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_uv_resolves_each_framework_set_as_pip_does(name: str, device: str) -> None:
    """With this host's pip configuration (extra indexes, find-links, constraints), the
    same names and versions, local build tags included (``torch 2.13.0+cpu`` here)."""
    requirements = REQUIREMENTS / device / f"{name}.txt"
    by_pip = _pip_resolves(requirements)
    assert _uv_resolves(requirements) == by_pip
    assert any(dist in by_pip for dist in shipped(name).distributions)


@pytest.mark.slow
def test_uv_installs_and_pip_installs_where_asked_or_where_uv_cannot_follow_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same environment either way (pip in it, as ``python -m venv`` leaves it); why
    pip installs said once however many environments it sets up."""

    def installed(name: str) -> dict[str, str]:
        """Each distribution of the environment (``toolz-1.2.0``), and what installed it."""
        env = environment(root, name)
        assert venvs.problem(env) == ""
        infos = env.path.glob("lib/python*/site-packages/*.dist-info")
        return {
            i.name.removesuffix(".dist-info"): (i / "INSTALLER").read_text().strip() for i in infos
        }

    root = tiny_book(tmp_path / "book", "bare, flat")
    done = run(root, "env", "setup", "--no-verify", "--tab", "bare")
    assert done.returncode == 0, done.stderr
    assert "installing with pip" not in done.stderr
    by_uv = installed("bare")
    assert set(by_uv.values()) == {"uv"} and "toolz-1.2.0" in by_uv
    conf = tmp_path / "pip.conf"
    conf.write_text("[install]\nprefer-binary = yes\n")  # a setting uv is not told of
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    (environment(root, "bare").path / venvs.STAMP).unlink()
    done = run(root, "env", "setup", "--no-verify")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("installing with pip: pip's configuration sets prefer-binary") == 1
    by_pip = installed("bare")
    assert by_pip["toolz-1.2.0"] == installed("flat")["tabulate-0.9.0"] == "pip"
    assert sorted(by_pip) == sorted(by_uv)  # the same distributions, the same versions
    monkeypatch.delenv("PIP_CONFIG_FILE")
    monkeypatch.setenv(installer.INSTALLER_VARIABLE, "pip")
    (environment(root, "flat").path / venvs.STAMP).unlink()
    done = run(root, "env", "setup", "--no-verify", "--tab", "flat")
    assert done.returncode == 0, done.stderr
    assert f"installing with pip: ${installer.INSTALLER_VARIABLE} is pip" in done.stderr
    assert set(installed("flat").values()) == {"pip"}
