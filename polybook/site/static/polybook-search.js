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

  /* The query's words as Sphinx's search page takes them for its snippets (no stopwords). */
  function queryWords() {
    const query = new URLSearchParams(window.location.search).get('q') || '';
    const stop = typeof stopwords !== 'undefined' ? stopwords : []; // language_data.js
    return query
      .toLowerCase()
      .split(/[^\p{L}\p{N}_]+/u)
      .filter((w) => w.length > 0 && !(stop.indexOf ? stop.indexOf(w) >= 0 : stop.has(w)));
  }

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

  /* The section Sphinx's snippet is taken from: the first that holds the last word of the
     query found on the page (searchtools.js's makeSearchSummary); null for the page's top. */
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
    const api = /^api\/([^/]+)$/.exec(name);
    if (api) {
      where.textContent = ' \u00b7 ' + label(api[1]);
    } else if (!new URL(link.href).hash) {
      const hit = sectionOf(name, queryWords());
      if (!hit) return;
      link.href = link.href.split('#')[0] + '#' + hit[0];
      where.textContent = SEPARATOR + hit[3];
    } else {
      link.textContent = link.textContent.split(' > ').join(SEPARATOR); // Sphinx's sections
      return;
    }
    link.insertAdjacentElement('afterend', where);
  }

  function watch() {
    const results = document.getElementById('search-results');
    if (!results || typeof MutationObserver !== 'function') return;
    const each = () => results.querySelectorAll('li').forEach(annotate);
    new MutationObserver(each).observe(results, { childList: true, subtree: true });
    each();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();
