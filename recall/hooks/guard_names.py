"""The names an edited file goes by for its guards and gotchas: its own, the link an edit went
through, and its earlier names, each dated as recall dates it (a reused name counts only for the
memories written before it was taken again: :func:`recall.file_names.dated_names`). The full
guard check and its plain fallback both take them from here, so they ask about the same
memories on an earlier name."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from recall.file_names import EarlierName, earlier_dated
from recall.hooks.guard_moves import anchored_here
from recall.hooks.logfile import _notice
from recall.hooks.session_notes import logged
from recall.written_moments import written_before

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def with_link(names: tuple[str, ...], link: str | None) -> tuple[str, ...]:
    """The names of the edited file, and last the link the edit went through (a memory may
    name the file by it)."""
    return names if link is None or link in names else (*names, link)


def catch_up_renames(project: MemoryStore, path: str) -> None:
    """Bring the renames of ``project``'s genome up to HEAD before the edit of ``path`` reads
    them, as recall does: a rename committed since the last refresh (a ``git mv`` the agent
    committed this turn) must not get the file past its guards. Only the commits since are
    read (:func:`recall.genome.catch_up.catch_up`, no rebuild in a hook); a history read
    from nothing, rewritten or held by another writer is left to the next recall, and the
    renames are read as last recorded. Never raises: the guard check runs whatever happens."""
    from recall.genome.catch_up import catch_up

    try:
        catch_up(project, notice=_notice, rebuild=False)
    except Exception:
        logged("bringing git's renames up to date before the edit of %s failed", path)


def dated_earlier(project: MemoryStore, path: str, staged: bool = False) -> list[EarlierName]:
    """The earlier names of ``path`` a memory may name it by, dated as recall dates them (the
    caller brought the renames up to date: :func:`catch_up_renames`); with ``staged`` (before
    an edit) through a rename staged and not committed yet instead, when there is one
    (:func:`recall.hooks.staged_renames.staged_earlier`): the names its commit will give, as
    the last rename into a name is the one a committed history follows back from it."""
    if staged:
        from recall.hooks.staged_renames import staged_earlier

        through = staged_earlier(project, path)
        if through is not None:
            return through
    return earlier_dated(project.conn, path, lambda name: _is_file(project.repo_root, name))


def earlier_or_none(project: MemoryStore, path: str, staged: bool = False) -> list[EarlierName]:
    """:func:`dated_earlier`, or none when even that fails (the file's own name is known)."""
    try:
        return dated_earlier(project, path, staged)
    except Exception:
        logged("reading the earlier names of %s failed", path)
        return []


def _is_file(root: Path | None, name: str) -> bool:
    """Whether ``name`` is a file of the repository at ``root`` now."""
    return root is not None and (root / name).is_file()


def names_it(memory: Memory, names: tuple[str, ...], before: Mapping[str, float]) -> bool:
    """Whether ``memory`` names the file by one of its ``names``, an earlier name only when it
    was written before the moment ``before`` gives that name (none given: any time)."""
    return any(
        name in memory.files and written_before(memory.created, before.get(name, math.inf))
        for name in names
    )


def every_guard(
    project: MemoryStore, names: tuple[str, ...], earlier: Sequence[EarlierName] = ()
) -> list[Memory]:
    """The guarded memories of the file ``names[0]`` (by any of its ``names``, an earlier one
    as ``earlier`` dates it) found the plainest way, for when the full check failed (none when
    even that fails: then nothing is known to ask about)."""
    path = names[0]
    before = {n.name: n.before for n in earlier}
    try:
        listed = project.list(file=path, earlier=names[1:])
        listed = [m for m in listed if m.guard and names_it(m, names, before)]
        seen = {m.id for m in listed}
        return listed + [m for m in anchored_here(project, path) if m.id not in seen]
    except Exception:
        logged("listing the guards of %s failed", path)
        return []
