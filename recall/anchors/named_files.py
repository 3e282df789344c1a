"""The files of a change that a memory names, by any name the file had: its name at the base,
the name a rename in the change gives it, or a name it had before a rename before the base
(a memory written before ``git mv`` and not repointed since), as recall's file channel
follows renames; and what ``tether check`` says of each."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from recall.anchors.diff import Change
from recall.anchors.findings import FAIL, REVIEW, Finding, guard_fix, pinned_and_gone
from recall.file_names import earlier_dated, later_name
from recall.model import Memory
from recall.written_moments import written_before

AT_BASE = "at base"
"""The memory names the file as the base does."""
RENAMED_IN_CHANGE = "renamed in the change"
"""The memory names the file by the name a rename in the change gives it (repointed, or
written with the change)."""
BEFORE_RENAME = "before a rename"
"""The memory names the file by a name it had before a rename that came before the base."""


@dataclass(frozen=True)
class Named:
    """A changed file a memory names: the name it gives it, the change, and which name it is."""

    path: str
    change: Change
    how: str


class ChangedNames:
    """The files of a change by every name a memory may give them. ``index`` is the project's
    index, whose genome knows git's renames (None: renames before the base are not followed)."""

    def __init__(self, root: Path, changes: list[Change], index: sqlite3.Connection | None):
        """Index ``changes`` by name; the exact names win over the names before a rename."""
        self.root, self.index = root, index
        found: dict[str, tuple[Change, str]] = {}
        self._before: dict[str, float] = {}
        """When a memory naming an earlier name must be written by (a reused name's return)."""
        for change in changes:
            if index is not None and change.status != "A":
                for earlier in earlier_dated(index, change.old, self._is_file):
                    found[earlier.name] = (change, BEFORE_RENAME)
                    self._before[earlier.name] = earlier.before
        for change in changes:
            if change.status == "R":
                found[change.new] = (change, RENAMED_IN_CHANGE)
        for change in changes:
            found[change.old] = (change, AT_BASE)
        self._found = found

    def named(self, memory: Memory) -> list[Named]:
        """The changed files ``memory`` names, each once, in the order it names them."""
        found: list[Named] = []
        for path in memory.files:
            hit = self._found.get(path)
            by_old_name = hit is not None and hit[1] == BEFORE_RENAME
            if by_old_name and not written_before(memory.created, self._before[path]):
                continue  # written after the name was taken again: about that file
            if hit is not None and all(hit[0] is not n.change for n in found):
                found.append(Named(path, *hit))
        return found

    def _is_file(self, name: str) -> bool:
        """Whether ``name`` is a file of the repository now."""
        return (self.root / name).is_file()

    def renamed(self, named: Named) -> tuple[str, str] | None:
        """The name the memory gives the file and its name now, when git's history shows the
        file renamed away from it to a file that exists (what ``tether repoint`` writes)."""
        leaves = named.how == BEFORE_RENAME or named.change.status in "DR"
        if named.how == RENAMED_IN_CHANGE or not leaves or self.index is None:
            return None
        new = later_name(self.index, named.path)
        if new is None or new == named.path or not (self.root / new).is_file():
            return None
        return named.path, new

    def guard_holds(self, named: Named) -> bool:
        """Whether the change leaves the file's code as it was under the name the memory gives
        it: a rename of unchanged content to that name."""
        return named.how == RENAMED_IN_CHANGE and named.change.same


def file_findings(
    memory: Memory,
    named: Named,
    first: dict[str, int],
    guard_fails: bool,
    renamed: tuple[str, str] | None = None,
    why: str = "",
) -> list[Finding]:
    """What the change did to one file ``memory`` names (``first``: each changed file's first
    changed line); a failure when the change moves or deletes the file of a pinned memory that
    does not name it by its new name, or when ``guard_fails``, with ``renamed`` (see
    :meth:`ChangedNames.renamed`) saying to repoint it."""
    change, path = named.change, named.path
    line = first.get(change.new, 1)
    if change.status == "D":
        reason = f"the change deletes {change.old}"
    elif change.status == "R":
        reason = f"the change moves {change.old} to {change.new}"
    elif change.status == "A":
        reason = f"the change adds {change.new}"
    else:
        reason = f"the change edits {change.old}"
    if named.how == BEFORE_RENAME:
        reason += f" (the memory names it {path}, its name before a rename)"
    found = []
    if memory.pinned and change.status in "DR" and named.how != RENAMED_IN_CHANGE:
        fix = (
            f"; the memory is pinned: `tether repoint {memory.id} --apply`"
            if change.status == "R"
            else pinned_and_gone(memory)
        )
        found.append(Finding(FAIL, memory, change.new, line, reason, fix))
    else:
        found.append(Finding(REVIEW, memory, change.new, line, reason))
    if guard_fails:
        fix = guard_fix(memory, renamed=renamed, edited=not change.same)
        found.append(Finding(FAIL, memory, change.new, line, reason + why, fix))
    return found
