"""``python -m recall`` runs the CLI."""

import gc

# An agent's per-prompt and per-edit commands run without the cyclic collector from their
# first import on (see recall.cli.main.ONE_SHOT); entry() turns it back on for the others.
gc.disable()

from recall.cli.entry import entry  # noqa: E402

entry()
