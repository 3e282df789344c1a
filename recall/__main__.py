"""``python -m recall`` runs the CLI."""

from recall.cli.main import entry

entry()
