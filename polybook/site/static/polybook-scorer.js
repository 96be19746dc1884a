/*
 * polybook-scorer.js: how the site's search ranks its results (Sphinx's html_search_scorer:
 * this text goes into language_data.js, before searchtools.js reads `Scorer`).
 *
 * Sphinx's own weights, then: a result whose title holds a word of the query as a whole
 * word ranks above one that holds it only inside a longer word ("tensor" in "tensorflow");
 * pages and their sections rank above API entries; an API entry whose name holds no word of
 * the query whole (d2l.tensorflow.ones for "tensor") comes last. The API pages themselves
 * (api/<framework>) rank with the API entries.
 */
var Scorer = {
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,

  wholeWord: 10, // a word of the query, whole, in the title
  apiEntry: -40, // an API entry or page, below the book's pages
  apiPartOfWord: -40, // an API entry whose name holds the query only inside a word
  readerFramework: 8, // an API entry of the reader's framework, above the others'

  queryWords: function () {
    let query = '';
    try {
      query = new URLSearchParams(window.location.search).get('q') || '';
    } catch (e) {
      query = '';
    }
    return query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
  },

  hasWhole: function (text, words) {
    const parts = String(text).toLowerCase().split(/[^\p{L}\p{N}]+/u);
    return words.some((w) => parts.indexOf(w) >= 0);
  },

  score: function (result) {
    const title = result[1];
    const api = result[6] === 'object' || /^api\//.test(result[0]);
    let score = result[4];
    const words = Scorer.queryWords();
    const whole = Scorer.hasWhole(title, words);
    if (whole) score += Scorer.wholeWord;
    if (api) score += Scorer.apiEntry;
    if (api && !whole) score += Scorer.apiPartOfWord;
    const reader = window.polybookTabs && window.polybookTabs.current();
    if (api && reader && result[0] === 'api/' + reader) score += Scorer.readerFramework;
    return score;
  },
};
