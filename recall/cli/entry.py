"""The ``tether`` console script and ``python -m recall``: an agent's per-prompt and per-edit
commands are first offered to the project's warm engine (:mod:`recall.warm.client`), before
anything heavy is imported; everything else, and those when no engine answers, run here
(:mod:`recall.cli.main`)."""

from __future__ import annotations

import gc
import sys


def entry() -> None:
    """Console-script entry point."""
    words = sys.argv[1:]
    if words[:1] in (["inject"], ["hook"]):
        gc.disable()  # see recall.cli.main.ONE_SHOT
        from recall.warm.client import served

        code = served(words)
        if code is not None:
            sys.exit(code)
    from recall.cli.main import entry as run_here

    run_here()
