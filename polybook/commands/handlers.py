"""One handler a subcommand of ``polybook``: :data:`HANDLERS` maps each subcommand's name to
the function that runs it, given the parsed arguments and the reporter its problems go to.
The commands that work on a book open it first with :func:`open_book`."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from polybook.commands import build as commands
from polybook.commands.arguments import config_overrides
from polybook.commands.editions import editions_command
from polybook.config import BookConfig, find_book_root, load_config
from polybook.config.executors import unhonoured
from polybook.diagnostics import Location, PolybookError, Reporter
from polybook.execution.executors.registry import check_executor
from polybook.pipeline.execution import BookEnvironments
from polybook.pipeline.registry import registered
from polybook.pipeline.request import BuildRequest
from polybook.site.output import OUTPUT as SITE

Handler = Callable[[argparse.Namespace, Reporter | None], int]


@dataclass(frozen=True)
class OpenBook:
    """What a command on a book works with: its configuration, the frameworks asked for
    (``--tab``) and the reporter, set up for the book's ``suppress_warnings``."""

    config: BookConfig
    tabs: tuple[str, ...]
    reporter: Reporter


def select_tabs(config: BookConfig, tab: str) -> tuple[str, ...]:
    """The frameworks ``--tab`` names (every tab of the book when empty or ``all``)."""
    if tab in ("", "all"):
        return config.build.tabs
    names = tuple(t.strip() for t in tab.split(",") if t.strip())
    unknown = [n for n in names if n not in config.build.tabs]
    if unknown:
        message = f"unknown tab {unknown[0]!r} (book tabs: {', '.join(config.build.tabs)})"
        raise PolybookError(Location("--tab"), message, "cli")
    return names


def _root(args: argparse.Namespace) -> Path:
    if args.root is None:
        return find_book_root(Path.cwd())
    root = Path(args.root)
    if not (root / "config.ini").is_file():
        message = f"no config.ini in {root.resolve()}: --root names the folder that holds it"
        raise PolybookError(Location(str(root)), message, "config")
    return root


def _book_here(args: argparse.Namespace) -> BookConfig | None:
    """The book of ``--root``, else of the current folder if it is in one."""
    try:
        root = _root(args)
    except PolybookError:
        if args.root is not None:
            raise
        return None  # not in a book
    return _load(root, args)


def _load(root: Path, args: argparse.Namespace) -> BookConfig:
    """The config of the book at ``root``, with the options' overrides, its executor checked
    (the executors are declared by their package, not by the config's schema)."""
    config = load_config(root, config_overrides(args))
    check_executor(config.root, config.build.executor)
    return replace(config, ignored=(*config.ignored, *unhonoured(config.root, config.build)))


def open_book(args: argparse.Namespace, reporter: Reporter | None) -> OpenBook:
    """The book ``--root`` (or the current folder) holds, with the options' overrides."""
    config = _load(_root(args), args)
    if getattr(args, "trust", False):  # never from config.ini: a book cannot vouch for itself
        config = replace(config, trusted=True)
    reporter = reporter or Reporter()
    reporter.suppressed = frozenset(config.build.suppress_warnings)
    reporter.forward(config.ignored)
    return OpenBook(config, select_tabs(config, getattr(args, "tab", "")), reporter)


def worker(args: argparse.Namespace, reporter: Reporter | None) -> int:
    """``polybook worker``: a host of a cluster, for the executor ``--executor`` names (else
    the book's, where it has workers, else the first that has); its section's values are the
    options', over the book's where it runs in one."""
    from polybook.commands.worker import start_worker

    return start_worker(args, _book_here(args))


