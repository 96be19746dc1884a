"""What the last successful build was made from, so that an unchanged book costs nothing.

The fingerprint covers every input by content: the tool's own code, the configuration the
output reads (every key but those declared read by other outputs only: a key's ``read_by``)
and the files its keys name, the command, the pages, resources and library files, and the
environments' pins. Beside it,
the state holds each file outside the pages that the pages read (an included file, a raw
file, an image), as Sphinx last recorded them, with its content's hash.
"""

from __future__ import annotations

import configparser
import functools
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from polybook.config import CONFIG_FILE, KEYS, BookConfig
from polybook.config.executors import executor_keys
from polybook.diagnostics import Diagnostic
from polybook.fsutil import file_hash, tree_hash, write_atomic
from polybook.output import Output
from polybook.paths import PACKAGE_ROOT as TOOL_ROOT
from polybook.pipeline.request import BuildRequest


def _hash_files(digest: hashlib._Hash, root: Path, paths: Iterable[Path]) -> None:
    for path in sorted(paths):
        found = file_hash(path)
        if found is not None:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(found)


def config_read(config: BookConfig, output: Output) -> str:
    """``config.ini`` as ``output``'s build reads it: its sections and keys, less the keys
    declared read by other stages only (``Key.read_by``); unreadable, the whole text."""
    path = config.root / CONFIG_FILE
    text = path.read_text(encoding="utf-8-sig") if path.is_file() else ""
    parser = configparser.ConfigParser(interpolation=None, default_section="\0")
    try:
        parser.read_string(text)
    except configparser.Error:
        return text
    declared = {(key.section, key.name): key for key in (*KEYS, *executor_keys())}
    kept: dict[str, dict[str, str]] = {}
    for section in parser.sections():
        for name, value in parser.items(section, raw=True):
            key = declared.get((section, name))
            if key is None or key.read_for(output.name, output.executes):
                kept.setdefault(section, {})[name] = value
    return json.dumps(kept, sort_keys=True)


def files_read(config: BookConfig, output: Output) -> list[Path]:
    """The files that the keys ``output`` reads of the outputs' sections name (the BibTeX
    file, the favicon, the logos)."""
    found = []
    for key in KEYS:
        section = getattr(config, key.section, None)  # None: a section per framework
        if section is not None and key.names_files and key.read_for(output.name, output.executes):
            found += [config.root / p for p in key.named_files(getattr(section, key.name))]
    return found


def code_digest(root: Path) -> bytes:
    """The digest of a tool's files under ``root`` (its modules, its top-level ``.ini``
    files, the files of its outputs' ``*/static/`` folders): each file's path, size and
    time of change, as Python tells a module's bytecode stale (no file is read)."""
    digest = hashlib.sha256()
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        inside = Path(folder).relative_to(root)
        static = inside.name == "static" and len(inside.parts) == 2
        for name in sorted(names):
            if name.endswith(".py") or (name.endswith(".ini") and not inside.parts) or static:
                found = os.stat(os.path.join(folder, name))
                digest.update(f"{(inside / name).as_posix()}|{found.st_size}|".encode())
                digest.update(f"{found.st_mtime_ns}\n".encode())
    return digest.digest()


@functools.cache
def _tool_files() -> bytes:
    """:func:`code_digest` of polybook, as this process found it (its code does not change
    under it: a new release is a new process)."""
    return code_digest(TOOL_ROOT)


def fingerprint(
    config: BookConfig, command: str, extra: Iterable[Path] = (), output: Output | None = None
) -> str:
    """The digest of what a build reads; ``output``: the output built (None: the whole
    configuration)."""
    digest = hashlib.sha256(command.encode())
    digest.update(_tool_files())
    root = config.root
    pages = {p for pattern in config.build.notebooks for p in root.glob(pattern)}
    if output is None:
        _hash_files(digest, root, [root / CONFIG_FILE])
    else:
        digest.update(config_read(config, output).encode())
    _hash_files(digest, root, pages)
    libraries = {str(root / config.library_for(fw).lib_file) for fw in config.build.tabs}
    for resource in config.build.resources:  # outputs (libraries) are checked by `unchanged`
        folder = root / resource
        inside = folder.relative_to(root).as_posix() if folder.is_relative_to(root) else ""
        tree_hash(digest, folder, f"{inside}/", libraries)
    for path in sorted(extra):
        digest.update(str(path).encode())
        digest.update(file_hash(path) or b"-")
    return digest.hexdigest()


