/*
 * polybook-address.js: where the reader's framework choice is kept between pages, for
 * polybook-tabs.js (loaded after it): localStorage, the page's address (`?tab=NAME` and the
 * views' parameters) and the same-site links the reader follows.
 *
 * Plain ES2017, no dependencies; works from file:// without a network. Each access may be
 * refused (storage disabled, sandboxed frames, some file:// setups): the choice then lives
 * where it still can.
 *
 * The only global is window.polybookAddress = {revisited(), readStorage(key),
 * writeStorage(key, value), readParam(key), setParam(key, value), withParams(href, params)}.
 */
(function () {
  'use strict';

  const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

  /* Whether this page was reached by Back/Forward or reloaded: its ?tab= is an old one. */
  function revisited() {
    try {
      const entry = window.performance.getEntriesByType('navigation')[0];
      return !!entry && (entry.type === 'back_forward' || entry.type === 'reload');
    } catch (e) {
      return false;
    }
  }

  function readStorage(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return null;
    }
  }

  function writeStorage(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch (e) {
      // Storage disabled or full: the ?tab= parameter still carries the choice.
    }
  }

  function readParam(key) {
    try {
      return new URLSearchParams(window.location.search).get(key);
    } catch (e) {
      return null;
    }
  }

  /* Set (or, for null, remove) a parameter of the address, without a new history entry. */
  function setParam(key, value) {
    try {
      const url = new URL(window.location.href);
      if (url.searchParams.get(key) === value) return;
      if (value === null) url.searchParams.delete(key);
      else url.searchParams.set(key, value);
      window.history.replaceState(window.history.state, '', url.href);
    } catch (e) {
      // replaceState can be refused (sandboxed frames, some file:// setups).
    }
  }

  /* A relative link (no scheme, not a bare #fragment) with `params` ({key: value, or null
   * to remove}) set in its query; null for any other link. */
  function withParams(href, params) {
    if (!href || href.charAt(0) === '#' || href.slice(0, 2) === '//' || SCHEME.test(href)) {
      return null;
    }
    let rest = href;
    let hash = '';
    const h = rest.indexOf('#');
    if (h >= 0) {
      hash = rest.slice(h);
      rest = rest.slice(0, h);
    }
    let query = '';
    const q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
    const found = new URLSearchParams(query);
    Object.keys(params).forEach((key) => {
      if (params[key] === null) found.delete(key);
      else found.set(key, params[key]);
    });
    return rest + '?' + found.toString() + hash;
  }

  window.polybookAddress = {
    revisited,
    readStorage,
    writeStorage,
    readParam,
    setParam,
    withParams,
  };
})();
