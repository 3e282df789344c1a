"""The ``tether`` console script and ``python -m recall``: an agent's per-prompt and per-edit
commands are first offered to the project's warm engine (:mod:`recall.warm.client`), before
anything heavy is imported; everything else, and those when no engine answers, run here
(:mod:`recall.cli.main`)."""

from __future__ import annotations

import gc
import os
import sys


def entry() -> None:
    """Console-script entry point."""
    words = sys.argv[1:]
    if words[:1] in (["inject"], ["hook"]):
        gc.disable()  # see recall.cli.main.ONE_SHOT
    # a closed standard input or output is left to recall.cli.main, which says so
    if _served_word(words) and sys.stdin and sys.stdout:
        from recall.warm.client import served

        code = served(words)
        if code is not None:
            sys.exit(code)
        _look_early(words)
    from recall.cli.main import entry as run_here

    run_here()


def _served_word(words: list[str]) -> bool:
    """Whether ``words`` run ``inject`` (after the options every command takes, or none) or
    ``hook``: a command the warm engine may answer."""
    if words[:1] == ["hook"]:
        return True
    from recall.cli.leading_options import command_word

    return command_word(words) == "inject"


def _look_early(words: list[str]) -> None:
    """Have the project's memory folder looked at in a child (one per core for an edit's hook)
    while this command imports what it runs on (:mod:`recall.index.early_look`)."""
    from recall.warm.client import HOOK_EVENTS, command_folder
    from recall.warm.protocol import find_root

    if words[0] == "hook" and (len(words) != 2 or words[1] not in HOOK_EVENTS):
        return  # refused before any input is read: never wait for one here
    where = command_folder(words)
    try:
        root = find_root(where) if where is not None else None
    except (OSError, ValueError):  # a folder that cannot be looked up: the command will say
        return
    if root is not None:
        from recall.index.early_look import SPREAD_EVENTS, begin

        spread = words[0] == "hook" and words[1] in SPREAD_EVENTS
        begin(os.path.join(root, ".tether", "memories"), spread)
