/*
 * polybook-tabs.js: framework tabs for a polybook HTML site.
 *
 * Plain ES2017, no dependencies; works from file:// without a network. Where the choice is
 * kept (localStorage, the address, links) is polybook-address.js's, loaded before it.
 *
 * Markup (emitted by the polybook renderer): <meta name="pb-tabs" content="pytorch,jax">
 * (the first is the default) and <meta name="pb-tab-labels" content="PyTorch,JAX">; each
 * div.pb-tabset[data-pb-kind=code|prose] holds a div.pb-tabbar[role=tablist] of
 * button.pb-tab[data-pb-tab=NAME] and a div.pb-panel[data-pb-tab=NAME] per tab, all but one
 * hidden; an element [data-pb-follow=NAME] is shown only while NAME is chosen.
 *
 * Behaviour:
 *  - on load the framework is `?tab=NAME` (NAME, a display name or `tf`, `torch`, `mx`,
 *    `flax`, in any case), else localStorage['polybook.tab'], else the default; a valid
 *    `?tab=` is also stored;
 *  - the latest explicit choice wins: a page reached with Back or Forward, reloaded, or
 *    restored from the back-forward cache (`pageshow`) follows the stored choice, not the
 *    older `?tab=` of its address, and its address is brought up to date;
 *  - the framework is applied to every tab set of the page, matched by NAME; a tab set
 *    without that framework is hidden, and shown again when a framework it has is chosen;
 *  - clicking a tab (or moving with the arrow keys, Home and End inside a tab bar) selects
 *    that framework everywhere, stores it, writes `?tab=NAME` into the address with
 *    history.replaceState and keeps the tab at the same place on screen (instantly, even
 *    where the theme asks for smooth scrolling);
 *  - clicking a same-site relative link adds `?tab=NAME` to it, so that the choice carries
 *    to the next page even where localStorage is unavailable;
 *  - an address naming an element in a hidden panel (`#cell-id-jax`) shows that panel;
 *  - code and output boxes that scroll are put in the tab order (tabindex=0), so that a
 *    keyboard can scroll them, and taken out again when they no longer scroll.
 *
 * Other scripts add views of the tab sets (polybook-compare.js) with `register(view)` before
 * the page loads; a view may have prepare() (before the sets are first shown), start(fresh)
 * -> a framework, before(name, previous), applyTo(tabset, name) -> handled, applied(name,
 * previous), click(tab) and keydown(event, tab) -> handled, params() -> {name: value|null}.
 *
 * Its only global is window.polybookTabs = {select(name, anchor), current(), frameworks(),
 * label(name), resolve(value), setParam(key, value), readParam(key), register(view),
 * tabsOf(tabset), panelsOf(tabset), tabsets(), apply(), refresh()}; refresh() prepares the
 * tab sets of an article put in place of the page's (a view's prepare() runs again then).
 */
