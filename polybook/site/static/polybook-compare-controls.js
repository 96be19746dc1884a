/*
 * polybook-compare-controls.js: what the compare view (polybook-compare.js, loaded after
 * it) shows the reader: its words in the book's language, the "Compare" button and note
 * beside each tab bar, the page-level switch with its two lists, and the live region that
 * announces changes. It holds no state. Plain ES2017, no dependencies; loaded after
 * polybook-tabs.js.
 *
 * The only global is window.polybookCompareControls = {say(key, ...fields), barOf(set),
 * toolsOf(set), setNote(set, text), addTools(set), addPageControl(first) -> the switch,
 * updatePageControl(control, on, first, second), addStatus() -> the region,
 * announce(region, text)}.
 */
(function () {
  'use strict';

  const tabs = window.polybookTabs;
  if (!tabs) return;

  /* The messages in English, for a page without the catalog (polybook/site/messages.py). */
  const ENGLISH = {
    compare: 'Compare',
    compare_set: 'Compare two frameworks side by side',
    compare_group: 'Compare frameworks',
    compare_page: 'Compare frameworks side by side',
    compare_show: 'Show',
    compare_beside: 'beside',
    comparing: 'Comparing {0} and {1}',
    lines_differ: '{0}: {1} and {2} lines differ',
    every_set: '{0} on every tab set of this page',
    compare_closed: 'Compare view closed',
    compare_closed_page: 'Compare view closed on this page',
    no_version: 'No {0} version here',
  };

  /* A message of the page's catalog, in the book's language, its {0}, {1}… filled in. */
  function say(key, ...fields) {
    const text = (window.pbMessages || {})[key] || ENGLISH[key];
    return text.replace(/\{(\d+)\}/g, (_, n) => String(fields[Number(n)]));
  }

  function barOf(set) {
    return Array.prototype.find.call(set.children, (c) => c.classList.contains('pb-tabbar'));
  }

  function toolsOf(set) {
    return Array.prototype.find.call(set.children, (c) => c.classList.contains('pb-tools'));
  }

  function setNote(set, text) {
    const note = toolsOf(set).querySelector('.pb-compare-note');
    note.textContent = text;
    note.hidden = !text;
  }

  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text) made.textContent = text;
    return made;
  }

  function addTools(set) {
    const bar = barOf(set);
    if (!bar || tabs.tabsOf(set).length < 2) return;
    const tools = element('div', 'pb-tools');
    const button = element('button', 'pb-compare');
    button.type = 'button';
    button.setAttribute('aria-pressed', 'false');
    button.setAttribute('aria-label', say('compare_set'));
    button.setAttribute('aria-controls', tabs.panelsOf(set).map((p) => p.id).join(' '));
    button.appendChild(element('span', 'pb-compare-icon', '\u21c6')).setAttribute(
      'aria-hidden',
      'true'
    );
    button.appendChild(document.createTextNode(say('compare')));
    const note = element('span', 'pb-compare-note');
    note.hidden = true;
    tools.appendChild(button);
    tools.appendChild(note);
    bar.insertAdjacentElement('afterend', tools);
    tabs.panelsOf(set).forEach((panel) => {
      panel.setAttribute('data-pb-label', tabs.label(panel.getAttribute('data-pb-tab')));
    });
  }

  function list(label, side) {
    const wrapper = element('label', 'pb-pick', label + ' ');
    const select = element('select');
    select.setAttribute('data-pb-side', side);
    tabs.frameworks().forEach((name) => {
      const option = element('option', '', tabs.label(name));
      option.value = name;
      select.appendChild(option);
    });
    wrapper.appendChild(select);
    return wrapper;
  }

  /* The page-level switch, after the page's notebook links (or its title); returned: the one
     the page holds (polybook.site.early writes it, so that nothing moves), else a new one. */
  function addPageControl(first) {
    const written = document.querySelector('.pb-compare-page'); // the page's own
    if (written) {
      written.querySelectorAll('select').forEach((select) => {
        const made = list('', select.getAttribute('data-pb-side')).querySelector('select');
        if (!select.options.length) select.replaceChildren(...made.children);
      });
      return written;
    }
    const group = element('div', 'pb-compare-page');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', say('compare_group'));
    const button = element('button', 'pb-compare-all');
    button.type = 'button';
    button.setAttribute('aria-pressed', 'false');
    button.appendChild(element('span', 'pb-compare-icon', '\u21c6')).setAttribute(
      'aria-hidden',
      'true'
    );
    button.appendChild(document.createTextNode(say('compare_page')));
    const choice = element('span', 'pb-pair');
    choice.appendChild(list(say('compare_show'), '1'));
    choice.appendChild(list(say('compare_beside'), '2'));
    group.appendChild(button);
    group.appendChild(choice);
    const after = document.querySelector('.pb-downloads') || document.querySelector('h1');
    if (after && after.parentNode) after.insertAdjacentElement('afterend', group);
    else first.insertAdjacentElement('beforebegin', group);
    return group;
  }

  /* The polite live region that announces what changes, at the end of the page. */
  function addStatus() {
    const status = element('div', 'pb-sr-only');
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    document.body.appendChild(status);
    return status;
  }

  /* The page-level switch as the view stands: on or off, `first` beside `second`. */
  function updatePageControl(pageControl, pageOn, first, second) {
    if (!pageControl) return;
    const button = pageControl.querySelector('.pb-compare-all');
    button.setAttribute('aria-pressed', String(pageOn));
    const choice = pageControl.querySelector('.pb-pair');
    choice.hidden = !pageOn;
    const lists = choice.querySelectorAll('select');
    lists[0].value = first;
    lists[1].value = second;
  }

  function announce(status, text) {
    if (!status) return;
    status.textContent = '';
    // A new text node in the next frame is announced even when the text repeats.
    window.requestAnimationFrame(() => {
      status.textContent = text;
    });
  }

  window.polybookCompareControls = {
    say,
    barOf,
    toolsOf,
    setNote,
    addTools,
    addPageControl,
    updatePageControl,
    addStatus,
    announce,
  };
})();
