/*
 * polybook-diff.js: the lines that differ between two frameworks' code, marked.
 *
 * Plain ES2017, no dependencies. The compare view (polybook-compare.js) calls
 *
 *   window.polybookDiff.mark(panelA, panelB) -> [lines marked in A, lines marked in B]
 *   window.polybookDiff.unmark(panel)
 *   window.polybookDiff.lines(a, b) -> {a: [bool], b: [bool]}   (true: the line differs)
 *   window.polybookDiff.gaps(outA, outB) -> {a: [gap lines before each line], b: [...]}
 *
 * A panel's code is the text of its code blocks (`div.highlight-*` but not the outputs'
 * `highlight-none`), one after another. The two are compared line by line, by their longest
 * common subsequence, as a reader compares them: indents and spaces ignored, and the
 * frameworks' names and usual aliases (torch, tf, mx, np, jnp...) taken as one name, so
 * that `torch.ones(3)` and `tf.ones(3)` are the same line; a line of one side that is not in it is
 * wrapped in <mark class="pb-diff">, keeping the highlighter's spans inside. Empty gap
 * lines (<span class="pb-gap" aria-hidden="true">) are put where the other side has lines
 * this one lacks, so that matching lines sit on one row, and the two sides' code blocks
 * scroll sideways together (their boxes, `.highlight`, are the scrollers while compared).
 * Unmarking puts each block's markup back as it was.
 */
