/*
 * polybook-search.js: search result snippets on a site opened from file://.
 *
 * Sphinx's search page fetches each result's page to show a snippet; a browser refuses
 * fetch() on file:// URLs. The build ships every page's text, by section, in
 * pb-search-data.js (window.pbSearchPages = {docname: [[section id, text], ...]}); on
 * file://, a fetch of one of those pages is answered from it, as a page whose
 * [role="main"] holds one <section id> per section. Other requests, and every request on
 * http(s), go to the browser's own fetch.
 */
(function () {
  'use strict';

  if (window.location.protocol !== 'file:' || typeof window.fetch !== 'function') return;
  const pages = window.pbSearchPages || {};
  const root = new URL(document.documentElement.dataset.content_root || './', window.location.href);
  const options = window.DOCUMENTATION_OPTIONS || {};
  const suffix = options.FILE_SUFFIX || '.html';
  const browserFetch = window.fetch.bind(window);

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

  function pageHtml(sections) {
    const doc = document.implementation.createHTMLDocument('');
    const main = doc.createElement('div');
    main.setAttribute('role', 'main');
    sections.forEach((section) => {
      const el = doc.createElement('section');
      if (section[0]) el.id = section[0];
      el.textContent = section[1] + ' ';
      main.appendChild(el);
    });
    doc.body.appendChild(main);
    return '<!DOCTYPE html>' + doc.documentElement.outerHTML;
  }

  window.fetch = function (input, init) {
    const name = docname(input);
    if (name !== null && Object.prototype.hasOwnProperty.call(pages, name)) {
      const headers = { 'Content-Type': 'text/html' };
      return Promise.resolve(new Response(pageHtml(pages[name]), { headers: headers }));
    }
    return browserFetch(input, init);
  };
})();
