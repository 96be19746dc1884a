/*
 * polybook-diff.js: the lines that differ between two frameworks' code, marked.
 *
 * Plain ES2017, no dependencies. The compare view (polybook-compare.js) calls
 *
 *   window.polybookDiff.mark(panelA, panelB) -> [lines marked in A, lines marked in B]
 *   window.polybookDiff.unmark(panel)
 *   window.polybookDiff.lines(a, b) -> {a: [bool], b: [bool]}   (true: the line differs)
 *
 * A panel's code is the text of its code blocks (`div.highlight-*` but not the outputs'
 * `highlight-none`), one after another. The two are compared line by line, trailing spaces
 * ignored, by their longest common subsequence; a line of one side that is not in it is
 * wrapped in <mark class="pb-diff">, keeping the highlighter's spans inside. Unmarking puts
 * each block's markup back as it was.
 */
(function () {
  'use strict';

  const CODE = 'div[class*="highlight-"]:not(.highlight-none) pre';
  const MAX_CELLS = 4000000; // beyond this (n * m), lines are compared by position
  const original = new WeakMap(); // a marked block -> its markup before

  function trimEnd(line) {
    return line.replace(/\s+$/, '');
  }

  /* Which lines of a and b (arrays of strings) are outside their longest common subsequence. */
  function lines(a, b) {
    const n = a.length;
    const m = b.length;
    const left = a.map(trimEnd);
    const right = b.map(trimEnd);
    const outA = new Array(n).fill(true);
    const outB = new Array(m).fill(true);
    if ((n + 1) * (m + 1) > MAX_CELLS) {
      for (let i = 0; i < Math.min(n, m); i += 1) {
        if (left[i] === right[i]) outA[i] = outB[i] = false;
      }
      return { a: outA, b: outB };
    }
    // table[i][j]: the common subsequence's length of left[i:] and right[j:].
    const width = m + 1;
    const table = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        table[i * width + j] =
          left[i] === right[j]
            ? table[(i + 1) * width + j + 1] + 1
            : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (left[i] === right[j]) {
        outA[i] = outB[j] = false;
        i += 1;
        j += 1;
      } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
        i += 1;
      } else {
        j += 1;
      }
    }
    return { a: outA, b: outB };
  }

  function blocksOf(panel) {
    return Array.prototype.filter.call(
      panel.querySelectorAll(CODE),
      (pre) => !pre.closest('.pb-output')
    );
  }

  /* A block's lines, without the empty one after its last line break. */
  function textLines(pre) {
    const found = pre.textContent.split('\n');
    if (found.length > 1 && found[found.length - 1] === '') found.pop();
    return found;
  }

  /* The block's child nodes, split at line breaks: one list of nodes per line. A node that
   * spans lines (a string over several lines) is cut into one copy per line. */
  function nodesByLine(pre) {
    const result = [[]];
    Array.prototype.slice.call(pre.childNodes).forEach((node) => {
      const text = node.textContent;
      if (text.indexOf('\n') < 0) {
        result[result.length - 1].push(node);
        return;
      }
      text.split('\n').forEach((part, index) => {
        if (index > 0) result.push([]);
        if (!part) return;
        let piece;
        if (node.nodeType === Node.ELEMENT_NODE) {
          piece = node.cloneNode(false);
          piece.textContent = part;
        } else {
          piece = document.createTextNode(part);
        }
        result[result.length - 1].push(piece);
      });
    });
    return result;
  }

  function markBlock(pre, differs) {
    if (!original.has(pre)) original.set(pre, pre.innerHTML);
    const rebuilt = document.createDocumentFragment();
    nodesByLine(pre).forEach((nodes, index) => {
      if (index > 0) rebuilt.appendChild(document.createTextNode('\n'));
      if (differs[index] && nodes.length) {
        const mark = document.createElement('mark');
        mark.className = 'pb-diff';
        nodes.forEach((node) => mark.appendChild(node));
        rebuilt.appendChild(mark);
      } else {
        nodes.forEach((node) => rebuilt.appendChild(node));
      }
    });
    pre.textContent = '';
    pre.appendChild(rebuilt);
  }

  function unmark(panel) {
    blocksOf(panel).forEach((pre) => {
      if (original.has(pre)) {
        pre.innerHTML = original.get(pre);
        original.delete(pre);
      }
    });
  }

  /* Mark each block of `panel` with its slice of `differs` (the panel's lines in order). */
  function markPanel(panel, blocks, differs) {
    let start = 0;
    let marked = 0;
    blocks.forEach((pre) => {
      const text = textLines(pre);
      const slice = differs.slice(start, start + text.length);
      start += text.length;
      if (slice.some(Boolean)) markBlock(pre, slice);
      marked += slice.filter((flag, k) => flag && text[k].trim() !== '').length;
    });
    return marked;
  }

  function mark(panelA, panelB) {
    unmark(panelA);
    unmark(panelB);
    const blocksA = blocksOf(panelA);
    const blocksB = blocksOf(panelB);
    const linesA = [].concat(...blocksA.map(textLines));
    const linesB = [].concat(...blocksB.map(textLines));
    const found = lines(linesA, linesB);
    return [markPanel(panelA, blocksA, found.a), markPanel(panelB, blocksB, found.b)];
  }

  window.polybookDiff = { lines: lines, mark: mark, unmark: unmark };
})();
