"""``python -m polybook``: the ``polybook`` command."""

from polybook.commands.cli import entry

if __name__ == "__main__":
    entry()
