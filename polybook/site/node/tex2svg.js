/*
 * tex2svg.js: TeX formulas to SVG at build time, with MathJax's own Node build (the pinned
 * `mathjax` npm package that `polybook env assets` installs; its path is argv[2]).
 *
 * stdin: a JSON list of [tex, display]; stdout: a JSON list of SVG markup, one per formula,
 * in the same order (a formula MathJax cannot read comes back drawn as its error).
 * With `--lines` (argv[3]) it stays: each line of stdin is such a list, answered by a line,
 * until stdin ends (a warm process a build's Sphinx keeps for an edit's few formulas).
 */
'use strict';

const mathjaxPath = process.argv[2];
const lines = process.argv[3] === '--lines';
const ready = require(mathjaxPath).init({
  loader: { load: ['input/tex-full', 'output/svg'] },
  svg: { fontCache: 'none' },
  startup: { typeset: false },
});

function drawAll(MathJax, text) {
  const adaptor = MathJax.startup.adaptor;
  return JSON.parse(text).map(([tex, display]) =>
    adaptor.innerHTML(MathJax.tex2svg(tex, { display: !!display })),
  );
}

function fail(err) {
  process.stderr.write(String((err && err.stack) || err));
  process.exit(1);
}

process.stdin.setEncoding('utf8');
if (lines) {
  const reader = require('readline').createInterface({ input: process.stdin });
  reader.on('line', (line) =>
    ready.then((MathJax) => process.stdout.write(JSON.stringify(drawAll(MathJax, line)) + '\n')).catch(fail),
  );
  reader.on('close', () => ready.then(() => process.exit(0)).catch(fail));
} else {
  let input = '';
  process.stdin.on('data', (chunk) => (input += chunk));
  process.stdin.on('end', () =>
    ready.then((MathJax) => process.stdout.write(JSON.stringify(drawAll(MathJax, input)))).catch(fail),
  );
}
