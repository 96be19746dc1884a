/*
 * polybook-compare.js: two frameworks side by side, on one tab set or on every tab set of
 * the page. A view of polybook-tabs.js (loaded before it); what it shows the reader (words,
 * buttons, lists, the live region) is polybook-compare-controls.js's, loaded before it too.
 * Plain ES2017, no dependencies.
 *
 * What the reader gets:
 *  - beside the tab bar of each tab set with two frameworks or more, a "Compare" button
 *    (aria-pressed); pressed, the set shows the chosen framework and a second one side by
 *    side (stacked where the set is too narrow), each with its outputs underneath, and the
 *    lines of code that differ marked (polybook-diff.js);
 *  - at the top of the page, a switch that compares every tab set of the page, and, while
 *    it is on, two lists that choose the pair;
 *  - both panels stay tab panels, both of their tabs selected: the tab list is
 *    multiselectable while it compares. A click on (or Enter on) another tab makes it the
 *    second framework, a click on the second one swaps the two; the arrow keys, Home and
 *    End move the focus among the tabs without changing the pair (manual activation);
 *  - `?compare=pytorch,jax` opens the page comparing PyTorch (first) and JAX; the page-level
 *    switch is kept in the address and carried by links; the pair, not the switch, is kept
 *    in localStorage['polybook.compare'] (the second framework): a page opened without
 *    `?compare=` does not compare, and its switch starts with that pair;
 *  - on a phone the two frameworks of a block show one after the other;
 *  - what changes is announced in a polite live region ("Comparing PyTorch and JAX: 2 and 3
 *    lines differ").
 */
