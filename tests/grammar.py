"""Hypothesis strategies that write d2l books from the grammar of their pages: code cells
with ``%%tab``, fences of every length and kind, ``:begin_tab:``, roles and labels, figures,
tables, math, ``eval_rst``, ``toc``, slide marks, Pandoc divs and spans. Valid and invalid
forms alike: what a build must either accept or refuse at a line, never crash on. The other
files of a book (``config.ini``, ``_freeze/``, notebooks, editions): ``grammar_files``."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

FRAMEWORKS = ("pytorch", "mxnet", "jax", "tensorflow")
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    '<rect width="5" height="5"/></svg>\n'
)

# -- Markdown pages -------------------------------------------------------------------------

tab_names = st.sampled_from(
    [
        *FRAMEWORKS,
        "all",
        "paddle",
        "PyTorch",
        "",
        "pytorch, jax",
        "pytorch,jax",
        "jax mxnet",
        "all, jax",
    ]
)
labels = st.sampled_from(["fig_a", "sec_p", "eq_a", "tab_a", "fig_b", "a b", "", "x:y", "fig_a"])
words = st.sampled_from(
    [
        "text",
        "a *b*",
        "`code`",
        "``a`b``",
        "$x^2$",
        "[link](p.md)",
        "[link](missing.md)",
        "<https://example.com>",
        "[x]{.kicker}",
        "[y]{.smallcaps}",
        "[**mark**]",
        "(**kept**)",
        "[~~slides~~]",
        "(~~only~~)",
        "[**open",
        "**]",
        "~~)",
        "f(**kwargs)",
        "\\",
        "<div>",
        "é中",
        "\t",
        "{",
        "}",
        ":::",
        "```",
        "~~~",
        "|",
        "*",
        "[^1]",
        "{.python .input}",
        "%%tab",
        "#@save",
        ":label:`fig_a`",
    ]
)


def role(name: str) -> st.SearchStrategy[str]:
    return labels.map(lambda target: f":{name}:`{target}`")


roles = st.one_of(
    role("numref"),
    role("eqref"),
    role("ref"),
    st.sampled_from(["Key2020", "missing", "a,b", ""]).map(lambda k: f":cite:`{k}`"),
)
inline = st.lists(st.one_of(words, roles), min_size=1, max_size=6).map(" ".join)
prose = st.lists(inline, min_size=1, max_size=3).map("\n".join)

python_lines = st.sampled_from(
    [
        "x = 1",
        "print(x)",
        "#@save",
        "def f(a):\n    return a",
        "class A:\n    pass",
        "import torch",
        "from d2l import torch as d2l",
        "if tab.selected('jax'):\n    y = 2",
        "if tab.selected('pytorch', 'mxnet'):\n    y = 1\nelse:\n    y = 3",
        "if tab.selected('nothing') and z:\n    pass",
        "d2l.try_gpu()",
        "#@tab pytorch",
        "def broken(:",
        "   unexpected_indent = 1",
        "```",
        "````",
        "~~~",
        "%matplotlib inline",
        "!pip install x",
        "x = '''",
        "",
    ]
)


@st.composite
def code_cell(draw: st.DrawFn) -> str:
    """A ``{.python .input}`` cell: its fence (backticks or tildes, three or more), an
    optional ``%%tab`` line, Python (good and bad), and a closing fence that may not close."""
    char = draw(st.sampled_from(["`", "`", "~"]))
    length = draw(st.integers(3, 5))
    info = draw(
        st.sampled_from(
            [
                "{.python .input}",
                "{.python .input n=1}",
                "{.python .input  .cpu}",
                "python",
                "{.python}",
                "{.input .python}",
                "",
            ]
        )
    )
    lines = []
    if draw(st.booleans()):
        lines.append(f"%%tab {draw(tab_names)}")
    lines += draw(st.lists(python_lines, max_size=4))
    closer = char * draw(st.sampled_from([length, length, length + 1, 3, 0]))
    return "\n".join([char * length + info, *lines, closer])


@st.composite
def begin_tab(draw: st.DrawFn) -> str:
    name = draw(tab_names)
    opener = draw(st.sampled_from([":begin_tab:`{}`", ":begin_tab: `{}`", ":begin_tab:{}"]))
    body = [opener.format(name), draw(prose)]
    body += draw(st.sampled_from([[":end_tab:"], [":end_tab:"], [], [":end_tab:", ":end_tab:"]]))
    return "\n".join(body)


@st.composite
def figure(draw: st.DrawFn) -> str:
    caption = draw(st.sampled_from(["", "A caption", "Fig *b*", "[**x**]"]))
    path = draw(st.sampled_from(["img/x.svg", "img/x.svg", "img/missing.png", "../x.svg", ""]))
    attrs = draw(st.sampled_from(["", "{width=300px}", "{width=50%}", "{width=}", "{.w}"]))
    lines = [f"![{caption}]({path}){attrs}"]
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from([":width:`400px`", ":width:`x`", ":width:"])))
    if draw(st.booleans()):
        lines.append(f":label:`{draw(labels)}`")
    return "\n".join(lines)


@st.composite
def table(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 3))
    rows = [
        "| " + " | ".join(draw(st.sampled_from(["a", "", "`|`", "$x$"])) for _ in range(columns))
        for _ in range(draw(st.integers(0, 2)))
    ]
    lines = ["| " + " | ".join("h" for _ in range(columns)) + " |", "|---" * columns + "|", *rows]
    if draw(st.booleans()):
        lines += ["", f":label:`{draw(labels)}`"]
    return "\n".join(lines)


@st.composite
def math(draw: st.DrawFn) -> str:
    body = draw(st.sampled_from(["x = 1", "\\begin{aligned}a&=b\\end{aligned}", "", "$", "\\"]))
    form = draw(st.sampled_from(["$${}$$", "$$\n{}\n$$", "$$\n{}", "$${}"]))
    text = form.format(body)
    if draw(st.booleans()):
        text += f"\n:eqlabel:`{draw(labels)}`"
    return text


@st.composite
def other_fence(draw: st.DrawFn) -> str:
    """``eval_rst``, ``toc``, plain and nested fences."""
    char = draw(st.sampled_from(["`", "~"]))
    length = draw(st.integers(3, 5))
    kind = draw(st.sampled_from(["eval_rst", "toc", "", "bash", "{.python .output}", "eval_rst "]))
    body = draw(
        st.sampled_from(
            [
                ".. note::\n\n   A note.",
                ".. only:: html\n\n   html",
                ".. math::\n\n   x",
                ".. raw:: html\n\n   <b>b</b>",
                ".. image:: img/x.svg",
                ".. figure:: img/x.svg",
                ".. figure:: img/x.svg\n\n   Caption",
                ":maxdepth: 2\n\np\nmissing",
                "p\np",
                ":numbered:\n",
                "```\ninner\n```",
                "~~~\ninner\n~~~",
                "",
            ]
        )
    )
    closer = char * draw(st.sampled_from([length, length, 3, 0]))
    return f"{char * length}{kind}\n{body}\n{closer}"


@st.composite
def fenced_div(draw: st.DrawFn) -> str:
    opener = draw(st.sampled_from(["::: {.slide}", ":::{.slide}", "::: slide", "::::: {.x}"]))
    inner = draw(st.one_of(prose, code_cell(), figure()))
    closer = draw(st.sampled_from([":::", ":::", "", ":::::"]))
    return f"{opener}\n{inner}\n{closer}"


heading = st.tuples(st.integers(1, 4), inline).map(lambda h: "#" * h[0] + " " + h[1])
label_line = labels.map(lambda name: f":label:`{name}`")
blocks = st.one_of(
    prose,
    heading,
    label_line,
    code_cell(),
    begin_tab(),
    figure(),
    table(),
    math(),
    other_fence(),
    fenced_div(),
    st.just("    indented = code"),
    st.just(":end_tab:"),
)


@st.composite
def page(draw: st.DrawFn, title: str = "Page") -> str:
    """A page: a title, a label, and blocks separated by blank lines (sometimes none)."""
    parts = [f"# {title}", draw(label_line)] if draw(st.booleans()) else [f"# {title}"]
    parts += draw(st.lists(blocks, max_size=8))
    separator = draw(st.sampled_from(["\n\n", "\n\n", "\n"]))
    text = separator.join(parts) + draw(st.sampled_from(["\n", "", "\n\n"]))
    newline = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "", "", "\ufeff"]))
    return bom + text.replace("\n", newline)


def index_page(entries: list[str]) -> str:
    return "# Book\n\n```toc\n:maxdepth: 2\n\n" + "\n".join(entries) + "\n```\n"


CONFIG = "[project]\nname = fuzz\n\n[build]\ntabs = {tabs}\n"


@dataclass
class Book:
    """A book to write: its files (path -> text or bytes); what a build may write besides
    ``_build/`` (library files) is derived from its config when the build runs."""

    files: dict[str, str | bytes] = field(default_factory=dict)

    def describe(self) -> str:
        return "\n".join(f"--- {path}\n{text!r}" for path, text in self.files.items())


@st.composite
def markdown_books(draw: st.DrawFn) -> Book:
    """A book of one to three generated pages listed (with missing entries, sometimes) by the
    ``toc`` of its ``index.md``, an SVG figure, and a config of one or more tabs."""
    names = draw(
        st.lists(st.sampled_from(["p", "q", "chap/r"]), min_size=1, max_size=3, unique=True)
    )
    entries = names + draw(st.sampled_from([[], [], ["missing"], ["p"]]))
    tabs = draw(st.sampled_from(["pytorch", "pytorch, jax", "pytorch, mxnet, jax, tensorflow"]))
    files: dict[str, str | bytes] = {
        "config.ini": CONFIG.format(tabs=tabs),
        "index.md": index_page(entries),
        "img/x.svg": SVG,
    }
    for name in names:
        files[f"{name}.md"] = draw(page(name))
    return Book(files)
