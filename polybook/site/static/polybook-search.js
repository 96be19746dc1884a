/*
 * polybook-search.js: the search page's snippets and where each result lies.
 *
 * Sphinx's search page fetches each result's page to show a snippet; a browser refuses
 * fetch() on file:// URLs, and a page's text runs every framework's code together. The
 * build ships every page's prose, by section, in pb-search-data.js
 * (window.pbSearchPages = {docname: [[section id, shared prose, {framework: its prose},
 * section title], ...]}); a fetch of one of those pages is answered from it, on file:// and
 * http(s) alike, as a page whose [role="main"] holds one <section id> per section: the
 * prose all frameworks share and the reader's chosen framework's (polybook-tabs.js), or,
 * where the query is only in another framework's prose, that one's. Other requests go to
 * the browser's own fetch.
 *
 * Each page result then names the section where the query is found (and links to it), and
 * each API entry the framework whose library it is in.
 */
(function () {
  'use strict';

  if (typeof window.fetch !== 'function') return;
  const pages = window.pbSearchPages || {};
  const root = new URL(document.documentElement.dataset.content_root || './', window.location.href);
  const options = window.DOCUMENTATION_OPTIONS || {};
  const suffix = options.FILE_SUFFIX || '.html';
  const browserFetch = window.fetch.bind(window);

  function queryWords() {
    const query = new URLSearchParams(window.location.search).get('q') || '';
    return query.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
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

  function mentions(text, words) {
    const lower = text.toLowerCase();
    return words.some((w) => lower.indexOf(w) >= 0);
  }

  /* A section's prose for the reader: shared, then the chosen framework's (else one that
     holds the query). */
  function prose(section, words) {
    const own = section[2] || {};
    const name = chosen();
    let text = section[1] || '';
    let extra = name && own[name] ? own[name] : '';
    if (!mentions(text + ' ' + extra, words)) {
      const other = Object.keys(own).find((fw) => mentions(own[fw], words));
      if (other) extra = own[other];
    }
    return (text + ' ' + extra).trim();
  }

  function pageHtml(sections) {
    const words = queryWords();
    const doc = document.implementation.createHTMLDocument('');
    const main = doc.createElement('div');
    main.setAttribute('role', 'main');
    sections.forEach((section) => {
      const el = doc.createElement('section');
      if (section[0]) el.id = section[0];
      el.textContent = prose(section, words) + ' ';
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

  /* The first section (after the page's own top) whose prose holds the query. */
  function sectionOf(name, words) {
    const sections = pages[name] || [];
    const hit = sections.slice(1).find((s) => mentions(prose(s, words), words));
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
      where.textContent = ' \u203a ' + hit[3];
    } else {
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