def new(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.starter.book import new_book

    return new_book(Path(args.dir), args.frameworks, args.ci, args.gpu_runner)


def doctor(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.commands.doctor import doctor as report

    return report(_book_here(args))


def env(args: argparse.Namespace, reporter: Reporter | None) -> int:
    """``polybook env setup|kernels|assets``; the browser assets need no book."""
    if args.action == "assets":
        from polybook.environments.assets import install_assets

        print(f"the browser assets are in {install_assets()}")
        return 0
    book = open_book(args, reporter)
    if args.action == "setup":
        BookEnvironments(book.config).set_up(book.tabs, verify=not args.no_verify)
        return 0
    from polybook.authoring.lab import install_user_kernels

    if not args.user:
        kernels = sorted(
            {str(e.kernels_dir) for e in BookEnvironments(book.config).set_up(book.tabs)}
        )
        print(f"the kernels are in {', '.join(kernels)}; --user installs them for any Jupyter")
        return 0
    for place in install_user_kernels(BookEnvironments(book.config).set_up(book.tabs)):
        print(f"installed {place.name} in {place}")
    return 0


def check(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.commands.check import check_book

    book = open_book(args, reporter)
    check_book(book.config, book.tabs, book.reporter)
    return commands.finish(book.reporter, strict=True)


def editions(args: argparse.Namespace, reporter: Reporter | None) -> int:
    book = open_book(args, reporter)
    return editions_command(args, book.config, book.reporter)


def lab(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.authoring.lab import lab_frameworks, run_lab

    book = open_book(args, reporter)
    # Every book framework has its kernel (set up first); pages open with the first --tab.
    found = BookEnvironments(book.config).set_up(lab_frameworks(book.config.book, book.tabs))
    return run_lab(book.config.book, found, book.tabs[0], args.port, args.lab_options)


def serve(args: argparse.Namespace, reporter: Reporter | None) -> int:
    """``polybook serve``: each rebuild reads config.ini again, and keeps Sphinx warm."""
    from polybook.commands.serve import serve as serve_book
    from polybook.profiling import profiled
    from polybook.site.stage import SphinxKeeper

    config = open_book(args, reporter).config
    keeper = SphinxKeeper()
    first = True

    def rebuild(found: Reporter, pages_out: Callable[[], None]) -> int:  # problems shown too
        nonlocal first
        current = _load(config.root, args)
        # The open pages take the new ones as soon as they are written, before the link
        # check (it only warns), unless a warning fails the build.
        keeper.pages_out = None if current.build.strict else pages_out
        found.suppressed = frozenset(current.build.suppress_warnings)
        found.forward(current.ignored)
        request = BuildRequest(SITE, select_tabs(current, args.tab), None, registered())
        # The first build runs every stage even where nothing changed: the process then
        # holds what the next builds reuse (its imports, the pages' parsed code, a warm
        # Sphinx), and the first save reaches the browser as soon as the later ones.
        force, first = first, False
        with commands.locked(current), profiled("serve"):
            code = commands.build(request, current, found, keeper=keeper, force=force)
        if force:  # what the first build keeps (parses, memos): out of the collector's walks
            gc.freeze()
        return code

    try:
        return serve_book(config, rebuild, args.port)
    finally:
        keeper.close()


def linkcheck(args: argparse.Namespace, reporter: Reporter | None) -> int:
    """``polybook linkcheck``: the site's build (which checks its internal links), then its
    external links; the worse of the two exit statuses."""
    from polybook.commands.linkcheck import check_external

    book = open_book(args, reporter)
    config = book.config
    with commands.locked(config):
        request = BuildRequest(SITE, book.tabs, None, registered())
        built = commands.build(request, config, book.reporter)
    if built or not (config.layout.html / "index.html").is_file():
        return built or 1
    external = Reporter(suppressed=frozenset(config.build.suppress_warnings))
    check_external(config, external, args.timeout)
    return commands.finish(external, config.build.strict)


def freeze(args: argparse.Namespace, reporter: Reporter | None) -> int:
    book = open_book(args, reporter)
    if not args.pages and not args.all and not args.rekey and not args.status:
        message = "name the pages, or --all (or --rekey, --status)"
        raise PolybookError(Location("polybook freeze"), message, "cli")
    whole = args.all or args.rekey or args.status
    with commands.locked(book.config):
        pages = None if whole else commands.resolve_pages(book.config, args.pages)
        return commands.freeze_command(
            book.config, book.tabs, pages, book.reporter, args.rekey, args.status
        )


def diff(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.commands.drift import diff_command

    book = open_book(args, reporter)
    return diff_command(args, book.config, book.tabs, book.reporter)


def upgrade(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.commands.drift import upgrade_command

    book = open_book(args, reporter)
    return upgrade_command(args, book.config, book.tabs, book.reporter)


def compat(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.commands.compat import compat_command

    book = open_book(args, reporter)
    return compat_command(args, book.config, book.tabs, book.reporter)


def baseline(args: argparse.Namespace, reporter: Reporter | None) -> int:
    from polybook.commands.drift import baseline_command

    book = open_book(args, reporter)
    return baseline_command(args, book.config, book.tabs)


def cache(args: argparse.Namespace, reporter: Reporter | None) -> int:
    """``polybook cache clear``."""
    book = open_book(args, reporter)
    with commands.locked(book.config):
        return commands.clear_cache(book.config)


def build(args: argparse.Namespace, reporter: Reporter | None) -> int:
    book = open_book(args, reporter)
    with commands.locked(book.config):
        pages = commands.resolve_pages(book.config, args.pages)
        outputs = tuple(args.outputs.values())
        request = BuildRequest(args.outputs[args.target], book.tabs, pages, outputs)
        return commands.build(request, book.config, book.reporter, args.report)


HANDLERS: dict[str, Handler] = {
    "new": new,
    "build": build,
    "check": check,
    "linkcheck": linkcheck,
    "serve": serve,
    "env": env,
    "doctor": doctor,
    "cache": cache,
    "freeze": freeze,
    "diff": diff,
    "upgrade": upgrade,
    "compat": compat,
    "baseline": baseline,
    "editions": editions,
    "lab": lab,
    "worker": worker,
}
