"""A formula's name for a screen reader (the ``aria-label`` of the SVG drawn at build time):
its TeX read out in words (``\\frac{a}{b}`` as "a over b", ``\\alpha`` as "alpha",
``\\mathbf{x}`` as "x"), with no backslash or brace left."""

from __future__ import annotations

import re

# Commands whose argument is read as it is (the styling goes).
STYLES = re.compile(
    r"\\(?:mathbf|mathrm|mathit|mathcal|mathbb|boldsymbol|bm|mathsf|textrm|textbf|text|"
    r"operatorname|hat|bar|tilde|vec|widehat|overline|mathtt)(?![A-Za-z])\s*(?:\{([^{}]*)\})?"
)
FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
WORDS = {
    "in": "in",
    "times": "times",
    "cdot": "times",
    "sum": "sum of",
    "prod": "product of",
    "leq": "less than or equal to",
    "le": "less than or equal to",
    "geq": "greater than or equal to",
    "ge": "greater than or equal to",
    "neq": "not equal to",
    "ne": "not equal to",
    "approx": "approximately",
    "to": "to",
    "rightarrow": "to",
    "leftarrow": "from",
    "mapsto": "maps to",
    "infty": "infinity",
    "partial": "partial",
    "nabla": "nabla",
    "top": "transpose",
    "ldots": "dots",
    "cdots": "dots",
    "dots": "dots",
    "mid": "given",
    "sim": "distributed as",
    "propto": "proportional to",
    "pm": "plus or minus",
    "odot": "elementwise times",
    "otimes": "tensor product",
    "circ": "composed with",
    "forall": "for all",
    "exists": "there exists",
    "subset": "subset of",
    "subseteq": "subset of",
    "cup": "union",
    "cap": "intersection",
    "int": "integral of",
    "lim": "limit",
    "argmax": "arg max",
    "argmin": "arg min",
    "log": "log",
    "exp": "exp",
    "max": "max",
    "min": "min",
}
SPACES = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg|quad|qquad|displaystyle|,|;|:|!|\s)")


def spoken(tex: str) -> str:
    """``tex`` in words: what a screen reader says for the formula."""
    text = SPACES.sub(" ", tex)
    for _ in range(4):  # nested styles, fractions and roots, innermost first
        text = STYLES.sub(lambda m: f" {m.group(1) or ''} ", text)
        text = FRAC.sub(r" \1 over \2 ", text)
        text = SQRT.sub(r" square root of \1 ", text)
    text = text.replace("\\\\", ", ").replace("&", " ")
    text = re.sub(r"\^\s*\\top\b", " transpose", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: f" {WORDS.get(m.group(1), m.group(1))} ", text)
    text = re.sub(r"\\(.)", r"\1", text)  # \{ \} \% …: the character itself
    text = text.replace("^", " to the power ").replace("_", " sub ")
    text = re.sub(r"[{}]", " ", text)
    return " ".join(text.split()) or tex.strip()
