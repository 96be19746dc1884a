"""``polybook doctor``: one screen of what is installed and what is missing, each missing
thing with the command that fixes it: polybook, the book's framework environments and
their kernels, the host's GPUs and CUDA, TeX for the PDFs, Chromium, the browser assets."""

from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import metadata

from polybook.config import BookConfig
from polybook.diagnostics import PolybookError
from polybook.environments import devices, installer, venvs
from polybook.environments.assets import assets_current
from polybook.paths import PACKAGE_ROOT, assets_dir
from polybook.pdf.latex import FONTS, INSTALL_COMMAND, missing_tools
from polybook.render.assets import mathjax

OK, MISSING = "ok", "missing"


@dataclass(frozen=True)
class Finding:
    """One line of the report: what, its state, what was found, and the fix when missing."""

    topic: str
    state: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = "✓" if self.state == OK else "✗"
        text = f"  {mark} {self.topic:<13} {self.detail}"
        return text + (f"\n      fix: {self.fix}" if self.fix else "")


def _version() -> str:
    try:
        return metadata.version("polybook")
    except metadata.PackageNotFoundError:
        return "?"


def _kernel(env: venvs.Environment) -> str:
    spec = env.kernels_dir / env.kernel_name / "kernel.json"
    try:
        current = json.loads(spec.read_bytes()) == venvs.kernelspec(env)
    except (OSError, ValueError):
        return ""
    return env.kernel_name if current else ""


def environment_findings(config: BookConfig) -> list[Finding]:
    """Each tab's environment: its framework's version, requirement set and kernel, or what
    is wrong with it."""
    found: list[Finding] = []
    device = devices.resolve_device(config.device)
    for name in config.tabs:
        fix = venvs.setup_command(name)
        settings = config.env_for(name)
        if settings.python:
            found.append(Finding(name, OK, f"an existing Python: {settings.python}"))
            continue
        try:
            env = venvs.book_environment(config, name, device, config.envs)
        except PolybookError as err:
            found.append(Finding(name, MISSING, str(err).splitlines()[0]))
            continue
        why = venvs.problem(env)
        if why:
            found.append(Finding(name, MISSING, f"{env.path}: {why}", fix))
            continue
        kernel = _kernel(env)
        what = f"{env.framework_version() or env.spec.lib_name}, {device} set, in {env.path}"
        if not kernel:
            found.append(Finding(name, MISSING, f"{what}; its kernelspec is not current", fix))
            continue
        found.append(Finding(name, OK, f"{what}; kernel {kernel}"))
    return found


def installer_finding() -> Finding:
    """What installs the environments' packages: uv, else pip and why."""
    try:
        used = installer.current()
    except PolybookError as err:  # $POLYBOOK_INSTALLER names neither
        return Finding("installer", MISSING, str(err).splitlines()[0])
    fix = "" if used.uv or used.asked else "make setup (or: pip install uv)"
    return Finding("installer", MISSING if fix else OK, used.describe(), fix)


def gpu_finding() -> Finding:
    """The GPUs this process may use, and the CUDA version the driver supports."""
    gpus = devices.host_gpus()
    if not gpus:
        return Finding("GPUs", OK, "none: notebooks run on the CPU (the cpu requirement sets)")
    smi = shutil.which("nvidia-smi")
    cuda = ""
    if smi:
        try:
            done = subprocess.run([smi], capture_output=True, text=True, timeout=20, check=False)
            out = done.stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        match = re.search(r"CUDA Version:\s*([\d.]+)", out)
        cuda = f", CUDA {match.group(1)} (driver)" if match else ""
    return Finding("GPUs", OK, f"{gpus} allotted{cuda}: the cuda requirement sets")


def tex_finding() -> Finding:
    """The programs and fonts a PDF needs."""
    missing = missing_tools()
    fc_list = shutil.which("fc-list")
    for font in FONTS:
        if fc_list is None:
            missing.append(font)
            continue
        done = subprocess.run([fc_list, "-q", font], capture_output=True, check=False)
        if done.returncode != 0:
            missing.append(font)
    if missing:
        return Finding("TeX (PDF)", MISSING, "lacks " + ", ".join(missing), INSTALL_COMMAND)
    return Finding("TeX (PDF)", OK, "xelatex, latexmk, rsvg-convert and the fonts")


def chromium_finding() -> Finding:
    """Headless Chromium: the browser tests and screenshots of the site use it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        fix = "sudo apt-get install --no-install-recommends chromium"
        return Finding("Chromium", MISSING, "not found (the site's browser tests)", fix)
    return Finding("Chromium", OK, found)


def assets_finding() -> Finding:
    """MathJax from npm, copied into every site for math that works offline."""
    fix = "polybook env assets" + ("" if shutil.which("npm") else " (needs npm: Node.js)")
    if not mathjax().is_dir():
        return Finding("node assets", MISSING, f"no MathJax in {assets_dir()}", fix)
    if not assets_current():
        return Finding("node assets", MISSING, f"{assets_dir()} is older than the lock", fix)
    return Finding("node assets", OK, f"MathJax in {mathjax()}")


def report(config: BookConfig | None) -> tuple[list[str], bool]:
    """The lines ``polybook doctor`` prints, and whether the book's environments are ready."""
    python = f"Python {platform.python_version()}"
    lines = [f"polybook {_version()} ({PACKAGE_ROOT}, {python})"]
    ready = True
    if config is None:
        lines.append("no book here (no config.ini in this folder or above; or --root DIR)")
    else:
        where = "shared by books" if config.envs.shared else "the book's own"
        lines.append(f"book {config.root} (tabs: {', '.join(config.tabs)})")
        lines.append(f"environments in {config.envs.path} ({where}):")
        found = environment_findings(config)
        ready = all(f.state == OK for f in found)
        lines += [f.line() for f in found]
    lines.append("this host:")
    lines.append(installer_finding().line())
    for finding in (gpu_finding(), tex_finding(), chromium_finding(), assets_finding()):
        lines.append(finding.line())
    return lines, ready


def doctor(config: BookConfig | None) -> int:
    """Print the report; 1 when one of the book's environments is missing or broken."""
    lines, ready = report(config)
    print("\n".join(lines))
    return 0 if ready else 1
