/*
 * polybook-search.js: the search page's snippets and where each result lies.
 *
 * Sphinx's search page fetches each result's page to show a snippet; a browser refuses
 * fetch() on file:// URLs, and a page's text runs every framework's code together. The
 * build ships every page's prose, by section, in pb-search-data.js
 * (window.pbSearchPages = {docname: [[section id, shared prose, {framework: its prose},
 * section title], ...]}); a fetch of one of those pages is answered from it, on file:// and
 * http(s) alike, as a page whose [role="main"] holds one <section id> per section: the
 * prose all frameworks share and the reader's chosen framework's (polybook-tabs.js), never
 * another framework's. Other requests go to the browser's own fetch.
 *
 * Before the results are shown (Search._performSearch, wrapped):
 *  - a page result found by its text points at the section that holds the query's words,
 *    so that its snippet is that section's text (Sphinx's takes the page's first match);
 *  - the API entries of the frameworks' libraries (api/<framework>: one per name and
 *    framework) are kept once per name: the reader's framework's where it has one, at the
 *    rank of the group's best; the others are offered beside it ("also in").
 *
 * Each page result then names the section its snippet comes from (and links to it), with
 * the one separator (›) Sphinx's own section results get too, and each API entry the
 * framework whose library it is in.
 */
(function () {
  'use strict';

  if (typeof window.fetch !== 'function') return;
  const pages = window.pbSearchPages || {};
  const root = new URL(document.documentElement.dataset.content_root || './', window.location.href);
  const options = window.DOCUMENTATION_OPTIONS || {};
  const suffix = options.FILE_SUFFIX || '.html';
  const browserFetch = window.fetch.bind(window);
  const SEPARATOR = ' \u203a '; // between a page's title and its section's, in every result

  function chosen() {
    const tabs = window.polybookTabs;
    return tabs && tabs.current ? tabs.current() : null;
  }

  function docname(input) {
    try {
      const url = new URL(typeof input === 'string' ? input : input.url, window.location.href);
      const path = decodeURIComponent(url.pathname);
      const base = decodeURIComponent(root.pathname);
      if (!path.startsWith(base) || !path.endsWith(suffix)) return null;
      return path.slice(base.length, path.length - suffix.length);
    } catch (e) {
      return null;
    }
  }

  /* A section's prose for the reader: shared, then the chosen framework's (never another
     framework's: a PyTorch reader reads no TensorFlow-only text in a snippet). */
  function prose(section) {
    const own = section[2] || {};
    const name = chosen();
    const extra = name && own[name] ? own[name] : '';
    return ((section[1] || '') + ' ' + extra).trim();
  }

  function pageHtml(sections) {
    const doc = document.implementation.createHTMLDocument('');
    const main = doc.createElement('div');
    main.setAttribute('role', 'main');
    sections.forEach((section) => {
      const el = doc.createElement('section');
      if (section[0]) el.id = section[0];
      el.textContent = prose(section) + ' ';
      main.appendChild(el);
    });
    doc.body.appendChild(main);
    return '<!DOCTYPE html>' + doc.documentElement.outerHTML;
  }

  /* Resolves once the page's scripts have started, the tabs' choice included: the search
     may ask for its first page while the document is still being read. */
  function started() {
    return new Promise((resolve) => {
      const later = () => setTimeout(resolve, 0);
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', later);
      else later();
    });
  }

  window.fetch = function (input, init) {
    const name = docname(input);
    if (name !== null && Object.prototype.hasOwnProperty.call(pages, name)) {
      const headers = { 'Content-Type': 'text/html' };
      return started().then(() => new Response(pageHtml(pages[name]), { headers: headers }));
    }
    return browserFetch(input, init);
  };

  /* The section that holds the query's words: the first that holds the last of `words`
     found on the page (as searchtools.js's makeSearchSummary picks its word); null where
     that is the page's top or no section holds one. */
  function sectionOf(name, words) {
    const sections = pages[name] || [];
    const texts = sections.map((s) => prose(s).toLowerCase());
    const found = words.filter((w) => texts.some((t) => t.indexOf(w) >= 0));
    if (found.length === 0) return null;
    const word = found[found.length - 1];
    const at = texts.findIndex((t) => t.indexOf(word) >= 0);
    const hit = at > 0 ? sections[at] : null;
    return hit && hit[0] && hit[3] ? hit : null;
  }

  function sectionById(name, id) {
    return (pages[name] || []).find((s) => s[0] === id && s[3]) || null;
  }

  const API = /^api\/([^/]+)$/;
  const others = new Map(); // a kept API result's key -> [[framework, its link], ...]

  /* An API result's name without its library's module (d2l.torch.gpu -> gpu); '' for the
     API page itself. */
  function apiKey(result) {
    if (result[6] !== 'object') return result[2] ? null : '';
    return String(result[1]).replace(/^[^.]+\.[^.]+\./, '');
  }

  /* results: as _performSearch returns them, the first shown last. */
  function grouped(results) {
    const reader = chosen();
    const order = window.polybookTabs ? window.polybookTabs.frameworks() : [];
    const groups = new Map();
    results.forEach((result, at) => {
      const api = API.exec(result[0]);
      const key = api ? apiKey(result) : null;
      if (key === null) return;
      const group = groups.get(key) || { members: [], best: at };
      group.members.push([api[1], result]);
      group.best = at; // later: shown earlier
      groups.set(key, group);
    });
    const keep = new Map(); // the best's index -> the result kept in its place
    const drop = new Set();
    groups.forEach((group, key) => {
      group.members.forEach((m) => drop.add(m[1]));
      const mine = group.members.find((m) => m[0] === reader);
      const kept = (mine || group.members[group.members.length - 1])[1];
      keep.set(group.best, kept);
      const rest = group.members.filter((m) => m[1] !== kept);
      rest.sort((x, y) => order.indexOf(x[0]) - order.indexOf(y[0])); // the book's order
      others.set(kept[0] + kept[2], rest.map((m) => [m[0], m[1][0] + suffix + m[1][2]]));
    });
    const out = [];
    results.forEach((result, at) => {
      if (keep.has(at)) out.push(keep.get(at));
      else if (!drop.has(result)) out.push(result);
    });
    return out;
  }

  /* A page result found by its text: pointed at the section that holds the words. */
  function pointed(results, words) {
    results.forEach((result) => {
      if (result[2] || result[6] !== 'text' || API.test(result[0])) return;
      const hit = sectionOf(result[0], words);
      if (hit) result[2] = '#' + hit[0];
    });
    return results;
  }

  function wrapSearch() {
    if (typeof Search === 'undefined' || typeof Search._performSearch !== 'function') return;
    const perform = Search._performSearch;
    Search._performSearch = function (query, searchTerms, excluded, highlight, objectTerms) {
      const results = perform.apply(this, arguments);
      const words = Array.from(searchTerms || []).map((w) => String(w).toLowerCase());
      return grouped(pointed(results, words));
    };
  }

  function label(framework) {
    const tabs = window.polybookTabs;
    return tabs && tabs.label ? tabs.label(framework) : framework;
  }

  /* A result: where it lies, written after its link. */
  function annotate(item) {
    if (item.hasAttribute('data-pb-where')) return;
    item.setAttribute('data-pb-where', '');
    const link = item.querySelector('a');
    if (!link) return;
    const name = docname(link.href);
    if (name === null) return;
    const where = document.createElement('span');
    where.className = 'pb-search-where';
    const api = API.exec(name);
    const hash = new URL(link.href).hash;
    if (api) {
      where.textContent = ' \u00b7 ' + label(api[1]);
      link.insertAdjacentElement('afterend', where);
      facet(where, others.get(name + hash) || []);
      return;
    }
    if (link.textContent.indexOf(' > ') >= 0) {
      link.textContent = link.textContent.split(' > ').join(SEPARATOR); // Sphinx's sections
      return;
    }
    const hit = hash ? sectionById(name, decodeURIComponent(hash.slice(1))) : null;
    if (!hit) return;
    where.textContent = SEPARATOR + hit[3];
    link.insertAdjacentElement('afterend', where);
  }

  /* The same name in the other frameworks' libraries, one click away. */
  function facet(after, rest) {
    if (!rest.length) return;
    const also = document.createElement('span');
    also.className = 'pb-search-facet';
    also.appendChild(document.createTextNode(' (also in '));
    rest.forEach(([framework, href], k) => {
      if (k > 0) also.appendChild(document.createTextNode(', '));
      const link = document.createElement('a');
      link.href = href;
      link.textContent = label(framework);
      also.appendChild(link);
    });
    also.appendChild(document.createTextNode(')'));
    after.insertAdjacentElement('afterend', also);
  }

  function watch() {
    const results = document.getElementById('search-results');
    if (!results || typeof MutationObserver !== 'function') return;
    const each = () => results.querySelectorAll('li').forEach(annotate);
    new MutationObserver(each).observe(results, { childList: true, subtree: true });
    each();
  }

  // Before searchtools.js's own listener (it is loaded after this script) starts the search.
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', wrapSearch);
    document.addEventListener('DOMContentLoaded', watch);
  } else {
    wrapSearch();
    watch();
  }
})();