def _outputs(config: BookConfig) -> dict[str, str]:
    """Hashes of the library files a build writes into the book."""
    found = {}
    for fw in config.build.tabs:
        path = config.root / config.library_for(fw).lib_file
        if path.is_file():
            found[path.as_posix()] = _hash(path)
    return found


def build_inputs(config: BookConfig, request: BuildRequest) -> str:
    """The fingerprint of what ``request``'s build reads: the command, the host's device,
    the environments' pins (existing interpreters: what they hold), the frozen outputs, the
    files the pages read (:func:`page_inputs`), what the output says it reads beside them
    (the site: the book's static files), and, for an output that holds others (the site),
    their files it holds (the PDFs, epubs and decks built before it)."""
    from polybook.environments import devices
    from polybook.environments.existing import fingerprints

    output = request.output
    device = devices.resolve_device(config.build.device)
    given = fingerprints(
        config.book, config.env_settings, request.tabs
    )  # existing environments: what they hold
    pages = sorted(request.pages or ())
    command = [output.name, request.tabs, pages, device, devices.host_gpus(), given]
    sets = ("cpu", "cuda") if output.all_requirement_sets else (device,)
    pins = [config.framework(fw).requirements(d) for fw in request.tabs for d in sets]
    pins += [path for fw in request.tabs for path in config.extra_requirements(fw)]
    freeze = config.layout.freeze  # frozen outputs (polybook.execution.frozen_outputs)
    frozen = sorted(p for p in freeze.rglob("*") if p.is_file()) if freeze.is_dir() else []
    held = request.outputs if output.holds_outputs else ()
    held_files = [p for o in held for p in o.held(config.layout, request.tabs).values()]
    extra = [*pins, *files_read(config, output), *frozen, *output.reads(config), *held_files]
    return fingerprint(config, json.dumps(command), extra, output)


def page_inputs(config: BookConfig, request: BuildRequest) -> dict[str, str]:
    """The files outside the pages that the last runs of the output's Sphinx read for them
    (an included file, a raw file, an image from the book), each with its content's hash
    now ("" for one that is gone)."""
    from polybook.render.page_inputs import read_inputs

    records = request.output.sphinx_reads(config.layout, request.tabs)
    paths = {p for record in records for p in read_inputs(record)}
    return {str(path): _hash(path) for path in sorted(paths)}


def _hash(path: Path) -> str:
    found = file_hash(path)
    return found.hex() if found is not None else ""


def outputs(config: BookConfig, request: BuildRequest) -> list[Path]:
    """What ``request``'s build writes: a build whose outputs are missing runs again."""
    return request.output.writes(config.layout, request.tabs)


def unchanged(
    config: BookConfig, inputs: str, outputs: Iterable[Path], reads: Mapping[str, str]
) -> bool:
    """True when the last successful build had these inputs, its pages' other files
    (``reads``: :func:`page_inputs`) are as it read them and its outputs are intact."""
    try:
        state = json.loads((config.layout.state).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        state.get("fingerprint") == inputs
        and state.get("reads", {}) == dict(reads)
        and state.get("libraries") == _outputs(config)
        and all(o.exists() for o in outputs)
    )


def record(
    config: BookConfig,
    request: BuildRequest,
    inputs: str,
    reads: Mapping[str, str],
    warnings: Iterable[Diagnostic] = (),
) -> None:
    """Called after a build without errors, with the fingerprint and the pages' files
    (``reads``) taken before it, and the warnings it gave (shown again by a build that
    finds nothing changed). A file the pages read for the first time is hashed now."""
    now = page_inputs(config, request)
    state = {
        "fingerprint": inputs,
        "reads": {path: reads.get(path, digest) for path, digest in now.items()},
        "libraries": _outputs(config),
        "warnings": [w.to_json() for w in warnings],
    }
    write_atomic(config.layout.state, json.dumps(state, indent=1))


def last_warnings(config: BookConfig) -> list[Diagnostic]:
    """The warnings of the last recorded build."""
    try:
        state = json.loads((config.layout.state).read_text(encoding="utf-8"))
        return [Diagnostic.from_json(w) for w in state.get("warnings", [])]
    except (OSError, ValueError, KeyError):
        return []


def forget(config: BookConfig) -> None:
    (config.layout.state).unlink(missing_ok=True)
