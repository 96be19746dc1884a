"""The SVG sanitiser's pieces, exactly: what CSS reads after its escapes, which attributes
are kept as written, and the rebuilt file's text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from polybook.render import svg
from polybook.render.svg import css_as_read, reaches_out, sanitize_svg

SVG = "http://www.w3.org/2000/svg"
HEAD = f'<svg xmlns="{SVG}" xmlns:xlink="http://www.w3.org/1999/xlink">'


def test_css_is_read_as_a_browser_reads_it() -> None:
    assert css_as_read("\\75 rl") == "url"  # a hex escape and the one space it ends with
    assert css_as_read("\\000075rl") == "url"
    assert css_as_read("\\75\trl") == "url"
    assert css_as_read("\\75  rl") == "u rl"  # only one space belongs to the escape
    assert css_as_read("\\(x") == "(x"  # any other escaped character: itself
    assert css_as_read("\\\nx") == "\nx"
    assert css_as_read("\\0 x") == "\ufffdx"  # no character 0
    assert css_as_read("\\D800 x") == "\ufffdx"  # nor a surrogate
    assert css_as_read("\\DFFF x") == "\ufffdx"
    assert css_as_read("\\D7FF x") == "\ud7ffx"
    assert css_as_read("\\E000 x") == "\ue000x"
    assert css_as_read("\\10FFFF x") == "\U0010ffffx"
    assert css_as_read("\\110000 x") == "\ufffdx"
    assert css_as_read("\\1 x") == "\x01x"
    assert css_as_read("a\x00b") == "a\ufffdb"
    assert css_as_read("a/* c */b/* open") == "ab"


def test_what_reaches_out() -> None:
    assert not reaches_out("fill: url(#g)") and not reaches_out("fill: url( '#g' )")
    assert not reaches_out('fill: URL("#g")')
    assert reaches_out("fill: url(x.svg#g)") and reaches_out("fill: UrL(x)")
    assert reaches_out("background: url(#g) url(x)")
    for fetching in ("@IMPORT 'x'", "image-set ('x' 1x)", "src (x)", "expression (1)"):
        assert reaches_out(fetching), fetching
    assert reaches_out("-moz-binding: x") and reaches_out("behavior : x")
    assert not reaches_out("fill: red; stroke: blue")


def test_the_rebuilt_file_keeps_the_drawing_as_written() -> None:
    source = (
        HEAD + '<g transform="scale(2)" xml:space="preserve" xml:lang="en" onclick="run()">'
        '<rect width="4" style="fill: red; ; stroke: url(x); opacity: 0.5" fill="url(#g)"/>'
        '<a xlink:href="#r" href=" #s "><text x="1">a &lt; "b"\n\tc</text></a>'
        '<rect width="2" style="fill: url(x)" stroke="url(x)"/>tail'
        "<style>rect { fill: red }</style><style>@import 'x';</style>"
        '<image href="data:image/png;base64,iVBO Rw0=" width="1"/>'
        '<image href="data:image/png;base64,iVBORw0KGgo=!" width="1"/>'
        '<foreignObject><rect width="9"/></foreignObject>'
        '<rect xmlns:o="urn:other" o:width="9" width="3"/>'
        '<text space="keep">x</text><style>a {<b/>fill: red}</style></g></svg>'
    )
    assert sanitize_svg(source) == (
        HEAD + '<g transform="scale(2)" xml:space="preserve" xml:lang="en">'
        '<rect width="4" style="fill: red; opacity: 0.5" fill="url(#g)"></rect>'
        '<a xlink:href="#r" href=" #s "><text x="1">a &lt; "b"\n\tc</text></a>'
        '<rect width="2"></rect>tail'
        "<style>rect { fill: red }</style><style></style>"
        '<image href="data:image/png;base64,iVBO Rw0=" width="1"></image>'
        '<image width="1"></image>'
        '<rect width="3"></rect><text>x</text><style>a {fill: red}</style></g></svg>'
    )


def test_attribute_values_are_quoted_so_that_they_stay_one_value() -> None:
    clean = sanitize_svg(HEAD + '<text x="1" font-family="a&quot;b&#10;c&#9;d">t</text></svg>')
    assert clean == HEAD + '<text x="1" font-family="a&quot;b&#10;c&#9;d">t</text></svg>'


def test_an_svg_without_its_namespace_is_put_in_it_and_anything_else_is_refused() -> None:
    bare = '<svg width="2"><g><rect width="1"/></g><!-- c --></svg>'
    assert sanitize_svg(bare) == (
        f'<svg xmlns="{SVG}" xmlns:xlink="http://www.w3.org/1999/xlink" width="2">'
        '<g><rect width="1"></rect></g></svg>'
    )
    mixed = f'<svg><g xmlns="{SVG}"><rect width="1"/></g></svg>'  # a child already in it
    assert sanitize_svg(mixed) == (
        f'<svg xmlns="{SVG}" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<g><rect width="1"></rect></g></svg>'
    )
    assert sanitize_svg(f'<html xmlns="{SVG}"/>') is None
    assert sanitize_svg("<html/>") is None
    assert sanitize_svg('<svg xmlns="urn:other"/>') is None
    assert sanitize_svg("<svg>") is None
    assert sanitize_svg('<!DOCTYPE svg [<!entity a "b">]><svg/>') is None
    assert sanitize_svg(f'<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="{SVG}">&a;</svg>') is None
    assert sanitize_svg("") is None


# Values as figures write them, and every piece a fetching value is made of, escaped too.
PIECES = ["0", "1.5", " ", ",", "#fff", "red", "url", "(", ")", "#g", "x.svg", "'", '"']
PIECES += ["@import", "image-set", "src", "expression", "-moz-", "binding", "BINDING", ":"]
PIECES += ["behavior", "\\28", "\\", "/*", "*/", "\x00", ";", "translate", "\\75 rl"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_a_value_passed_over_unread_would_reach_out_no_more_than_read(value: str) -> None:
    quiet = svg.QUIET_MARKS
    try:
        svg.QUIET_MARKS = ("",)  # every value read as CSS
        read = reaches_out(value)
    finally:
        svg.QUIET_MARKS = quiet
    assert reaches_out(value) == read