(function () {
  'use strict';

  const CODE = 'div[class*="highlight-"]:not(.highlight-none) pre';
  const MAX_CELLS = 4000000; // beyond this (n * m), lines are compared by position
  const original = new WeakMap(); // a marked block -> its markup before

  // A framework's module or its usual alias, or a dotted run of them (jax.numpy).
  const FRAMEWORK =
    /\b(?:torch|tensorflow|tf|mxnet|mx|npx|nd|numpy|np|jax|jnp|flax|paddle)(?:\.(?:torch|tensorflow|tf|mxnet|mx|npx|nd|numpy|np|jax|jnp|flax|paddle))*\b/g;
  const FRAMEWORK_NAME = /\b(?:PyTorch|TensorFlow|MXNet|JAX|NumPy|Flax|PaddlePaddle)\b/g;

  const FW = '\u0000fw'; // what each framework's name reads as

  /* A line as compared: its indent and runs of spaces aside (the same statement inside a
     `with` block is the same line), every framework's name the same, `import tensorflow
     as tf` the same as `import torch`. */
  function meaning(line) {
    return line
      .trim()
      .replace(/\s+/g, ' ')
      .replace(FRAMEWORK, FW)
      .replace(FRAMEWORK_NAME, FW)
      .split('import ' + FW + ' as ' + FW)
      .join('import ' + FW);
  }

  /* Which lines of a and b (arrays of strings) are outside their longest common subsequence. */
  function lines(a, b) {
    const n = a.length;
    const m = b.length;
    const left = a.map(meaning);
    const right = b.map(meaning);
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

  /* Gap lines to put before each line of a and b (and after the last: index n or m), so that
   * the k-th common line of both sits on one row, and each run of differing lines between
   * two common ones takes as many rows on both sides. */
  function gaps(outA, outB) {
    const gapA = new Array(outA.length + 1).fill(0);
    const gapB = new Array(outB.length + 1).fill(0);
    let i = 0;
    let j = 0;
    for (;;) {
      let x = 0;
      let y = 0;
      while (i + x < outA.length && outA[i + x]) x += 1;
      while (j + y < outB.length && outB[j + y]) y += 1;
      const rows = Math.max(x, y);
      gapA[i + x] += rows - x;
      gapB[j + y] += rows - y;
      i += x + 1;
      j += y + 1;
      if (i > outA.length || j > outB.length) break;
    }
    return { a: gapA, b: gapB };
  }

  /* An empty row: a blank box the width of the line, then the line's end. */
  function gapLine() {
    const row = document.createDocumentFragment();
    const gap = document.createElement('span');
    gap.className = 'pb-gap';
    gap.setAttribute('aria-hidden', 'true');
    gap.textContent = ' ';
    row.appendChild(gap);
    row.appendChild(document.createTextNode('\n'));
    return row;
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

  function markBlock(pre, differs, gapsBefore) {
    if (!original.has(pre)) original.set(pre, pre.innerHTML);
    const rebuilt = document.createDocumentFragment();
    const byLine = nodesByLine(pre);
    const addGaps = (index) => {
      for (let k = 0; k < (gapsBefore[index] || 0); k += 1) rebuilt.appendChild(gapLine());
    };
    byLine.forEach((nodes, index) => {
      if (index > 0) rebuilt.appendChild(document.createTextNode('\n'));
      addGaps(index);
      if (differs[index] && nodes.length) {
        const mark = document.createElement('mark');
        mark.className = 'pb-diff';
        nodes.forEach((node) => mark.appendChild(node));
        rebuilt.appendChild(mark);
      } else {
        nodes.forEach((node) => rebuilt.appendChild(node));
      }
    });
    const end = gapsBefore[byLine.length] || 0;
    if (end) {
      rebuilt.appendChild(document.createTextNode('\n'));
      for (let k = 0; k < end; k += 1) rebuilt.appendChild(gapLine());
    }
    pre.textContent = '';
    pre.appendChild(rebuilt);
  }

  function unmark(panel) {
    unlink(panel);
    blocksOf(panel).forEach((pre) => {
      if (original.has(pre)) {
        pre.innerHTML = original.get(pre);
        original.delete(pre);
      }
    });
  }

  /* Mark each block of `panel` with its slice of `differs` (the panel's lines in order) and
   * of `gapsBefore` (the last block also gets the gaps after the last line). */
  function markPanel(panel, blocks, differs, gapsBefore) {
    let start = 0;
    let marked = 0;
    blocks.forEach((pre, b) => {
      const text = textLines(pre);
      const slice = differs.slice(start, start + text.length);
      const last = b === blocks.length - 1;
      const gapSlice = gapsBefore.slice(start, start + text.length + (last ? 1 : 0));
      start += text.length;
      if (slice.some(Boolean) || gapSlice.some(Boolean)) markBlock(pre, slice, gapSlice);
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
    const rows = gaps(found.a, found.b);
    const marked = [
      markPanel(panelA, blocksA, found.a, rows.a),
      markPanel(panelB, blocksB, found.b, rows.b),
    ];
    link(blocksA, blocksB);
    return marked;
  }

  /* The k-th code boxes of both sides scroll sideways together. */
  const links = new WeakMap(); // a panel's code box -> [its partner, its listener]

  function link(blocksA, blocksB) {
    blocksA.forEach((pre, k) => {
      const a = pre.parentElement;
      const b = blocksB[k] && blocksB[k].parentElement;
      if (!a || !b) return;
      [[a, b], [b, a]].forEach(([box, partner]) => {
        const follow = () => {
          if (Math.abs(partner.scrollLeft - box.scrollLeft) >= 1) {
            partner.scrollLeft = box.scrollLeft;
          }
        };
        box.addEventListener('scroll', follow, { passive: true });
        links.set(box, follow);
        const scrolls = box.scrollWidth > box.clientWidth + 1;
        if (scrolls && !box.hasAttribute('tabindex')) box.setAttribute('tabindex', '0');
      });
    });
  }

  function unlink(panel) {
    blocksOf(panel).forEach((pre) => {
      const box = pre.parentElement;
      if (box && links.has(box)) {
        box.removeEventListener('scroll', links.get(box));
        links.delete(box);
        box.removeAttribute('tabindex');
      }
    });
  }

  window.polybookDiff = { lines: lines, gaps: gaps, mark: mark, unmark: unmark, meaning: meaning };
})();
