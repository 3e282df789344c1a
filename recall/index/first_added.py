"""When git says each memory file was added: the date a memory written by hand without
``created:`` takes when first indexed, so that a fresh clone (whose files all have the time
of the checkout) does not date every such memory at that moment. One git call per sync that
needs it, none when no file read lacks ``created:``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from recall.clock import format_timestamp


class FirstAdded:
    """The date of the commit that added each memory file of a folder, asked of git once
    (at the first question) for the whole folder; None for a file git never committed, or
    when git cannot say (no repository: the global store, most often)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._dates: dict[str, str] | None = None

    def __call__(self, name: str) -> str | None:
        """When the file ``name`` of the folder was last added, as the index writes a time."""
        if self._dates is None:
            self._dates = _added_dates(self.folder)
        return self._dates.get(name)


def _added_dates(folder: Path) -> dict[str, str]:
    """Each file of ``folder`` git saw added, with the author date of its latest addition."""
    from recall.gitquery import git_stdout
    from recall.known_paths import GIT_TIMEOUT_S

    out = git_stdout(
        folder,
        "log", "--diff-filter=A", "--no-renames", "--relative", "--name-only",
        "--format=%x00%aI", "--", ".",
        timeout=GIT_TIMEOUT_S,
    )  # fmt: skip
    dates: dict[str, str] = {}
    if out is None:
        return dates
    when: str | None = None
    for line in out.decode("utf-8", errors="replace").splitlines():
        if line.startswith("\0"):
            try:
                when = format_timestamp(datetime.fromisoformat(line[1:]).astimezone(UTC))
            except ValueError:
                when = None
        elif line and when is not None and "/" not in line:
            dates.setdefault(line, when)  # newest first: the latest addition wins
    return dates
