"""A build's process and its forks: the collector leaves what a fork inherited out of its
walks, and a kept process frees, once idle, what died since it forked."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Run in a process of its own: an at-fork handler, once registered, stays for the process.
PROGRAM = textwrap.dedent(
    """
    import gc, os, weakref
    from polybook import parallel

    parallel.collect_for_builds()
    parallel.forks_leave_inherited_uncollected()

    class Node:
        pass

    held = [Node() for _ in range(2000)]
    cycle = Node()
    cycle.me = cycle  # freed by the collector alone
    gone = weakref.ref(cycle)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(writer, str(gc.get_freeze_count()).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    print("child", os.read(reader, 64).decode())
    print("threshold", gc.get_threshold()[0])
    del cycle
    gc.collect()
    print("frozen cycle freed", gone() is None)
    parallel.collect_after_forks()
    print("after idle", gone() is None, gc.get_freeze_count() > 0)
    """
)


def _run() -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True, timeout=60
    )
    return {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}


def test_a_fork_leaves_what_it_inherited_to_refcounting_and_idle_time_frees_it() -> None:
    seen = _run()
    assert int(seen["child"][0]) >= 2000  # every inherited object out of the fork's walks
    assert int(seen["threshold"][0]) > 700  # the default collected a build's heap often
    assert seen["frozen"] == ["cycle", "freed", "False"]  # frozen at the fork: kept so far
    assert seen["after"] == ["idle", "True", "True"]  # freed once idle; the live refrozen
