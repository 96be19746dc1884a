/*
 * polybook-compat.js: a newer weekly check of `polybook compat`, shown without a rebuild.
 *
 * The "works with" line under each section's title is written into the page when it is
 * built (p.pb-compat-line[data-pb-follow=NAME], one per framework; the tabs script shows
 * the reader's): nothing is inserted on load and nothing moves. Served over http(s), this
 * script asks the site's own compat/compat.json (same origin) and, where it was made after
 * the record the page was built with (window.polybookCompatData), writes each line's words
 * again in place. From file://, and in a book with no record, it asks nothing.
 */
(function () {
  'use strict';

  const LINK = 'compat/';
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August',
    'September', 'October', 'November', 'December'];
  const data = window.polybookCompatData || null;

  function siteRoot() {
    const root = document.documentElement.dataset.content_root || './';
    return new URL(root, window.location.href);
  }

  function humanDay(day) {
    const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(day || '');
    return m ? Number(m[3]) + ' ' + MONTHS[Number(m[2]) - 1] + ' ' + m[1] : day || '';
  }

  function statement(result, label) {
    const version = result.version || result.target;
    const named = label ? label + ' (' + version + ')' : version;
    const cells = result.cells || 0;
    if (result.status === 'fails') return 'Fails with ' + named + ': ' + cells + (cells === 1 ? ' cell' : ' cells');
    if (result.status === 'changed') return 'Outputs differ with ' + named;
    if (result.status === 'random') return 'Works with ' + named + ' (random draws differ)';
    if (result.status === 'warnings') return 'Works with ' + named + ', with warnings';
    return 'Works with ' + named;
  }

  // The words of one line, as the build writes them (polybook/site/compat_view.py).
  function fill(span, results) {
    const byTarget = {};
    results.forEach((r) => { byTarget[r.target] = r; });
    const order = ['newest'].concat(Object.keys(byTarget).filter((t) => t !== 'newest' && t !== 'built').sort());
    const shown = order.filter((t) => byTarget[t]);
    if (!shown.length && byTarget.built) shown.push('built');
    span.textContent = '';
    const parts = [];
    if (byTarget.built) parts.push(document.createTextNode('Outputs from ' + byTarget.built.version));
    shown.forEach((target) => {
      const r = byTarget[target];
      const part = document.createElement('span');
      part.className = 'pb-compat-' + r.status;
      part.textContent = statement(r, target === 'newest' || target === 'built' ? '' : target);
      const group = document.createDocumentFragment();
      group.appendChild(part);
      if (r.status !== 'works' && r.report) {
        const link = document.createElement('a');
        link.className = 'pb-compat-details';
        link.href = new URL(LINK + r.report, siteRoot()).href;
        link.textContent = 'details';
        group.appendChild(document.createTextNode(' ('));
        group.appendChild(link);
        group.appendChild(document.createTextNode(')'));
      }
      parts.push(group);
    });
    const days = results.map((r) => r.checked).filter(Boolean).sort();
    if (days.length) {
      const day = document.createElement('span');
      day.className = 'pb-compat-day';
      day.textContent = 'checked ' + humanDay(days[days.length - 1]);
      parts.push(day);
    }
    parts.forEach((part, index) => {
      if (index) span.appendChild(document.createTextNode(' · '));
      span.appendChild(part);
    });
  }

  function pageName() {
    const here = window.location.href.split(/[?#]/)[0];
    const root = siteRoot().href;
    if (!here.startsWith(root)) return '';
    let name = decodeURIComponent(here.slice(root.length));
    if (name === '' || name.endsWith('/')) name += 'index.html';
    return name.replace(/\.html$/, '.md');
  }

  function update(fetched) {
    const page = pageName();
    document.querySelectorAll('.pb-compat-line[data-pb-follow]').forEach((line) => {
      const framework = line.getAttribute('data-pb-follow');
      const mine = fetched.results.filter((r) => r.page === page && r.framework === framework);
      const span = line.firstElementChild;
      if (mine.length && span) fill(span, mine);
    });
  }

  if (!data || !/^https?:$/.test(window.location.protocol) || !window.fetch) return;
  fetch(new URL(LINK + 'compat.json', siteRoot()).href, { cache: 'no-cache' })
    .then((response) => (response.ok ? response.json() : null))
    .then((fetched) => {
      if (fetched && Array.isArray(fetched.results) && fetched.made > (data.made || '')) update(fetched);
    })
    .catch(() => {});
})();