(function () {
  'use strict';

  const tabs = window.polybookTabs;
  const ui = window.polybookCompareControls;
  if (!tabs || !ui) return;
  const { say, barOf, toolsOf, setNote } = ui;

  const STORAGE_KEY = 'polybook.compare';
  const PARAM = 'compare';
  const WIDE = 'pb-compare-wide'; // on <html> while something is compared: a wider column

  let partner = null; // the second framework
  let pageOn = false; // the page-level switch
  const own = new Set(); // tab sets compared on their own
  const closed = new Set(); // tab sets closed while the page-level switch is on
  let status = null; // the live region
  let pageControl = null;
  let pending = ''; // what to announce once the tab sets are shown
  let acted = false; // the reader changed something: the address follows

  function namesOf(set) {
    return tabs.tabsOf(set).map((tab) => tab.getAttribute('data-pb-tab'));
  }

  function comparable(set) {
    return !!toolsOf(set);
  }

  function comparing(set) {
    return comparable(set) && (pageOn ? !closed.has(set) : own.has(set));
  }

  function readStored() {
    try {
      return window.localStorage.getItem(STORAGE_KEY);
    } catch (e) {
      return null;
    }
  }

  /* The pair is kept (the second framework; the first is the tabs' choice), not the mode. */
  function store() {
    try {
      if (partner) window.localStorage.setItem(STORAGE_KEY, partner);
    } catch (e) {
      // Storage disabled: the address still carries the choice.
    }
  }

  function otherThan(name, among) {
    return among.find((other) => other !== name) || null;
  }

  /* `?compare=A,B` as two different frameworks, or null. */
  function pair(value) {
    const names = (value || '').split(',').map((part) => tabs.resolve(part.trim()));
    return names.length === 2 && names[0] && names[1] && names[0] !== names[1] ? names : null;
  }

  /* The framework to start on: the first of a new ?compare= choice. A page compares only
     where its address asks; the stored pair is the one the switch starts with. */
  function start(fresh) {
    const asked = pair(tabs.readParam(PARAM));
    if (asked) {
      pageOn = true;
      partner = asked[1];
      if (fresh) store();
      return fresh ? asked[0] : null;
    }
    pageOn = false;
    partner = tabs.resolve(readStored()) || partner;
    return null;
  }

  /* Before the tab sets are shown for `name`: the second framework is another one. */
  function before(name, previous) {
    const all = tabs.frameworks();
    if (partner && partner !== name && all.indexOf(partner) >= 0) return;
    partner = previous && previous !== name ? previous : otherThan(name, all);
    if (pageOn || own.size) store(); // the pair is kept once the reader compares
  }

  function leave(set) {
    const bar = barOf(set);
    if (bar) bar.removeAttribute('aria-multiselectable');
    set.classList.remove('pb-comparing');
    tabs.tabsOf(set).forEach((tab) => tab.removeAttribute('data-pb-side'));
    tabs.panelsOf(set).forEach((panel) => {
      panel.removeAttribute('data-pb-side');
      if (window.polybookDiff) window.polybookDiff.unmark(panel);
    });
    set.pbDiff = null;
    setNote(set, '');
  }

  /* Select the tabs and show the panels of `shown` (in that order on screen); the panels
   * shown, or an empty list where the set is hidden for having none of them. */
  function show(set, shown) {
    set.hidden = shown.length === 0;
    tabs.tabsOf(set).forEach((tab) => {
      const side = shown.indexOf(tab.getAttribute('data-pb-tab'));
      tab.setAttribute('aria-selected', String(side >= 0));
      tab.classList.toggle('is-active', side >= 0);
      tab.setAttribute('tabindex', side === 0 ? '0' : '-1');
      if (side >= 0) tab.setAttribute('data-pb-side', String(side + 1));
      else tab.removeAttribute('data-pb-side');
    });
    const sides = [];
    tabs.panelsOf(set).forEach((panel) => {
      const side = shown.indexOf(panel.getAttribute('data-pb-tab'));
      panel.hidden = side < 0;
      if (side >= 0) {
        panel.setAttribute('data-pb-side', String(side + 1));
        sides[side] = panel;
      } else {
        panel.removeAttribute('data-pb-side');
      }
    });
    return sides;
  }

  /* Show `set` as the view has it; false where the tabs show it as they do. */
  function applyTo(set, name) {
    const tools = toolsOf(set);
    const on = comparing(set);
    const names = namesOf(set);
    if (tools) tools.querySelector('.pb-compare').setAttribute('aria-pressed', String(on));
    if (!on) {
      if (tools) leave(set);
      // While the page compares, a set without the first framework shows the second's.
      if (!pageOn || names.indexOf(name) >= 0 || names.indexOf(partner) < 0) return false;
      show(set, [partner]);
      return true;
    }
    const sides = show(set, [name, partner].filter((n) => n && names.indexOf(n) >= 0));
    set.classList.toggle('pb-comparing', sides.length > 0);
    barOf(set).setAttribute('aria-multiselectable', 'true');
    const missing = [name, partner].find((n) => n && names.indexOf(n) < 0);
    setNote(set, missing ? say('no_version', tabs.label(missing)) : '');
    const diff = window.polybookDiff;
    set.pbDiff = null;
    if (diff && sides.length === 2 && set.getAttribute('data-pb-kind') === 'code') {
      set.pbDiff = diff.mark(sides[0], sides[1]);
    } else if (diff) {
      sides.forEach((panel) => diff.unmark(panel));
    }
    return true;
  }

  function describe(set) {
    const first = tabs.label(tabs.current());
    const second = tabs.label(partner);
    const text = say('comparing', first, second);
    if (set && set.pbDiff) return say('lines_differ', text, set.pbDiff[0], set.pbDiff[1]);
    return set ? text : say('every_set', text);
  }

  function applied(name) {
    ui.updatePageControl(pageControl, pageOn, tabs.current(), partner);
    document.documentElement.classList.toggle(WIDE, tabs.tabsets().some(comparing));
    if (acted || tabs.readParam(PARAM) !== null) {
      tabs.setParam(PARAM, pageOn ? name + ',' + partner : null);
    }
    if (typeof pending === 'function') ui.announce(status, pending());
    else if (pending) ui.announce(status, pending);
    pending = '';
  }

  /* A change the reader made: announced, and kept in the address. */
  function act(message) {
    acted = true;
    pending = message;
  }

  /* Make sure the second framework is one `set` has, when it has two. */
  function partnerFor(set) {
    const names = namesOf(set);
    if (names.indexOf(partner) < 0) partner = otherThan(tabs.current(), names) || partner;
  }

  function toggleSet(set) {
    const on = !comparing(set);
    if (pageOn) {
      if (on) closed.delete(set);
      else closed.add(set);
    } else if (on) {
      own.add(set);
    } else {
      own.delete(set);
    }
    if (on) partnerFor(set);
    store();
    act(on ? () => describe(set) : say('compare_closed'));
    tabs.apply();
  }

  function togglePage() {
    pageOn = !pageOn;
    own.clear();
    closed.clear();
    store();
    act(pageOn ? () => describe(null) : say('compare_closed_page'));
    tabs.apply();
  }

  function choosePartner(name, set) {
    if (name === tabs.current()) return;
    if (name === partner) {
      partner = tabs.current(); // the second becomes the first: swap
      store();
      act(() => describe(set));
      tabs.select(name);
      return;
    }
    partner = name;
    store();
    act(() => describe(set));
    tabs.apply();
  }

  function click(tab) {
    const set = tab.closest('.pb-tabset');
    if (!set || !comparing(set)) return false;
    choosePartner(tab.getAttribute('data-pb-tab'), set);
    return true;
  }

  /* While a set compares, the arrows, Home and End only move the focus. */
  function keydown(event, tab) {
    const set = tab.closest('.pb-tabset');
    if (!set || !comparing(set)) return false;
    const all = tabs.tabsOf(set);
    const i = all.indexOf(tab);
    const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: all.length - 1 };
    if (!(event.key in moves)) return false;
    event.preventDefault();
    const target = all[(moves[event.key] + all.length) % all.length];
    all.forEach((other) => other.setAttribute('tabindex', other === target ? '0' : '-1'));
    target.focus();
    return true;
  }

  function params() {
    return { compare: pageOn ? tabs.current() + ',' + partner : null };
  }

  function onClick(event) {
    const target = event.target.closest && event.target.closest('.pb-compare, .pb-compare-all');
    if (!target) return;
    if (target.classList.contains('pb-compare-all')) togglePage();
    else toggleSet(target.closest('.pb-tabset'));
  }

  function onChange(event) {
    const select = event.target;
    if (!pageControl || !pageControl.contains(select) || select.tagName !== 'SELECT') return;
    if (select.getAttribute('data-pb-side') === '1') {
      act(() => describe(null));
      tabs.select(select.value);
    } else {
      choosePartner(select.value, null);
    }
  }

  function prepare() {
    tabs.tabsets().forEach(ui.addTools);
    const sets = tabs.tabsets().filter(comparable);
    if (sets.length === 0) return;
    pageControl = ui.addPageControl(sets[0]);
    status = status || ui.addStatus(); // prepared again for a new article: one region
    document.addEventListener('click', onClick);
    document.addEventListener('change', onChange);
  }

  tabs.register({ prepare, start, before, applyTo, applied, click, keydown, params });
})();
