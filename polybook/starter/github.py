"""The GitHub Actions workflow of a new book, as d2l's books run theirs: a job per framework
executes its notebooks (the execution cache restored and saved by ``actions/cache``, keyed
on the requirement files), one job builds every output from those executions with no
framework installed (``--executor none``) and uploads them, one builds the site from the
outputs committed in ``_freeze/`` alone (``render``), and the default branch deploys
the site to GitHub Pages and publishes the students' notebooks to a branch of the book's own
repository (``[project] notebooks_branch``), which the “Open in Colab / SageMaker Studio
Lab” buttons open."""

from __future__ import annotations

import sys
from pathlib import Path

from polybook.config.schema import ProjectSection
from polybook.layout import Layout
from polybook.output import Output
from polybook.pdf.latex import DEBIAN_PACKAGES
from polybook.pipeline.registry import OUTPUTS
from polybook.pipeline.stages import EVAL
from polybook.starter.github_compat import RESTORE_LAST_CHECK, compat_workflow
from polybook.starter.github_compat import WORKFLOW as COMPAT_WORKFLOW

WORKFLOW = ".github/workflows/book.yml"
LINT_CONFIG = ".github/actionlint.yaml"
EXEC_CACHE = "_build/cache/exec"

TEMPLATE = """\
# Builds the book: a job per framework executes its notebooks, keeping the execution cache
# between runs; one job builds every output from those executions (the site last: it links
# the others) and uploads them; one (render) builds the site from the outputs committed in
# _freeze/ alone; the default branch deploys the site to GitHub Pages and publishes the Colab and
# SageMaker notebooks to the @BRANCH@ branch, which the pages' “Open in …” buttons open.
# Made by `polybook new --ci github`.
name: book

on:
  push:
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: book-${{ github.ref }}
  cancel-in-progress: true

env:
  PYTHON_VERSION: "@PYTHON@"

jobs:
  execute:
    name: execute (${{ matrix.framework }})
    runs-on: @RUNNER@
    timeout-minutes: 360
    strategy:
      fail-fast: false
      matrix:
        framework: [@FRAMEWORKS@]
    env:
      FRAMEWORK: ${{ matrix.framework }}
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: ${{ env.PYTHON_VERSION }}
          cache: pip
          cache-dependency-path: requirements/**/*.txt
      - name: Install polybook
        run: python -m pip install -r requirements/polybook.txt
      - name: Restore the execution cache
        uses: actions/cache@v5
        with:
          path: _build/cache
          key: >-
            exec-${{ matrix.framework }}-${{ hashFiles(format('requirements/*/{0}.txt',
            matrix.framework), 'requirements/polybook.txt') }}-${{ github.run_id }}
          restore-keys: >-
            exec-${{ matrix.framework }}-${{ hashFiles(format('requirements/*/{0}.txt',
            matrix.framework), 'requirements/polybook.txt') }}-
      - name: Restore uv's cache (uv installs the environment)
        uses: actions/cache@v5
        with:
          path: ~/.cache/uv
          key: uv-${{ matrix.framework }}-${{ hashFiles('requirements/**/*.txt') }}
          restore-keys: uv-${{ matrix.framework }}-
      - name: Set up the environment
        run: polybook env setup --tab "$FRAMEWORK"
      - name: Execute the notebooks
        run: polybook build eval --tab "$FRAMEWORK"
      - uses: actions/upload-artifact@v6
        with:
          name: exec-${{ matrix.framework }}
          path: @EXEC_CACHE@
          if-no-files-found: error
          retention-days: 7

  # The site from the outputs committed in _freeze/ (`[build] freeze = all`, then
  # `polybook freeze --all` on the host that executes them) alone: no framework installed,
  # nothing executed. It fails where a page's committed outputs are missing or stale (and
  # builds nothing while the book commits none).
  render:
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: ${{ env.PYTHON_VERSION }}
          cache: pip
          cache-dependency-path: requirements/polybook.txt
      - name: Install polybook and MathJax
        run: |
          python -m pip install -r requirements/polybook.txt
          polybook env assets
      - name: Build the site from the committed outputs
        if: hashFiles('_freeze/**/*.json') != ''
        run: polybook build @SITE@ --executor none
      - name: List the stale and missing outputs
        if: always() && hashFiles('_freeze/**/*.json') != ''
        run: polybook freeze --status

  build:
    needs: execute
    runs-on: ubuntu-latest
    timeout-minutes: 120
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: ${{ env.PYTHON_VERSION }}
          cache: pip
          cache-dependency-path: requirements/polybook.txt
      - name: Install polybook, TeX and MathJax
        run: |
          python -m pip install -r requirements/polybook.txt
          sudo apt-get update -q
          sudo apt-get install -y -q --no-install-recommends \\
            @TEX@
          polybook env assets
      - uses: actions/download-artifact@v7
        with:
          pattern: exec-*
          path: @EXEC_CACHE@
          merge-multiple: true
@LAST_CHECK@      - name: Build the outputs from the executed notebooks
        run: |
@BUILDS@
      - uses: actions/upload-artifact@v6
        with:
          name: book
          path: |
@UPLOADS@
      - uses: actions/upload-artifact@v6
        with:
          name: notebooks
          path: @STUDENTS_DIR@
          if-no-files-found: error
      - uses: actions/upload-pages-artifact@v4
        with:
          path: @SITE_DIR@

  notebooks:
    if: >-
      github.event_name != 'pull_request'
      && github.ref_name == github.event.repository.default_branch
    needs: build
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - uses: actions/download-artifact@v7
        with:
          name: notebooks
          path: notebooks
      - name: Publish the Colab and SageMaker notebooks to the @BRANCH@ branch
        env:
          BRANCH: @BRANCH@
          TOKEN: ${{ github.token }}
        run: |
          cd notebooks
          git init -q -b "$BRANCH"
          git config user.name "github-actions[bot]"
          git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
          git add -A
          git commit -q -m "The notebooks of $GITHUB_SHA"
          git push -q -f "https://x-access-token:$TOKEN@github.com/$GITHUB_REPOSITORY.git" \\
            "HEAD:refs/heads/$BRANCH"

  deploy:
    if: >-
      github.event_name != 'pull_request'
      && github.ref_name == github.event.repository.default_branch
    needs: build
    runs-on: ubuntu-latest
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v5
"""


