/*
 * polybook-switcher.js: the page's own framework switcher, a view of polybook-tabs.js.
 *
 * A bar of one button per framework at the top of the page's content, which stays on screen
 * (position: sticky, under the theme's header where it has one). Choosing there switches
 * every tab set of the page, as a tab does, keeping the block being read in place (the
 * first in view that stays shown); choosing a tab updates the bar.
 *
 * It also sets --pb-sticky-top on <body>: how far from the top of the window the page's
 * sticky headers end, where each tab set's own bar sticks while its block is on screen.
 *
 * Markup (written by polybook.site.early, else made here): nav.pb-switcher holding
 * button[data-pb-choose=NAME][aria-pressed] per framework.
 */
(function () {
  'use strict';

  const tabs = window.polybookTabs;
  if (!tabs) return;
  let bar = null;

  function inView(name) {
    const below = bar.getBoundingClientRect().bottom;
    const blocks = document.querySelectorAll('article :is(p, li, h2, h3, table, .pb-tabset)');
    return [...blocks].find(
      (el) =>
        !el.parentElement.closest('.pb-tabset') &&
        (!el.matches('.pb-tabset') || el.querySelector(`.pb-tab[data-pb-tab="${name}"]`)) &&
        el.getBoundingClientRect().bottom > below
    );
  }

  function choose(event) {
    const button = event.target.closest && event.target.closest('[data-pb-choose]');
    const name = button && button.getAttribute('data-pb-choose');
    if (name) tabs.select(name, inView(name));
  }

  function make() {
    const names = tabs.frameworks();
    if (names.length < 2) return null;
    const written = document.querySelector('.pb-switcher'); // the page's own (polybook.site.early)
    if (written) {
      written.addEventListener('click', choose);
      return written;
    }
    const nav = document.createElement('nav');
    nav.className = 'pb-switcher';
    nav.setAttribute('aria-label', 'Framework');
    const label = document.createElement('span');
    label.className = 'pb-switcher-label';
    label.textContent = 'Framework';
    label.setAttribute('aria-hidden', 'true');
    nav.appendChild(label);
    names.forEach((name) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'pb-switcher-choice';
      button.setAttribute('data-pb-choose', name);
      button.textContent = tabs.label(name);
      nav.appendChild(button);
    });
    nav.addEventListener('click', choose);
    const content = document.querySelector('.content') || document.querySelector('[role="main"]');
    if (!content) return null;
    content.insertBefore(nav, content.firstChild);
    return nav;
  }

  /* Where the sticky headers above a tab set's bar end: the theme's header, then ours. */
  function measure() {
    let top = 0;
    const header = document.querySelector('.mobile-header');
    if (header && window.getComputedStyle(header).display !== 'none') {
      // Without its border: the theme drops the border once the page scrolls (.scrolled),
      // which is when the bar sticks; with it, a line of text showed between the two.
      top += header.clientHeight;
    }
    if (bar) {
      bar.style.top = top + 'px';
      top += bar.getBoundingClientRect().height;
    }
    document.body.style.setProperty('--pb-sticky-top', Math.round(top) + 'px');
  }

  tabs.register({
    prepare() {
      bar = make();
      measure();
      window.addEventListener('resize', measure);
    },
    applied(name) {
      if (!bar) return;
      bar.querySelectorAll('[data-pb-choose]').forEach((button) => {
        const on = button.getAttribute('data-pb-choose') === name;
        button.setAttribute('aria-pressed', on ? 'true' : 'false');
      });
    },
  });
})();
