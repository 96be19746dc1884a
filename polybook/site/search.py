"""Search in the book's language. Sphinx picks the search index's word splitter from the
book's ``[project] lang``; Chinese has no spaces between words, and Sphinx's own splitter
needs a segmenter it does not ship, so without one a Chinese book's index holds no Chinese
word at all. Here Chinese pages are cut into words by ``rjieba`` (jieba's dictionary and
algorithm, maintained in Rust), and the search page cuts a query such as 线性回归 into the
longest words the index holds (线性, 回归): every word must be on a page for it to be found,
as for a query of several English words. Japanese and the other languages Sphinx supports
use Sphinx's own splitters.

Pages made from the book's records rather than written for reading (the compatibility
page, its reports) are left out of the index, as Sphinx leaves out a page whose metadata
says ``nosearch``: a search for "gpu" finds the sections about GPUs, not a table of runs."""

from __future__ import annotations

from typing import Any, ClassVar

import rjieba
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.search import _MINIFIED_JS_PATH
from sphinx.search.en import SearchEnglish
from sphinx.search.zh import SearchChinese

from polybook.site.compat import COMPAT_LINK, PAGE

CJK = r"\u3400-\u9fff\uf900-\ufaff"  # the CJK ideographs (unified, extension A, compatibility)

# The search page's query splitter: Sphinx's own (letters, digits, underscores), then each
# run of ideographs cut, longest word first, into the words the index holds; an ideograph
# that starts no such word (的, 是) is left out, as the index leaves one-character words out.
SPLITTER = """
var splitQuery = (query) => {
  const index = (typeof Search !== "undefined" && Search._index) || {};
  const known = (word) =>
    (index.terms && word in index.terms) || (index.titleterms && word in index.titleterms);
  const words = [];
  for (const term of query.split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu)) {
    if (!term) continue;
    for (const part of term.split(/([CJK]+)/u)) {
      if (!part) continue;
      if (!/^[CJK]+$/u.test(part) || known(part)) { words.push(part); continue; }
      let at = 0;
      while (at < part.length) {
        let end = Math.min(part.length, at + 8);
        while (end > at + 1 && !known(part.slice(at, end))) end -= 1;
        if (end > at + 1) words.push(part.slice(at, end));
        at = end;
      }
    }
  }
  return words.length ? words : query.split(/\\s+/u).filter((term) => term);
};
""".replace("CJK", CJK)


def _english_stemmer() -> str:
    """The search page's stemmer for the Latin words of a Chinese page: Sphinx's English
    one. (Sphinx 9 names it ``ChineseStemmer`` for Chinese, which no script defines: its
    search page stops with an error.)"""
    parts = [(_MINIFIED_JS_PATH / name).read_text(encoding="utf-8") for name in STEMMER_FILES]
    return "\n".join([*parts, "window.Stemmer = EnglishStemmer;"])


STEMMER_FILES = ("base-stemmer.js", "english-stemmer.js")


class SegmentedChinese(SearchChinese):
    """Sphinx's Chinese search, its words cut by ``rjieba`` (whole words and the shorter
    words inside them, as a search engine indexes them)."""

    js_splitter_code = SPLITTER
    js_stemmer_rawcode = ""
    js_stemmer_code = _english_stemmer()

    def split(self, input: str) -> list[str]:
        words = [w for w in rjieba.cut_for_search(input) if w.strip()]
        latin = [term.strip() for term in self.latin1_letters.findall(input)]
        self.latin_terms.update(latin)
        return [w for w in words if not self.latin1_letters.fullmatch(w)] + latin


class StemmedOnceEnglish(SearchEnglish):
    """Sphinx's English search, each word stemmed once per process: Sphinx stems every word
    of every page it writes (d2l-en: 111,000 words, a tenth of its Sphinx run), most of
    them words already seen."""

    stems: ClassVar[dict[str, str]] = {}

    def stem(self, word: str) -> str:
        stem = self.stems.get(word)
        if stem is None:
            stem = self.stems[word] = super().stem(word)
        return stem


def unsearched(docname: str) -> bool:
    """Whether ``docname`` is a page of records, kept out of the search."""
    return docname == PAGE or docname.startswith(COMPAT_LINK + "/")


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.docname
    if unsearched(docname):
        app.env.metadata.setdefault(docname, {})["nosearch"] = ""


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", on_doctree_read)
    app.add_search_language(StemmedOnceEnglish)
    app.add_search_language(SegmentedChinese)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
