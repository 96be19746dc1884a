/*
 * tex2svg.js: TeX formulas to SVG at build time, with MathJax's own Node build (the pinned
 * `mathjax` npm package that `polybook env assets` installs; its path is argv[2]).
 *
 * stdin: a JSON list of [tex, display]; stdout: a JSON list of SVG markup, one per formula,
 * in the same order (a formula MathJax cannot read comes back drawn as its error).
 */
'use strict';

const mathjaxPath = process.argv[2];
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  require(mathjaxPath)
    .init({
      loader: { load: ['input/tex-full', 'output/svg'] },
      svg: { fontCache: 'none' },
      startup: { typeset: false },
    })
    .then((MathJax) => {
      const adaptor = MathJax.startup.adaptor;
      const out = JSON.parse(input).map(([tex, display]) => {
        const node = MathJax.tex2svg(tex, { display: !!display });
        return adaptor.innerHTML(node);
      });
      process.stdout.write(JSON.stringify(out));
    })
    .catch((err) => {
      process.stderr.write(String((err && err.stack) || err));
      process.exit(1);
    });
});
