"""Where the hooks write for the person: ``hooks.log`` in the project store's folder (or the
user's own), one line per record; never the agent's stdout, and stderr (which the agent does
not read as an answer) only for what the person must fix before the hook can do its work."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import logging

LOG_NAME: Final = "hooks.log"

LOGGER: Final = "recall.hooks"
"""The logger writing the ``hooks.log`` file; ``recall.hooks.log`` is that logger,
made on first use (see :func:`recall.hooks.__getattr__`)."""


def _logger() -> logging.Logger:
    """The hooks' logger. ``logging`` is imported here, on first use, not above: most hook
    calls log nothing, and each is a whole process on the agent's clock."""
    import logging

    return logging.getLogger(LOGGER)


_notice_cwd: list[Path | None] = [None]
"""The working directory of the hook call being handled: where its notices are logged."""


def _notice(message: str) -> None:
    """A notice for the person (a settings key ignored, a store read-only): the hook's answer
    goes to the agent, so notices go to ``hooks.log`` in the project's store folder."""
    try:
        _log_to(_notice_cwd[0])
        _logger().warning("notice: %s", message)
    except Exception:  # logging must never fail the agent
        return


def _say(line: str) -> None:
    """One line on stderr, which the agent does not read as an answer; never fails the hook."""
    import contextlib
    import sys

    with contextlib.suppress(Exception):  # a closed stderr must not cost the answer
        print(line, file=sys.stderr, flush=True)


def _log_to(cwd: Path | None) -> None:
    """Send this module's log to ``hooks.log`` in the project store's folder (or the global).

    The file is opened for appending without following a link at its name (a cloned
    repository may have committed one), and every record is written on one line with control
    characters escaped, so text read from the repository cannot forge or break log lines.
    When the project's log cannot be written (a read-only checkout, a full disk) the records go
    to the global folder's, and when neither can they are dropped: never raised, never printed.
    """
    log = _logger()
    if log.handlers:
        return
    import logging

    from recall.locations import project_location

    base: Path | None = None
    if cwd is not None:
        try:
            base = project_location(cwd.resolve()).base
        except Exception:  # no repository, or an unsafe store: the global folder instead
            base = None
    from recall.safe_log import one_line_file_handler

    if base is None or not base.is_dir():
        handler = one_line_file_handler(_global_log())
    else:
        handler = one_line_file_handler(base / LOG_NAME, fallback=_global_log)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def _global_log() -> Path:
    """``hooks.log`` in the user's own folder, created owner-only (and the folder with it);
    :class:`recall.locations.HomeUnusable` when ``TETHER_HOME`` cannot be that folder, as the
    hook call's store would refuse it (a relative one would land in the working directory)."""
    from recall import privacy
    from recall.locations import global_location

    base = global_location(_notice_cwd[0] or Path.cwd()).base  # the user's private folder
    base.mkdir(parents=True, exist_ok=True, mode=privacy.DIR_MODE)
    privacy.create_private(base / LOG_NAME)
    return base / LOG_NAME
