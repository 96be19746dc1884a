"""What ``polybook serve`` tells the open pages: the state of the last build.

Each page gets a small script that listens to a server-sent events endpoint. Every message
is the state: how many builds have succeeded, and the problems of the last one. A page made
before the last success takes its new build: where only its article changed (the script
carries a digest of the rest, its *frame*), the new article replaces the old in place, and
the page's scripts prepare it (tabs, copy buttons); else the page reloads. While the last
build failed, the page (the last good one) stays and shows the problems
(``path:line: message``) over it, until a build succeeds.

A page tells the server once it shows a build (a request to :data:`TAKEN`), so that the
build's last steps (its downloads published, its links checked) wait for the open pages
to lay the new article out, not compete with them for the machine (up to a bound).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

EVENTS = "/_polybook/events"
TAKEN = "/_polybook/taken"  # ?built=N: a page shows build N
OVERLAY_ID = "pb-build-problems"

# The page's generation is filled in when the page is served.
SCRIPT = """<script data-pb-frame=%(frame)s>(function () {
  let built = %(built)d;
  const frame = %(frame)s;
  const ARTICLE = 'article[role="main"]';
  const events = new EventSource(%(events)s);
  let told = 0;
  /* The server is told once a build is shown (laid out, where the page is visible). */
  function shown() {
    if (told >= built) return;
    const seen = (told = built);
    const tell = () => fetch(%(taken)s + "?built=" + seen, { cache: "no-store" }).catch(() => {});
    if (document.hidden) tell(); else requestAnimationFrame(() => setTimeout(tell, 0));
  }
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
  /* The new build's article in place of the old, where nothing around it changed. */
  function swap(text) {
    const doc = new DOMParser().parseFromString(text, "text/html");
    const mark = doc.querySelector("script[data-pb-frame]");
    const fresh = doc.querySelector(ARTICLE), old = document.querySelector(ARTICLE);
    if (!frame || !mark || mark.getAttribute("data-pb-frame") !== frame || !fresh || !old) {
      return false;
    }
    old.replaceWith(document.adoptNode(fresh));
    fresh.querySelectorAll("script").forEach((found) => {  // run, as a reload would run them
      const script = document.createElement("script");
      Array.from(found.attributes).forEach((a) => script.setAttribute(a.name, a.value));
      script.textContent = found.textContent;
      found.replaceWith(script);
    });
    document.title = doc.title;
    if (typeof addCopyButtonToCodeCells === "function") addCopyButtonToCodeCells();
    if (window.polybookTabs && window.polybookTabs.refresh) window.polybookTabs.refresh();
    return true;
  }
  function update(seen) {
    fetch(window.location.href, { cache: "no-store" })
      .then((answer) => (answer.ok ? answer.text() : Promise.reject(answer.status)))
      .then((text) => {
        if (seen <= built) return;
        if (!swap(text)) { window.location.reload(); return; }
        built = seen;
        show([]);
        shown();
      })
      .catch(() => window.location.reload());
  }
  events.onmessage = (e) => {
    const state = JSON.parse(e.data);
    if (state.built > built && !state.problems.length) { update(state.built); return; }
    show(state.problems);
    if (state.built === built && !state.problems.length) shown();
  };
  window.pbLiveReload = events;
})();</script>"""


def page_script(built: int, frame: str = "") -> bytes:
    """The script of a page served after ``built`` successful builds; ``frame``: the digest
    of what the page shows around its article ("": the page reloads on a new build)."""
    values = {
        "built": built,
        "frame": json.dumps(frame),
        "events": json.dumps(EVENTS),
        "taken": json.dumps(TAKEN),
        "overlay": json.dumps(OVERLAY_ID),
    }
    return (SCRIPT % values).encode()


@dataclass
class BuildState:
    """The last build's outcome, which the event streams wait on."""

    built: int = 0  # successful builds so far
    problems: tuple[str, ...] = ()  # of the last build; empty when it succeeded
    version: int = 0  # any change
    stopping: bool = False
    listening: int = 0  # event streams open: the pages told of each build
    taken: int = 0  # pages that said they show the last successful build
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, problems: list[str]) -> None:
        """Record a build: a success (no problems) or a failure with its problems."""
        with self._changed:
            self.built += 0 if problems else 1
            if not problems:
                self.taken = 0
            self.problems = tuple(problems)
            self.version += 1
            self._changed.notify_all()

    def listen(self, opened: bool) -> None:
        """An event stream ``opened``, or closed."""
        with self._changed:
            self.listening += 1 if opened else -1
            self._changed.notify_all()

    def took(self, built: int) -> None:
        """A page says it shows build ``built`` (counted where it is the last one)."""
        with self._changed:
            if built == self.built:
                self.taken += 1
                self._changed.notify_all()

    def wait_taken(self, timeout: float) -> bool:
        """Wait until every open page shows the last build (or ``timeout``); whether they
        all do."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self.taken >= self.listening or self.stopping, timeout
            )

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
