"""The weekly GitHub Actions workflow of a new book: ``polybook compat`` checks the book
against each framework's newest release and the ``[compat]`` targets without rebuilding it
(the executions restored from the book workflow's caches), publishes ``compat.json`` and its
reports beside the site last deployed, and opens (or updates) one issue listing the
sections that newly fail."""

from __future__ import annotations

import sys

WORKFLOW = ".github/workflows/compat.yml"
NEWLY_FAILING = "_build/compat/newly-failing.md"
ISSUE_TITLE = "Sections that fail with new framework releases"

TEMPLATE = """\
# Checks the book every week against each framework's newest release and the [compat]
# targets, without rebuilding it: publishes compat.json beside the site (the pages read it
# when it is newer than their build) and opens, or updates, one issue listing the sections
# that newly fail. Made by `polybook new --ci github`.
name: compat

on:
  schedule:
    - cron: "23 4 * * 1"
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: compat
  cancel-in-progress: false

env:
  PYTHON_VERSION: "@PYTHON@"

jobs:
  check:
    runs-on: ubuntu-latest
    timeout-minutes: 360
    permissions:
      contents: read
      issues: write
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: ${{ env.PYTHON_VERSION }}
          cache: pip
          cache-dependency-path: requirements/**/*.txt
      - name: Install polybook
        run: python -m pip install -r requirements/polybook.txt
@RESTORES@
      - name: Restore the last check and its side builds
        uses: actions/cache@v5
        with:
          path: |
            _build/compat
            _build/side
          key: compat-${{ github.run_id }}
          restore-keys: compat-
      - name: Set up the environments
        run: polybook env setup
      - name: The current build, from the execution cache
        run: polybook build eval
      - name: Check every section against the new releases
        run: polybook compat --newly-failing @NEWLY@
      - uses: actions/upload-artifact@v6
        with:
          name: compat
          path: |
            _build/compat/compat.json
            _build/compat/reports
          if-no-files-found: error
          retention-days: 30
      - name: Open or update the issue of the sections that newly fail
        env:
          GH_TOKEN: ${{ github.token }}
          TITLE: @TITLE@
        run: |
          if [ ! -s @NEWLY@ ]; then
            echo "no section newly fails"
            exit 0
          fi
          number=$(gh issue list --state open --search "in:title \\"$TITLE\\"" \\
            --json number --jq '.[0].number // empty')
          if [ -n "$number" ]; then
            gh issue edit "$number" --body-file @NEWLY@
          else
            gh issue create --title "$TITLE" --body-file @NEWLY@
          fi

  publish:
    if: github.ref_name == github.event.repository.default_branch
    needs: check
    runs-on: ubuntu-latest
    permissions:
      actions: read
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - name: The site the book workflow deployed last
        env:
          GH_TOKEN: ${{ github.token }}
          GH_REPO: ${{ github.repository }}
          BRANCH: ${{ github.event.repository.default_branch }}
        run: |
          run=$(gh run list --workflow book.yml --branch "$BRANCH" --status success \\
            --limit 1 --json databaseId --jq '.[0].databaseId')
          gh run download "$run" --name book --dir book
      - uses: actions/download-artifact@v7
        with:
          name: compat
          path: book/html/compat
      - uses: actions/upload-pages-artifact@v4
        with:
          path: book/html
      - id: deployment
        uses: actions/deploy-pages@v5
"""

RESTORE = """\
      - name: Restore the executions of @FW@
        uses: actions/cache/restore@v5
        with:
          path: _build/cache
          key: exec-@FW@-${{ github.run_id }}
          restore-keys: exec-@FW@-"""

# The book workflow's build job: the last check's record restored, so that the site it
# deploys shows it.
RESTORE_LAST_CHECK = """\
      - name: Restore the last check of `polybook compat`
        uses: actions/cache/restore@v5
        with:
          path: _build/compat
          key: compat-${{ github.run_id }}
          restore-keys: compat-
"""


def compat_workflow(frameworks: tuple[str, ...]) -> str:
    """The weekly workflow's text for a book of ``frameworks``."""
    restores = "\n".join(RESTORE.replace("@FW@", fw) for fw in frameworks)
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    text = TEMPLATE
    for mark, value in {
        "@PYTHON@": python,
        "@RESTORES@": restores,
        "@NEWLY@": NEWLY_FAILING,
        "@TITLE@": ISSUE_TITLE,
    }.items():
        text = text.replace(mark, value)
    return text