def built_in_ci(outputs: tuple[Output, ...]) -> list[Output]:
    """What the build job makes from the notebooks the other jobs executed: every output
    built from executed notebooks but the execution itself, those the site holds first."""
    made = [o for o in outputs if o.executes and o is not EVAL]
    return sorted(made, key=lambda output: output.holds_outputs)


def _folder(output: Output) -> str:
    """The output's folder, from the book's root."""
    return Layout(Path()).output_dir(output.name).as_posix()


def workflow(frameworks: tuple[str, ...], gpu_runner: str = "") -> str:
    """The workflow's text; ``gpu_runner``: the label of a self-hosted runner with GPUs
    that executes the notebooks (its CUDA requirement sets chosen by detection)."""
    outputs = built_in_ci(OUTPUTS)
    site = next(o for o in outputs if o.holds_outputs)  # deployed to GitHub Pages
    students = next(o for o in outputs if o.all_requirement_sets)  # published to the branch
    builds = "\n".join(f"          polybook build {o.name} --executor none" for o in outputs)
    uploads = "\n".join(f"            {_folder(o)}" for o in outputs)
    runner = f"[self-hosted, {gpu_runner}]" if gpu_runner else "ubuntu-latest"
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    replacements = {
        "@PYTHON@": python,
        "@RUNNER@": runner,
        "@FRAMEWORKS@": ", ".join(frameworks),
        "@EXEC_CACHE@": EXEC_CACHE,
        "@TEX@": " ".join(DEBIAN_PACKAGES),
        "@BUILDS@": builds,
        "@UPLOADS@": uploads,
        "@BRANCH@": ProjectSection().notebooks_branch,
        "@SITE@": site.name,
        "@SITE_DIR@": _folder(site),
        "@STUDENTS_DIR@": _folder(students),
        "@LAST_CHECK@": RESTORE_LAST_CHECK,
    }
    text = TEMPLATE
    for mark, value in replacements.items():
        text = text.replace(mark, value)
    return text


def workflow_files(frameworks: tuple[str, ...], gpu_runner: str = "") -> dict[str, str]:
    """The workflows (the book's, the weekly check's), and actionlint's settings naming
    the self-hosted runner's label."""
    files = {
        WORKFLOW: workflow(frameworks, gpu_runner),
        COMPAT_WORKFLOW: compat_workflow(frameworks),
    }
    if gpu_runner:
        files[LINT_CONFIG] = (
            "# The labels of the book's self-hosted runners, for actionlint.\n"
            f"self-hosted-runner:\n  labels:\n    - {gpu_runner}\n"
        )
    return files
