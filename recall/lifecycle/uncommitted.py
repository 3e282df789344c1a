"""Renames not committed yet (``git mv`` staged, or a rename git's status shows otherwise),
which ``tether repoint`` cannot follow: it reads renames from the committed history, so a
memory whose file was renamed but not committed is told so, with what to do, rather than that
nothing was renamed."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from recall.anchors.suggest import renamed_in_place_fix
from recall.anchors.write import close_symbols_in_tree
from recall.display import visible
from recall.gitquery import git_stdout
from recall.known_paths import mean_clause
from recall.model import Memory

GIT_TIMEOUT_S: Final = 30
"""How long ``git status`` may take: it compares the index and the working tree with HEAD."""


def uncommitted_renames(root: Path, paths: Iterable[str]) -> dict[str, str | None]:
    """Each of ``paths`` gone from the working tree that git's status shows renamed (staged,
    or intent-to-add), with its new name, or deleted but not committed (a plain ``mv``), with
    None; empty when git cannot say."""
    gone = [path for path in dict.fromkeys(paths) if not os.path.lexists(root / path)]
    if not gone:
        return {}
    # no pathspec: one limited to the old names would hide the new ones, and the rename with them
    raw = git_stdout(
        root, "status", "--porcelain=v1", "-z", "-M", "--untracked-files=no", timeout=GIT_TIMEOUT_S
    )
    raw = raw if raw is not None else b""
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, str | None] = {}
    at = 0
    while at < len(fields):
        entry = fields[at]
        at += 1
        if ("R" in entry[:2] or "C" in entry[:2]) and at < len(fields):  # the old name follows
            if "R" in entry[:2]:
                found[fields[at]] = entry[3:]
            at += 1
        elif "D" in entry[:2]:
            found.setdefault(entry[3:], None)
    return {old: new for old, new in found.items() if old in gone}


def not_repointed(memory: Memory, root: Path | None) -> str:
    """Why ``repoint`` has nothing to do for ``memory``: a rename of one of its files that is
    not committed yet, named with what to do, or else that nothing it names moved."""
    paths = [*memory.files, *(anchor.path for anchor in memory.anchors)]
    found = uncommitted_renames(root, paths) if root is not None else {}
    staged = {old: new for old, new in found.items() if new is not None}
    again = f"then run `tether repoint {memory.id}` again"
    if staged:
        arrows = ", ".join(visible(f"{old} -> {new}") for old, new in staged.items())
        return (
            f"memory {memory.id}: git shows {arrows} renamed but not committed; repoint follows "
            f"only committed renames: commit the rename, {again}"
        )
    if found:
        names = ", ".join(map(visible, found))
        return (
            f"memory {memory.id}: {names} deleted but not committed; repoint follows only "
            f"committed renames: if it was renamed, stage the rename (`git add` both names) and "
            f"commit it, {again}"
        )
    return (
        f"memory {memory.id}: no file it names was renamed away "
        f"({', '.join(memory.files) or 'no files'}) and no symbol it anchors moved"
        + "".join(_renamed_in_place(memory, root))
    )


def _renamed_in_place(memory: Memory, root: Path | None) -> list[str]:
    """For each anchored name its file no longer defines but defines some spelt close to it
    (renamed where it is, which ``repoint`` does not follow), those names and what to do."""
    said = []
    for anchor in memory.anchors:
        close = close_symbols_in_tree(root, anchor.path, anchor.name)
        if close:
            said.append(
                f"; the working tree defines no {anchor.name} in {anchor.path}{mean_clause(close)} "
                f"({renamed_in_place_fix(memory.id, anchor.path)})"
            )
    return said
