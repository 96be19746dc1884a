"""What ``polybook serve`` tells the open pages: the state of the last build.

Each page gets a small script that listens to a server-sent events endpoint. Every message
is the state: how many builds have succeeded, and the problems of the last one. A page made
before the last success reloads; while the last build failed, the page (the last good one)
stays and shows the problems (``path:line: message``) over it, until a build succeeds.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

EVENTS = "/_polybook/events"
OVERLAY_ID = "pb-build-problems"

# The page's generation is filled in when the page is served.
SCRIPT = """<script>(function () {
  const built = %(built)d;
  const events = new EventSource(%(events)s);
  function show(problems) {
    let box = document.getElementById(%(overlay)s);
    if (!problems.length) { if (box) box.remove(); return; }
    if (!box) {
      box = document.createElement("div");
      box.id = %(overlay)s;
      box.setAttribute("role", "alert");
      box.style.cssText = "position:fixed;left:0;right:0;bottom:0;z-index:2147483647;"
        + "max-height:50vh;overflow:auto;margin:0;padding:1em 1.5em;background:#fff0f0;"
        + "color:#600;border-top:3px solid #c00;font:14px/1.4 monospace;";
      document.body.appendChild(box);
    }
    box.textContent = "";
    const head = document.createElement("strong");
    head.textContent = "The last build failed; this is the last good page. "
      + "polybook serve rebuilds on the next save.";
    const list = document.createElement("pre");
    list.style.cssText = "white-space:pre-wrap;margin:0.5em 0 0;";
    list.textContent = problems.join("\\n");
    box.append(head, list);
  }
  events.onmessage = (e) => {
    const state = JSON.parse(e.data);
    if (state.built > built && !state.problems.length) { window.location.reload(); return; }
    show(state.problems);
  };
  window.pbLiveReload = events;
})();</script>"""


def page_script(built: int) -> bytes:
    """The script of a page served after ``built`` successful builds."""
    values = {"built": built, "events": json.dumps(EVENTS), "overlay": json.dumps(OVERLAY_ID)}
    return (SCRIPT % values).encode()


@dataclass
class BuildState:
    """The last build's outcome, which the event streams wait on."""

    built: int = 0  # successful builds so far
    problems: tuple[str, ...] = ()  # of the last build; empty when it succeeded
    version: int = 0  # any change
    stopping: bool = False
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, problems: list[str]) -> None:
        """Record a build: a success (no problems) or a failure with its problems."""
        with self._changed:
            self.built += 0 if problems else 1
            self.problems = tuple(problems)
            self.version += 1
            self._changed.notify_all()

    def stop(self) -> None:
        with self._changed:
            self.stopping = True
            self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Wait until the state is newer than version ``seen`` (or ``timeout``)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen or self.stopping, timeout)
            return self.version

    def message(self) -> bytes:
        """The state as one server-sent event."""
        with self._changed:
            data = {"built": self.built, "problems": list(self.problems)}
        return f"data: {json.dumps(data)}\n\n".encode()
