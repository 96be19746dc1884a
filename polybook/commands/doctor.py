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

from packaging.requirements import Requirement

from polybook import plugins
from polybook.config import BookConfig
from polybook.config.requirements import normalized_pin
from polybook.diagnostics import PolybookError
from polybook.environments import devices, installer, venvs
from polybook.environments.assets import assets_current
from polybook.environments.gpu_info import gpu_info
from polybook.paths import PACKAGE_ROOT, assets_dir
from polybook.pdf.latex import FONTS, INSTALL_COMMAND, missing_tools
from polybook.pipeline.execution import BookEnvironments
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
    device = devices.resolve_device(config.build.device)
    for name in config.build.tabs:
        fix = venvs.setup_command(name)
        settings = config.env_for(name)
        if settings.python:
            found.append(existing_finding(name, settings.python, config.framework(name).module))
            continue
        try:
            env = BookEnvironments(config).one(name, device)
        except PolybookError as err:
            found.append(Finding(name, MISSING, str(err).splitlines()[0]))
            continue
        why = venvs.problem(env) or pins_problem(env) or venvs.import_problem(env)
        if why:
            found.append(Finding(name, MISSING, f"{env.path}: {why}", fix))
            continue
        kernel = _kernel(env)
        what = f"{env.framework_version() or env.spec.module}, {device} set, in {env.path}"
        if not kernel:
            found.append(Finding(name, MISSING, f"{what}; its kernelspec is not current", fix))
            continue
        found.append(Finding(name, OK, f"{what}; kernel {kernel}"))
    return found


def _canonical(pin: str) -> str:
    """``name==version`` as both a pin and an installed distribution compare: the name
    normalised (PEP 503), the version without its local part (``2.5.1+cpu``)."""
    name, _, version = normalized_pin(pin).partition("==")
    return f"{re.sub(r'[-_.]+', '-', name)}=={version.split('+')[0]}"


def pins_problem(env: venvs.Environment) -> str:
    """The pins of ``env``'s requirement files that its venv does not hold ("": none): a
    stamp says an install finished, not that what it installed is still there."""
    installed = set()
    for info in env.path.glob("lib/python*/site-packages/*.dist-info"):
        name, _, version = info.name.removesuffix(".dist-info").rpartition("-")
        installed.add(_canonical(f"{name}=={version}"))
    wanted = []
    for path in (env.requirements, *env.extras):
        for line in path.read_text(encoding="utf-8").splitlines():
            pin = line.split("#")[0].split(";")[0].strip()
            if "==" in pin and not pin.startswith("-"):
                wanted.append(_canonical(pin))
    missing = [pin for pin in wanted if pin not in installed]
    if not missing:
        return ""
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    return f"its packages do not match its pins: {', '.join(missing[:3])}{more} not installed"


def existing_finding(name: str, python: str, module: str) -> Finding:
    """An ``[env-<tab>] python``: it runs, and imports the framework and ipykernel."""
    fix = f"point [env-{name}] python at a Python that imports {module} and ipykernel"
    try:
        done = subprocess.run(
            [python, "-c", f"import ipykernel, {module}"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Finding(name, MISSING, f"an existing Python: {python} does not run ({exc})", fix)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        why = f"cannot import ipykernel and {module} ({last})"
        return Finding(name, MISSING, f"an existing Python: {python} {why}", fix)
    return Finding(name, OK, f"an existing Python: {python}, imports {module} and ipykernel")


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
    info = gpu_info()
    said = f" ({info.describe()}, {info.memory_mib:,} MiB)" if info.memory_mib else ""
    cuda = f", CUDA {info.cuda} (driver)" if info.cuda else ""
    return Finding("GPUs", OK, f"{gpus} allotted{cuda}{said}: the cuda requirement sets")


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


def install_findings(config: BookConfig) -> list[Finding]:
    """Where the students' notebooks install the book's library from, what keeps that from
    working (the package index asked through pip), and whether another project holds the
    library's name on the index."""
    from polybook.library.index import OTHER, check_library
    from polybook.library.package_spec import package_folder
    from polybook.notebooks.library_source import INDEX, install_problems, sources
    from polybook.notebooks.output import install_settings

    try:
        package = package_folder(config.book).name
        found = sources(install_settings(config), package, config.build.tabs)
    except PolybookError as err:
        return [Finding("library", MISSING, err.diagnostic.message)]
    files = [config.root / config.library_for(fw).lib_file for fw in config.build.tabs]
    modules = {f.name: f.read_text(encoding="utf-8") for f in files if f.is_file()}
    problems = install_problems(install_settings(config), package, modules, config.build.tabs)
    said = {p.requirement for p in problems}  # one line per check: its problem, else ✓
    lines = [
        Finding("library", OK, f"{s.requirement} ({s.origin})")
        for s in found
        if s.requirement not in said
    ]
    for problem in problems:
        state = OK if problem.level == "note" else MISSING
        lines.append(Finding("library", state, problem.said, problem.fix))
    if not config.library.package and all(s.origin != INDEX for s in found):
        named = check_library(Requirement(package), package, modules)
        if named.state == OTHER:
            lines.append(Finding("library name", MISSING, named.detail, "[library] package"))
    return lines


def plugin_findings() -> list[Finding]:
    """The plugins installed (entry points ``polybook.outputs``, ``polybook.executors``),
    each loaded: one that does not load says why."""
    from polybook.config.executors import load_executor
    from polybook.pipeline.registry import load_output

    loaders: dict[str, plugins.Load[object]] = {
        plugins.OUTPUTS_GROUP: load_output,
        plugins.EXECUTORS_GROUP: load_executor,
    }
    found = []
    for group, load in loaders.items():
        for plugin, point in plugins.found(group):
            try:
                load(plugin, point)
            except PolybookError as err:
                fix = f"reinstall or uninstall {plugin.package.split()[0]}"
                found.append(Finding("plugin", MISSING, str(err.diagnostic), fix))
            else:
                found.append(Finding("plugin", OK, str(plugin)))
    return found


def report(config: BookConfig | None) -> tuple[list[str], bool]:
    """The lines ``polybook doctor`` prints, and whether the book's environments are ready."""
    python = f"Python {platform.python_version()}"
    lines = [f"polybook {_version()} ({PACKAGE_ROOT}, {python})"]
    ready = True
    if config is None:
        lines.append("no book here (no config.ini in this folder or above; or --root DIR)")
    else:
        where = "shared by books" if config.envs.shared else "the book's own"
        lines.append(f"book {config.root} (tabs: {', '.join(config.build.tabs)})")
        lines.append(f"environments in {config.envs.path} ({where}):")
        found = environment_findings(config)
        ready = all(f.state == OK for f in found)
        lines += [f.line() for f in found]
        lines.append("students' notebooks (what their first cell installs):")
        lines += [f.line() for f in install_findings(config)]
    found_plugins = plugin_findings()
    groups = " or ".join(plugins.GROUPS)
    lines.append("plugins:" if found_plugins else f"plugins: none (no entry point {groups})")
    lines += [f.line() for f in found_plugins]
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
