"""``polybook compat``: every framework's sections checked against the pins the book is built
with, the newest release on the package index and the named targets of ``[compat]``; each
target a side build of ``polybook upgrade``'s (its side environment, its cache) compared with
the current build, and the results written to ``_build/compat/compat.json``. A target whose
resolved pins and pages' code are those of the last run is not run again."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

from nbformat import NotebookNode

from polybook.commands.build import finish, locked
from polybook.commands.drift import compare_with, running, side_build
from polybook.config import BookConfig
from polybook.config.ini_text import CONFIG_FILE, key_lines
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.drift import compat
from polybook.drift.compat_pins import ResolvedPins, moving, read_pins, resolve, target_pins
from polybook.drift.model import Side
from polybook.drift.report_html import render_html
from polybook.drift.sides import current_build
from polybook.drift.upgrade import UpgradeRequest
from polybook.fsutil import write_atomic
from polybook.site.compat import COMPAT_LINK

logger = logging.getLogger("polybook")
COMPAT = "compat.json"


def targets_of(config: BookConfig) -> list[tuple[str, Path | None]]:
    """The targets to check: ``newest`` (unless ``[compat] newest = false``), then each
    ``NAME=FILE`` of ``[compat] targets``, its file resolved in the book."""
    found: list[tuple[str, Path | None]] = [(compat.NEWEST, None)] if config.compat.newest else []
    try:
        text = (config.root / CONFIG_FILE).read_text(encoding="utf-8")
    except OSError:
        text = ""
    where = Location(CONFIG_FILE, key_lines(text).get(("compat", "targets"), 0))
    for word in config.compat.targets:
        name, equals, file = word.partition("=")
        if not equals or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name) or not file:
            message = f"[compat] targets: {word!r} is not NAME=FILE (colab=requirements/colab.txt)"
            raise PolybookError(where, message, "compat.config")
        if name in (compat.BUILT, compat.NEWEST):
            message = f"[compat] targets: {name!r} names a target polybook checks itself"
            raise PolybookError(where, message, "compat.config")
        path = config.root / file
        if not path.resolve().is_relative_to(config.root.resolve()):
            message = f"[compat] targets: {name}: {file} lies outside the book"
            raise PolybookError(where, message, "compat.config")
        if not path.is_file():
            message = f"[compat] targets: {name}: no such requirement file: {file}"
            raise PolybookError(where, message, "compat.config")
        found.append((name, path))
    return found


def _version(fw_versions: dict[str, str], distributions: tuple[str, ...]) -> str:
    for name in distributions:
        if name in fw_versions:
            return f"{name.removesuffix('-cpu')} {fw_versions[name]}"
    return ""


def _reports(config: BookConfig) -> Path:
    return config.layout.output_dir("compat") / "reports"


class Checker:
    """One run of ``polybook compat``: the current build, the last run's record, and the
    record this run makes."""

    def __init__(self, config: BookConfig, tabs: tuple[str, ...], reporter: Reporter) -> None:
        self.config, self.tabs, self.reporter = config, tabs, reporter
        self.folder = config.layout.output_dir("compat")
        self.previous = compat.read_record(self.folder / COMPAT)
        self.record = compat.CompatRecord(compat.now())
        with locked(config):
            self.current = current_build(config.book, running(config, tabs), tabs)

    def _previous(self, fw: str, target: str) -> list[compat.SectionResult]:
        held = self.previous.results if self.previous else []
        return [r for r in held if r.framework == fw and r.target == target]

    def _previous_target(self, fw: str, target: str) -> compat.TargetRecord | None:
        held = self.previous.targets if self.previous else []
        return next((t for t in held if t.framework == fw and t.target == target), None)

    def _pins(self, fw: str) -> Path:
        """The framework's pins and the book's own (``[build] requirements``) in one file:
        the set a target resolves again (a book's torchvision moves with torch)."""
        pins = read_pins(self.config.framework(fw).requirements("cpu"))
        for extra in self.config.extra_requirements(fw):
            pins.update(read_pins(extra))
        text = "".join(f"{k}=={v}\n" for k, v in sorted(pins.items()))
        path = self.folder / "pins" / f"{fw}-built.txt"
        write_atomic(path, text)
        return path

    def check(self, fw: str, targets: list[tuple[str, Path | None]]) -> None:
        spec = self.config.framework(fw)
        notebooks = {
            k: nb for k, nb in self.current.notebooks.items() if k[1] == fw and compat.ran(nb)
        }  # the pages the current build ran
        if not notebooks or not spec.declared:
            return
        built_versions = dict(self.current.versions.get(fw, {}))
        pins_file = self._pins(fw)
        built = read_pins(pins_file)
        package = next((d for d in spec.distributions if d in built), spec.distributions[0])
        self.record.frameworks[fw] = {"display": spec.display_name, "package": package}
        built_digest = ResolvedPins(pins_file, built).digest
        version = _version(built_versions or built, spec.distributions)
        today = compat.today()
        results = compat.judge_built(notebooks, version, built_digest, today)
        self.record.targets.append(
            compat.TargetRecord(fw, compat.BUILT, built_digest, built_versions or built, today)
        )
        self.record.results += results
        for name, file in targets:
            self._target(fw, name, file, notebooks, results, (pins_file, built))

    def _target(
        self,
        fw: str,
        name: str,
        file: Path | None,
        notebooks: dict[tuple[str, str], NotebookNode],
        built_results: list[compat.SectionResult],
        built: tuple[Path, dict[str, str]],
    ) -> None:
        spec = self.config.framework(fw)
        pins_file, built_pins = built
        out = self.folder / "pins" / f"{fw}-{name}.txt"
        python = f"{sys.version_info.major}.{sys.version_info.minor}"
        if file is not None and not set(spec.distributions) & set(read_pins(file)):
            note = f"{file.name} names no {' or '.join(spec.distributions)}: the target has none"
            self.record.targets.append(compat.TargetRecord(fw, name, "", {}, "", note=note))
            return
        try:
            upgrade = moving(spec.distributions, built_pins)
            held = None if file is None else target_pins(file, spec.distributions, built_pins)
            pins = resolve(pins_file, upgrade, held, out, python)
        except PolybookError as err:
            self.reporter.warn(err.location, f"{fw}, target {name}: {err}", "compat.resolve")
            note = "the installer found no pins"
            self.record.targets.append(compat.TargetRecord(fw, name, "", {}, "", note=note))
            return
        version = _version(pins.versions, spec.distributions)
        today = compat.today()
        if all(pins.versions.get(k) == v for k, v in built_pins.items()):  # nothing newer
            same = [replace(r, target=name) for r in built_results]
            self.record.results += same
            target = compat.TargetRecord(fw, name, pins.digest, pins.versions, today)
            self.record.targets.append(replace(target, same_as_built=True))
            return
        keys = {
            page: compat.result_key(nb, pins.digest)
            for (page, _), nb in notebooks.items()
            if compat.has_code(nb)
        }
        kept = compat.reused(self._previous(fw, name), keys)
        last = self._previous_target(fw, name)
        if kept is not None and last is not None and last.pins == pins.digest:
            logger.info("%s, target %s: nothing changed since %s", fw, name, last.checked)
            self.record.results += kept
            self.record.targets.append(last)
            return
        self._run(fw, name, pins, version, notebooks)

    def _run(
        self,
        fw: str,
        name: str,
        pins: ResolvedPins,
        version: str,
        notebooks: dict[tuple[str, str], NotebookNode],
    ) -> None:
        side_name = f"compat-{fw}-{name}"
        pages = frozenset(page for page, _ in notebooks)  # those the current build holds
        request = UpgradeRequest(fw, pins.path, side_name, pages)
        before = Side(self.current.label, notebooks, self.current.versions)
        logger.info("%s, target %s: running the notebooks with %s", fw, name, version)
        started = time.monotonic()
        with locked(replace(self.config, side=side_name)):
            after = side_build(request, self.config, self.reporter, extras=())
        if after is None:
            note = "the pages did not read"
            self.record.targets.append(
                compat.TargetRecord(fw, name, pins.digest, {}, "", note=note)
            )
            return
        drift = compare_with(before, after, self.config, self.reporter)
        report = _reports(self.config) / f"{fw}-{name}.html"
        in_site = f"{COMPAT_LINK}/{report.parent.name}"  # where the site holds it
        write_atomic(report, render_html(drift, self.config.layout, report, in_site))
        link = report.relative_to(self.folder).as_posix()
        today = compat.today()
        found = compat.judge_target(
            name, notebooks, after.notebooks, drift, version, pins.digest, link, today
        )
        self.record.results += found
        versions = dict(after.versions.get(fw, {})) or pins.versions
        self.record.targets.append(
            compat.TargetRecord(fw, name, pins.digest, versions, today, link)
        )
        logger.info("%s, target %s: %.0f s", fw, name, time.monotonic() - started)

    def write(self) -> Path:
        """``compat.json``: this run's results, and the last run's of the frameworks and
        targets this run did not check (``--tab``, ``--target``)."""
        checked = {(t.framework, t.target) for t in self.record.targets}
        if self.previous is not None:
            kept = [t for t in self.previous.targets if (t.framework, t.target) not in checked]
            self.record.targets += kept
            self.record.results += [
                r for r in self.previous.results if (r.framework, r.target) not in checked
            ]
            for fw, names in self.previous.frameworks.items():
                self.record.frameworks.setdefault(fw, names)
        path = self.folder / COMPAT
        write_atomic(path, json.dumps(compat.to_json(self.record), indent=1) + "\n")
        return path


def newly_failing(previous: compat.CompatRecord | None, record: compat.CompatRecord) -> str:
    """Markdown listing the sections that fail now and did not in ``previous`` (for the
    same framework and target); "" where none newly fails."""
    held = previous.results if previous is not None else []
    failed = {(r.page, r.framework, r.target) for r in held if r.status == "fails"}
    new = [
        r
        for r in record.results
        if r.status == "fails" and (r.page, r.framework, r.target) not in failed
    ]
    if not new:
        return ""
    lines = [f"`polybook compat` of {record.made}: these sections newly fail.", ""]
    for r in new:
        first = (
            f" — cell {r.first.cell} (line {r.first.line}): `{r.first.error}`" if r.first else ""
        )
        lines.append(f"- {r.page} [{r.framework}] with {r.target} ({r.version}){first}")
    return "\n".join(lines) + "\n"


def _print(record: compat.CompatRecord, path: Path) -> None:
    for (fw, target), counts in sorted(compat.summary(record).items()):
        shown = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        versions = next(
            (_version(dict(t.versions), (record.frameworks[fw]["package"],)) for t in record.targets
             if t.framework == fw and t.target == target),
            "",
        )  # fmt: skip
        print(f"{fw:<12} {target:<10} {versions:<22} {shown}")
    for t in record.targets:
        if t.note:
            print(f"{t.framework:<12} {t.target:<10} not checked: {t.note}")
    print(f"written to {path}")


def compat_command(
    args: argparse.Namespace, config: BookConfig, tabs: tuple[str, ...], reporter: Reporter
) -> int:
    """``polybook compat``: each of ``tabs`` against each target; ``--target`` picks some."""
    targets = targets_of(config)
    wanted = [w for w in (args.target or "").replace(",", " ").split() if w]
    known = {compat.BUILT, *(name for name, _ in targets)}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        message = f"no target named {unknown[0]!r} (targets: {', '.join(sorted(known))})"
        raise PolybookError(Location("--target"), message, "cli")
    chosen = [t for t in targets if not wanted or t[0] in wanted]
    checker = Checker(config, tabs, reporter)
    if not checker.current.notebooks:
        message = f"the current build holds no executed notebook of {', '.join(tabs)}"
        raise PolybookError(
            Location("polybook compat"), f"{message} (`polybook build eval`)", "compat"
        )
    for fw in tabs:
        checker.check(fw, chosen)
    path = checker.write()
    _print(checker.record, path)
    if args.newly_failing:
        write_atomic(Path(args.newly_failing), newly_failing(checker.previous, checker.record))
    return finish(reporter, strict=False)
