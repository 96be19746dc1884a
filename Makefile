# polybook: `make html` builds the book, `make test` runs the test suite.
# Every dependency is installed here from pinned files; a second run with nothing
# changed does no setup work.

PYTHON ?= python3
ENVS := .envs
TOOL := $(ENVS)/tool
POLYBOOK := $(TOOL)/bin/polybook
TABS ?= all
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all html lib eval check test test-fast lint bench bench-book clean setup envs system-deps serve screenshots \
	notebooks dist lab pdf pdf-deps epub linkcheck slides mutants d2lbook-reader fuzz pythons

all: html

# The tool's own environment. pip installs uv (pinned in tool.txt), then uv the rest, given
# the sources pip is configured with (pip installs it all where uv cannot: the reason is said).
INSTALL := $(TOOL)/bin/python -m polybook.environments.installer
$(TOOL)/.stamp: requirements/tool.txt requirements/tool-nodeps.txt pyproject.toml
	$(PYTHON) -m venv $(TOOL)
	$(TOOL)/bin/pip install -q --disable-pip-version-check $$(grep '^uv==' requirements/tool.txt)
	$(INSTALL) --requirement=requirements/tool.txt
	$(INSTALL) --no-deps --requirement=requirements/tool-nodeps.txt
	$(INSTALL) --no-deps --editable=.
	$(TOOL)/bin/python -m compileall -q polybook  # as pip does for what it installs
	touch $@

# Browser assets served with the site and the slides (MathJax, reveal.js), and axe-core,
# which the accessibility tests inject into pages; from the npm registry, pinned by the lock
# file in polybook/requirements/node (package data: an installed polybook reads the same).
NODE_LOCK := polybook/requirements/node/package.json polybook/requirements/node/package-lock.json
$(ENVS)/node/.stamp: $(TOOL)/.stamp $(NODE_LOCK)
	$(POLYBOOK) env assets
	touch $@

setup: $(TOOL)/.stamp $(ENVS)/node/.stamp

# One venv and Jupyter kernel per framework (CPU or CUDA set chosen by detection,
# override with DEVICE=cpu|cuda). `polybook env setup` alone also repairs a broken one.
envs: setup
	$(POLYBOOK) env setup --no-verify --tab $(TABS) $(if $(DEVICE),--device $(DEVICE))

# Headless Chromium, for the tests of the site's behaviour in a real browser, and
# EPUBCheck, which the epub tests run on every epub built.
system-deps:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -q && \
	  $(SUDO) apt-get install -y -q --no-install-recommends chromium; }
	@[ -f /usr/share/java/epubcheck.jar ] || { $(SUDO) apt-get update -q && \
	  $(SUDO) apt-get install -y -q --no-install-recommends epubcheck; }

# The outputs' builds need only the tool's environment: polybook sets up a framework's
# environment when one of its notebooks must run (none when every output is in the cache or
# in _freeze/, `[build] freeze = all`).
BUILD_DEVICE := $(if $(DEVICE),--device $(DEVICE))
html: setup
	$(POLYBOOK) build html --tab $(TABS) $(BUILD_DEVICE)

# TeX Live's xelatex, latexmk, the fonts, the SVG converter and poppler (pdftoppm), for the
# PDFs; installed once, so that later builds need no network.
PDF_PACKAGES := texlive-xetex texlive-latex-recommended texlive-latex-extra \
	texlive-fonts-recommended tex-gyre fonts-freefont-otf fonts-dejavu-core latexmk \
	librsvg2-bin poppler-utils
pdf-deps:
	@missing=; for tool in xelatex latexmk rsvg-convert pdftoppm fc-list; do \
	  command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	for font in FreeSerif FreeSans "DejaVu Sans Mono"; do \
	  fc-list -q "$$font" 2>/dev/null || missing="$$missing $$font"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make pdf: missing$$missing; installing Debian's $(PDF_PACKAGES)"; \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) apt-get install -y -q --no-install-recommends $(PDF_PACKAGES); fi

# A PDF per framework, _build/pdf/<name>-<framework>.pdf, from the executed notebooks.
# `make pdf html` builds both, and the site links the PDFs.
pdf: setup pdf-deps
	$(POLYBOOK) build pdf --tab $(TABS) $(BUILD_DEVICE)

# An epub per framework, _build/epub/<name>-<framework>.epub (math as MathML). `make epub html`
# builds both, and the site links the epubs.
epub: setup
	$(POLYBOOK) build epub --tab $(TABS) $(BUILD_DEVICE)

# The site built, then its external links checked (skipped, with a note, without a network).
# Internal links are checked by every build of the site.
linkcheck: envs
	$(POLYBOOK) linkcheck --tab $(TABS)

# Live preview: builds, serves on 127.0.0.1, rebuilds on save and reloads open pages.
serve: envs
	$(POLYBOOK) serve --tab $(TABS)

# PNGs of the GPUs page in each framework, light and dark, in _build/screenshots/.
screenshots: html system-deps
	$(TOOL)/bin/python -m tools.screenshots

