/*
 * The language switcher (polybook/site/editions.py): a `nav.pb-editions` of links to the
 * same page in the book's other editions. The reader's choice is remembered, as the
 * framework's is: the language last followed leads the switcher on every page of every
 * edition (they share `localStorage` when served from one origin, or from file://).
 */
(function () {
  'use strict';

  const KEY = 'polybook.lang';

  function stored() {
    try {
      return window.localStorage.getItem(KEY);
    } catch (err) {
      return null;
    }
  }

  function remember(lang) {
    try {
      window.localStorage.setItem(KEY, lang);
    } catch (err) {
      /* storage refused: the choice is not remembered */
    }
  }

  function init() {
    const nav = document.querySelector('nav.pb-editions');
    if (!nav) return;
    const own = document.documentElement.lang.split('-')[0];
    const chosen = stored();
    nav.querySelectorAll('a.pb-edition').forEach((link) => {
      const lang = link.getAttribute('hreflang');
      link.addEventListener('click', () => remember(lang));
      if (chosen && lang === chosen && chosen !== own) {
        link.classList.add('pb-edition-chosen');
        nav.insertBefore(link, nav.firstChild);
      }
    });
    if (!chosen) remember(own);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
