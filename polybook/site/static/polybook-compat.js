/*
 * polybook-compat.js: what `polybook compat` found, under each section's title, for the
 * reader's framework: "Works with torch 2.14 · checked 2026-11-27", or "Fails with torch
 * 2.14: 2 cells (details)", the details opening the section's drift report.
 *
 * Its data is window.polybookCompatData (polybook-compat-data.js, written at build time;
 * null where the book has no compat.json: then it shows nothing and asks nothing; empty,
 * made "", where the book has a weekly check but no record yet). Served over http(s), it
 * also asks the site's own compat/compat.json (same origin) and uses it when it was made
 * after the built-in data: the weekly check updates the lines without a rebuild. From
 * file:// it asks nothing.
 */
(function () {
  'use strict';

  const LINE_CLASS = 'pb-compat-line';
  const LINK = 'compat/';
  const WORDS = { works: 'works', warnings: 'warnings', changed: 'outputs change', fails: 'fails' };
  let data = window.polybookCompatData || null;

  function siteRoot() {
    const root = document.documentElement.dataset.content_root || './';
    return new URL(root, window.location.href);
  }

  // The page's source, as compat.json names it: chapter/section.md.
  function pageName() {
    const here = window.location.href.split(/[?#]/)[0];
    const root = siteRoot().href;
    if (!here.startsWith(root)) return '';
    let name = decodeURIComponent(here.slice(root.length));
    if (name === '' || name.endsWith('/')) name += 'index.html';
    return name.replace(/\.html$/, '.md');
  }

  function resultsOf(page, framework) {
    return (data.results || []).filter((r) => r.page === page && r.framework === framework);
  }

  function checkedOn(results) {
    const days = results.map((r) => r.checked).filter(Boolean).sort();
    return days.length ? days[days.length - 1] : '';
  }

  function cellsText(n) {
    return n + (n === 1 ? ' cell' : ' cells');
  }

  // One statement per target, the newest release first: "Fails with torch 2.14: 2 cells".
  function statement(result, label) {
    const version = result.version || result.target;
    const named = label ? label + ' (' + version + ')' : version;
    if (result.status === 'fails') return 'Fails with ' + named + ': ' + cellsText(result.cells || 0);
    if (result.status === 'changed') return 'Outputs change with ' + named;
    if (result.status === 'warnings') return 'Works with ' + named + ', with warnings';
    return 'Works with ' + named;
  }

  function detailsLink(result) {
    const link = document.createElement('a');
    link.href = new URL(LINK + result.report, siteRoot()).href;
    link.textContent = 'details';
    link.className = 'pb-compat-details';
    return link;
  }

  function line(framework) {
    const results = resultsOf(pageName(), framework);
    if (!results.length) return null;
    const byTarget = {};
    results.forEach((r) => { byTarget[r.target] = r; });
    const order = ['newest'].concat(Object.keys(byTarget).filter((t) => t !== 'newest' && t !== 'built').sort());
    const shown = order.filter((t) => byTarget[t]);
    if (!shown.length && byTarget.built) shown.push('built');
    const p = document.createElement('p');
    p.className = LINE_CLASS;
    p.dataset.pbCompat = framework;
    p.style.fontSize = '0.85em';
    p.style.opacity = '0.85';
    shown.forEach((target, index) => {
      const r = byTarget[target];
      if (index) p.appendChild(document.createTextNode(' · '));
      const label = target === 'newest' || target === 'built' ? '' : target;
      const span = document.createElement('span');
      span.className = 'pb-compat-' + r.status;
      span.textContent = statement(r, label);
      p.appendChild(span);
      if (r.status !== 'works' && r.report) {
        p.appendChild(document.createTextNode(' ('));
        p.appendChild(detailsLink(r));
        p.appendChild(document.createTextNode(')'));
      }
    });
    const day = checkedOn(results);
    if (day) p.appendChild(document.createTextNode(' · checked ' + day));
    return p;
  }

  function render(framework) {
    document.querySelectorAll('.' + LINE_CLASS).forEach((old) => old.remove());
    if (!data || !framework) return;
    const title = document.querySelector('article h1') || document.querySelector('h1');
    const made = line(framework);
    if (title && made) title.insertAdjacentElement('afterend', made);
  }

  function cell(result) {
    const td = document.createElement('td');
    td.className = 'pb-compat-' + result.status;
    let text = WORDS[result.status] || result.status;
    if (result.status === 'fails' && result.cells) text += ': ' + cellsText(result.cells);
    if (result.report && result.status !== 'works') {
      const link = detailsLink(result);
      link.textContent = text;
      td.appendChild(link);
    } else {
      td.textContent = text;
    }
    return td;
  }

  // The compatibility page's table, made again from newer data.
  function renderTable() {
    const table = document.getElementById('polybook-compat-table');
    const body = table && table.querySelector('tbody');
    if (!body) return;
    body.textContent = '';
    const names = data.frameworks || {};
    data.results.slice().sort((a, b) => (a.page + a.framework + a.target).localeCompare(b.page + b.framework + b.target))
      .forEach((r) => {
        const tr = document.createElement('tr');
        const display = (names[r.framework] || {}).display || r.framework;
        [r.page, display, r.target, r.version || ''].forEach((text) => {
          const td = document.createElement('td');
          td.textContent = text;
          tr.appendChild(td);
        });
        tr.appendChild(cell(r));
        const day = document.createElement('td');
        day.textContent = r.checked || '';
        tr.appendChild(day);
        body.appendChild(tr);
      });
  }

  function currentFramework() {
    const tabs = window.polybookTabs;
    const chosen = tabs && tabs.current();
    if (chosen) return chosen;
    const known = Object.keys((data && data.frameworks) || {});
    return known.length ? known[0] : '';
  }

  function refresh() {
    if (!/^https?:$/.test(window.location.protocol) || !data || !window.fetch) return;
    fetch(new URL(LINK + 'compat.json', siteRoot()).href, { cache: 'no-cache' })
      .then((response) => (response.ok ? response.json() : null))
      .then((fetched) => {
        if (!fetched || !Array.isArray(fetched.results) || !(fetched.made > (data.made || ''))) return;
        data = fetched;
        render(currentFramework());
        renderTable();
      })
      .catch(() => {});
  }

  if (window.polybookTabs) {
    window.polybookTabs.register({ applied: (name) => render(name) });
  }

  function init() {
    render(currentFramework());
    refresh();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