# JupyterLab on 127.0.0.1, rooted at the book: pages open as notebooks, one kernel per
# framework. LAB_OPTS go to JupyterLab (e.g. LAB_OPTS=--no-browser).
lab: envs
	$(POLYBOOK) lab $(LAB_OPTS)

eval: envs
	$(POLYBOOK) build eval --tab $(TABS)

# Students' notebooks (Jupyter, Colab, SageMaker) and a zip per framework, in
# _build/notebooks/; executes only what the cache lacks.
notebooks: setup
	$(POLYBOOK) build notebooks --tab $(TABS) $(BUILD_DEVICE)

# A deck per section per framework, in _build/slides/<framework>/: RISE notebooks and
# reveal.js pages (reveal.js and MathJax from requirements/node); `make slides html` links
# them from the site.
slides: setup
	$(POLYBOOK) build slides --tab $(TABS) $(BUILD_DEVICE)

# The d2l package as an sdist and a wheel, in _build/dist/.
dist: setup
	$(POLYBOOK) build dist

lib: setup
	$(POLYBOOK) build lib

# Every source check of a build, nothing executed or written: a pre-commit hook.
check: setup
	$(POLYBOOK) check

lint: setup
	$(TOOL)/bin/ruff check polybook tests tools benchmarks
	$(TOOL)/bin/ruff format --check polybook tests tools benchmarks
	$(TOOL)/bin/mypy
	$(TOOL)/bin/python -m tools.config_table --check
	$(TOOL)/bin/python -m tools.command_table --check

test: envs system-deps pdf-deps lint check d2lbook-reader pythons
	$(TOOL)/bin/python -m pytest

# The fast tier: no kernel, Sphinx, browser, LaTeX or venv (a minute or two); writes only
# into temporary folders. `-m "slow and not latex"` and the like pick by what tests need.
test-fast: setup
	$(TOOL)/bin/python -m pytest -m "not slow"

# tests/library/test_key_formats.py compares the cache keys every CPython 3.10+ this machine has makes
# (python3.N on the PATH, pyenv's, uv's; tools/key_versions.py): it needs two. This kind of
# machine has pyenv's 3.10 to 3.13; where fewer are found, `make test` stops here saying so
# (`pyenv install 3.12`, or `uv python install 3.12`, adds one).
pythons: setup
	@$(TOOL)/bin/python -m tools.key_versions --require 2

# d2lbook 1.0.3's reader (no Sphinx) in .envs/d2lbook-reader, from
# requirements/d2lbook-reader*.txt: tests/source/test_d2lbook_reader.py compares polybook's notebooks
# with its, and so does `python -m tools.d2lbook_diff BOOK` on any book. Made again when
# those pins change; the test makes it where missing.
d2lbook-reader: setup
	$(TOOL)/bin/python -m tools.d2lbook_diff --setup

bench: envs system-deps
	@echo "(the d2lbook comparison, d2l-en's whole book less its downloads, runs with D2L_EN=<d2l-en checkout> D2LBOOK_PYTHON=<python with d2lbook 1.0.3>; D2L_BENCH_SCOPE=chapters: three chapters)"
	$(TOOL)/bin/python -m tools.bench

# The 200-page synthetic book's figures alone (nothing executed: no environments needed).
bench-book: setup
	$(TOOL)/bin/python -m tools.bench --only book

# Mutation testing (tools/mutants.py; mutmut, pinned in requirements/mutants.txt) of the
# modules that guard correctness, with their fast tests: killed / survived / accepted per
# module (a kill is a failed test), and the survivors tests/mutants-accepted.txt does not
# accept; the figures are written to docs/mutants.md and benchmarks/mutants.json (commit
# them). Slow (CPU-bound): not part of `test`. MUTANTS=polybook/confine.py runs one module.
$(ENVS)/mutants.stamp: $(TOOL)/.stamp requirements/mutants.txt
	$(INSTALL) --requirement=requirements/mutants.txt
	touch $@

mutants: $(ENVS)/mutants.stamp
	$(TOOL)/bin/python -m tools.mutants --summary $(MUTANTS)

# Property-based fuzzing (Hypothesis; tests/whole/test_fuzz.py, docs/reliability.md): books, configs,
# _freeze/ entries and notebooks generated from their grammar, 10,000 of each fast kind (the
# site: 100), built; each failing example is saved in tests/fuzz-examples/, which `make test`
# replays. Slow (CPU-bound, tens of minutes): not part of `test`.
fuzz: setup
	$(TOOL)/bin/python -m pytest tests/whole/test_fuzz.py -p no:cacheprovider --timeout=0 \
	  --hypothesis-profile=fuzz --hypothesis-show-statistics

# Removes build outputs; the execution cache (_build/cache) and the saved baselines
# (_build/baselines, see `polybook baseline save`) survive.
clean:
	[ ! -d _build ] || find _build -mindepth 1 -maxdepth 1 ! -name cache ! -name baselines \
	  -exec rm -rf {} +