(function () {
  'use strict';

  const address = window.polybookAddress;
  if (!address) return;

  const STORAGE_KEY = 'polybook.tab';
  const PARAM = 'tab';

  let frameworks = [];
  let aliases = {}; // normalised name or display name -> name
  let labels = {}; // name -> display name
  let current = null;
  const views = []; // registered by other scripts: see the header

  /* Ask each view in turn; the first that answers true has handled it. */
  function viewHandles(method, ...args) {
    return views.some((view) => typeof view[method] === 'function' && view[method](...args));
  }

  function childrenWithClass(el, cls) {
    return Array.prototype.filter.call(el.children, (c) => c.classList.contains(cls));
  }

  function tabsets() {
    return Array.prototype.slice.call(document.querySelectorAll('.pb-tabset'));
  }

  function tabsOf(tabset) {
    const out = [];
    childrenWithClass(tabset, 'pb-tabbar').forEach((bar) => {
      childrenWithClass(bar, 'pb-tab').forEach((tab) => out.push(tab));
    });
    return out;
  }

  function panelsOf(tabset) {
    return childrenWithClass(tabset, 'pb-panel');
  }

  function bookFrameworks() {
    const meta = document.querySelector('meta[name="pb-tabs"]');
    let names = [];
    if (meta && meta.getAttribute('content')) {
      names = meta.getAttribute('content').split(',').map((s) => s.trim()).filter(Boolean);
    }
    if (names.length === 0) {
      // No meta: fall back on the tabs of the page, in the order they appear.
      tabsets().forEach((set) => {
        tabsOf(set).forEach((tab) => {
          const name = tab.getAttribute('data-pb-tab');
          if (name && names.indexOf(name) < 0) names.push(name);
        });
      });
    }
    return names;
  }

  function isFramework(name) {
    return typeof name === 'string' && frameworks.indexOf(name) >= 0;
  }

  function normalise(text) {
    return String(text).toLowerCase().replace(/[^a-z0-9]/g, '');
  }

  const SHORT = { pytorch: ['torch'], tensorflow: ['tf'], mxnet: ['mx'], jax: ['flax'] };

  function bookAliases() {
    const found = {};
    frameworks.forEach((name) => {
      (SHORT[name] || []).forEach((short) => (found[short] = name));
      found[normalise(name)] = name;
    });
    const meta = document.querySelector('meta[name="pb-tab-labels"]');
    const given = meta ? (meta.getAttribute('content') || '').split(',') : [];
    given.forEach((label, i) => {
      if (frameworks[i] && label.trim()) {
        found[normalise(label)] = frameworks[i];
        labels[frameworks[i]] = label.trim();
      }
    });
    tabsets().forEach((set) => {
      tabsOf(set).forEach((tab) => {
        const name = tab.getAttribute('data-pb-tab');
        if (isFramework(name)) {
          found[normalise(tab.textContent)] = name;
          labels[name] = labels[name] || tab.textContent.trim();
        }
      });
    });
    return found;
  }

  /* The framework a `?tab=` value names (any case, or a display name), or null. */
  function resolve(value) {
    if (typeof value !== 'string' || !value) return null;
    if (isFramework(value)) return value;
    const key = normalise(value);
    return Object.prototype.hasOwnProperty.call(aliases, key) ? aliases[key] : null;
  }

  function readParam(key) {
    return address.readParam(key || PARAM);
  }

  function writeParam(name) {
    address.setParam(PARAM, name);
  }

  let uid = 0;

  function ensureIds(tabset) {
    const tabs = tabsOf(tabset);
    const panels = panelsOf(tabset);
    tabs.forEach((tab) => {
      const name = tab.getAttribute('data-pb-tab');
      const panel = panels.find((p) => p.getAttribute('data-pb-tab') === name);
      if (!panel) return;
      uid += 1;
      if (!tab.id) tab.id = 'pb-tab-' + uid;
      if (!panel.id) panel.id = 'pb-panel-' + uid;
      tab.setAttribute('aria-controls', panel.id);
      panel.setAttribute('aria-labelledby', tab.id);
    });
  }

  function applyTo(tabset, name) {
    if (viewHandles('applyTo', tabset, name)) return;
    const tabs = tabsOf(tabset);
    const has = tabs.some((t) => t.getAttribute('data-pb-tab') === name);
    if (!has) {
      tabset.hidden = true;
      return;
    }
    tabset.hidden = false;
    tabs.forEach((tab) => {
      const on = tab.getAttribute('data-pb-tab') === name;
      tab.setAttribute('aria-selected', on ? 'true' : 'false');
      tab.setAttribute('tabindex', on ? '0' : '-1');
      tab.classList.toggle('is-active', on);
    });
    panelsOf(tabset).forEach((panel) => {
      panel.hidden = panel.getAttribute('data-pb-tab') !== name;
    });
  }

  function apply(name) {
    const previous = current;
    views.forEach((view) => view.before && view.before(name, previous));
    current = name;
    document.documentElement.setAttribute('data-pb-tab', name);
    const early = document.getElementById('pb-early-style'); // polybook.site.early's
    if (early) early.remove();
    document.documentElement.removeAttribute('data-pb-early');
    tabsets().forEach((set) => applyTo(set, name));
    document.querySelectorAll('[data-pb-follow]').forEach((el) => {
      el.hidden = el.getAttribute('data-pb-follow') !== name;
    });
    views.forEach((view) => view.applied && view.applied(name, previous));
    markScrollable();
  }

  /* Boxes whose content scrolls are keyboard-focusable (WCAG 2.1.1); others are not. */
  const SCROLLERS = 'article pre, article .pb-output, article .table-wrapper';

  function markScrollable() {
    document.querySelectorAll(SCROLLERS).forEach((box) => {
      const scrolls =
        box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      const ours = box.hasAttribute('data-pb-scroll');
      if (scrolls && !box.hasAttribute('tabindex')) {
        box.setAttribute('tabindex', '0');
        box.setAttribute('data-pb-scroll', '');
      } else if (!scrolls && ours) {
        box.removeAttribute('tabindex');
        box.removeAttribute('data-pb-scroll');
      }
    });
  }

  let resizing = 0;

  function onResize() {
    window.clearTimeout(resizing);
    resizing = window.setTimeout(markScrollable, 150);
  }

  /* Scroll by `delta` at once: the theme's smooth scrolling would animate the correction. */
  function scrollInstantly(delta) {
    const root = document.documentElement;
    const before = root.style.scrollBehavior;
    root.style.scrollBehavior = 'auto';
    try {
      window.scrollBy({ top: delta, left: 0, behavior: 'instant' });
    } catch (e) {
      window.scrollBy(0, delta);
    }
    root.style.scrollBehavior = before;
  }

  /* Select `name` everywhere, keeping `anchor` (an element) at the same height on screen. */
  function choose(name, anchor) {
    if (!isFramework(name)) return false;
    const before = anchor ? anchor.getBoundingClientRect().top : 0;
    apply(name);
    address.writeStorage(STORAGE_KEY, name);
    writeParam(name);
    if (anchor) {
      const settle = () => {
        const delta = anchor.getBoundingClientRect().top - before;
        if (Math.abs(delta) >= 1) scrollInstantly(delta);
      };
      settle();
      // Browsers with scroll anchoring may move the page again at the next frame.
      if (window.requestAnimationFrame) window.requestAnimationFrame(settle);
    }
    return true;
  }

  function onTabClick(event) {
    const tab = event.target.closest && event.target.closest('.pb-tab');
    if (!tab || !tab.parentElement || !tab.parentElement.classList.contains('pb-tabbar')) {
      return false;
    }
    if (!viewHandles('click', tab)) choose(tab.getAttribute('data-pb-tab'), tab);
    return true;
  }

  function onKeydown(event) {
    const tab = event.target.closest && event.target.closest('.pb-tab');
    if (!tab || !tab.parentElement || !tab.parentElement.classList.contains('pb-tabbar')) {
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (viewHandles('keydown', event, tab)) return;
    const tabs = childrenWithClass(tab.parentElement, 'pb-tab');
    const i = tabs.indexOf(tab);
    let j;
    switch (event.key) {
      case 'ArrowRight':
        j = (i + 1) % tabs.length;
        break;
      case 'ArrowLeft':
        j = (i - 1 + tabs.length) % tabs.length;
        break;
      case 'Home':
        j = 0;
        break;
      case 'End':
        j = tabs.length - 1;
        break;
      default:
        return;
    }
    event.preventDefault();
    const target = tabs[j];
    choose(target.getAttribute('data-pb-tab'), target);
    try {
      target.focus({ preventScroll: true });
    } catch (e) {
      target.focus();
    }
  }

  /* A relative link with ?tab=NAME and the views' parameters added, or null. */
  function withTab(href, name) {
    const params = { [PARAM]: name };
    views.forEach((view) => Object.assign(params, view.params ? view.params() : {}));
    return address.withParams(href, params);
  }

  function onLinkClick(event) {
    if (!current) return;
    const link = event.target.closest && event.target.closest('a[href]');
    if (!link) return;
    const href = withTab(link.getAttribute('href'), current);
    if (href !== null) link.setAttribute('href', href);
  }

  function onClick(event) {
    if (onTabClick(event)) return;
    onLinkClick(event);
  }

  /* The framework to show: a new ?tab= choice, else the stored one, else the default. */
  function startingChoice(fresh) {
    let fromParam = resolve(readParam());
    views.forEach((view) => {
      const wanted = view.start ? resolve(view.start(fresh)) : null;
      if (wanted) fromParam = wanted;
    });
    const stored = address.readStorage(STORAGE_KEY);
    if (fromParam && !(isFramework(stored) && !fresh)) {
      address.writeStorage(STORAGE_KEY, fromParam);
      return fromParam;
    }
    if (isFramework(stored)) {
      if (fromParam && fromParam !== stored) writeParam(stored);
      return stored;
    }
    return fromParam || frameworks[0];
  }

  /* `#cell-id-jax`, an element in a hidden panel: show that framework there (not stored). */
  function revealTarget() {
    const target = document.getElementById(window.location.hash.slice(1));
    const panel = target && target.closest('.pb-panel');
    if (!panel || !panel.hidden || !isFramework(panel.getAttribute('data-pb-tab'))) return;
    apply(panel.getAttribute('data-pb-tab'));
    target.scrollIntoView();
  }

  function onPageShow(event) {
    if (event.persisted) apply(startingChoice(false)); // restored from the bfcache
  }

  function init() {
    frameworks = bookFrameworks();
    if (frameworks.length === 0) return;
    aliases = bookAliases();
    tabsets().forEach(ensureIds);
    views.forEach((view) => view.prepare && view.prepare());
    apply(startingChoice(!address.revisited()));
    revealTarget();
    window.addEventListener('hashchange', revealTarget);
    window.addEventListener('pageshow', onPageShow);
    window.addEventListener('resize', onResize);
    document.addEventListener('click', onClick);
    document.addEventListener('auxclick', onLinkClick);
    document.addEventListener('keydown', onKeydown);
  }

  /* The page's article replaced by a newer build's (polybook serve): its tab sets prepared
   * and the framework shown applied again. */
  function refresh() {
    if (frameworks.length === 0 || current === null) return;
    tabsets().forEach(ensureIds);
    views.forEach((view) => view.prepare && view.prepare());
    apply(current);
    revealTarget();
  }

  window.polybookTabs = {
    select: (name, anchor) => choose(name, anchor || null),
    current: () => current,
    frameworks: () => frameworks.slice(),
    label: (name) => labels[name] || name,
    resolve: resolve,
    readParam: readParam,
    setParam: address.setParam,
    register: (view) => views.push(view),
    tabsOf: tabsOf,
    panelsOf: panelsOf,
    tabsets: tabsets,
    apply: () => current && apply(current),
    refresh: refresh,
  };

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
