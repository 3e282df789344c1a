"""References that died: memories whose every named path is gone from the working tree.

Where git shows a rename, the new name is offered (never applied here: ``tether repoint
--apply`` does that). Only the maintenance commands and the cleanup ask, never a recall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recall.file_kinds import special_kind
from recall.known_paths import in_unopened
from recall.lifecycle.references import FORMER_FILES_KEY
from recall.model import Memory
from recall.named_files import unfit_reason
from recall.written_moments import written_before, written_since


@dataclass(frozen=True)
class DeadReference:
    """A memory whose every file is gone, with the new name of each one git saw renamed."""

    memory: Memory
    renamed: dict[str, str | None]  # old path -> its current name, or None when just deleted

    @property
    def proposed(self) -> list[str]:
        """The file list after a repoint: renamed paths swapped, deleted ones dropped."""
        return list(dict.fromkeys(new for new in self.renamed.values() if new))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.memory.id, "files": list(self.memory.files), "renamed": self.renamed}


def _new_name(path: str, genome: Any) -> str | None:
    finder = getattr(genome, "renamed_to", None)  # a plain working tree knows no history
    new = finder(path) if finder else None
    return new if new and new != path and genome.exists(new) else None


def follows(memory: Memory, path: str, new: str, genome: Any) -> bool:
    """Whether ``memory``, naming ``path``, is about the file renamed away from it and now at
    ``new``, by the rule recall follows renames by (:func:`recall.file_names.dated_names`): the
    name is no file's now, or another file took it again after the memory was written."""
    dated = getattr(genome, "earlier_names", None)
    if dated is None:  # no dates to go by: only a name no file has now is followed
        return not genome.exists(path)
    return any(n.name == path and written_before(memory.created, n.before) for n in dated(new))


def _followed(memory: Memory, path: str, genome: Any) -> str | None:
    new = _new_name(path, genome)
    return new if new is not None and follows(memory, path, new, genome) else None


def is_its_file(memory: Memory, path: str, genome: Any) -> bool:
    """Whether the file at ``path`` now is the one ``memory`` names by it, as recall reads it
    (:func:`recall.file_names.held_since`): it is there, and when it took the name after
    another file was renamed away from it, the memory was written since; written before, the
    memory is about the file that left."""
    if not genome.exists(path):
        return False
    own_name = getattr(genome, "own_name", None)  # a plain working tree knows no history
    return own_name is None or written_since(memory.created, own_name(path).after)


def _still_there(memory: Memory, path: str, genome: Any) -> bool:
    """Whether ``path`` names a file for ``memory``: its own (:func:`is_its_file`), or, when
    another file took the name, the one the memory follows to its new name (said as renamed)."""
    if not genome.exists(path):
        return False
    return is_its_file(memory, path, genome) or _followed(memory, path, genome) is not None


def unopened_files(memory: Memory, genome: Any) -> dict[str, str]:
    """Each of the memory's files that lies in a submodule not checked out here, with that
    submodule's folder: whether such a file is there cannot be told (its files are not on
    disk), so it is never said to be gone."""
    finder = getattr(genome, "unopened_submodule", None)  # a plain working tree knows none
    found = {path: finder(path) for path in memory.files} if finder is not None else {}
    return {path: folder for path, folder in found.items() if folder is not None}


def dead_reference(memory: Memory, genome: Any) -> DeadReference | None:
    """The dead reference of ``memory`` if every one of its files is gone (a name another file
    took since, the memory's file renamed away and deleted, counting as gone), else None; a
    file in a submodule not checked out here is not known to be gone (:func:`unopened_files`)."""
    if not memory.files or any(_still_there(memory, path, genome) for path in memory.files):
        return None
    if unopened_files(memory, genome):
        return None
    return DeadReference(memory, {path: _followed(memory, path, genome) for path in memory.files})


def renames(memory: Memory, genome: Any) -> dict[str, str]:
    """Each of the memory's files that was renamed, the memory following it: old path ->
    current name. The old name may be a file again, one that took it after the memory was
    written (recall already follows the rename: see :func:`follows`)."""
    found: dict[str, str] = {}
    for path in memory.files:
        new = _followed(memory, path, genome)
        if new:
            found[path] = new
    return found


def renamed_then_gone(memory: Memory, genome: Any) -> dict[str, str]:
    """Each of the memory's files that is gone, renamed before it went: old path -> the last
    name it had (no file's now), so a repoint has nothing to point it to."""
    finder = getattr(genome, "renamed_to", None)
    found: dict[str, str] = {}
    for path in memory.files:
        last = finder(path) if finder and not is_its_file(memory, path, genome) else None
        if last and last != path and not genome.exists(last):
            found[path] = last
    return found


def deleted_after_rename(gone: dict[str, str]) -> str:
    """How ``tether repoint`` and ``tether doctor`` say that the files of ``gone``
    (:func:`renamed_then_gone`: old path -> the last name it had) were renamed and then
    deleted, after ``git shows``: ``OLD -> LAST, deleted since``."""
    arrows = ", ".join(f"{old} -> {last}" for old, last in gone.items())
    return f"{arrows}, deleted since"


def files_now(memory: Memory, genome: Any) -> dict[str, str]:
    """Each of the memory's files no longer in the working tree under the name it gives, with
    what became of it, as ``tether repoint`` and ``tether doctor`` say it: renamed (the memory
    following it: ``renamed to NEW``), renamed and then deleted, or deleted. A file it names
    that is there is left out; so is every file for a store without a repository's tree. A
    folder or one of git's own files is said to be one, as a write refuses it; a named pipe
    (a socket, a device) in a file's place is said to be one too."""
    moved = renames(memory, genome)
    gone = renamed_then_gone(memory, genome)
    unopened = unopened_files(memory, genome)
    found: dict[str, str] = {}
    for path in memory.files:
        if path in moved:
            found[path] = f"renamed to {moved[path]}"
        elif path in gone:
            found[path] = f"git shows {deleted_after_rename({path: gone[path]})}"
        elif path in unopened:
            found[path] = in_unopened(unopened[path])
        elif not is_its_file(memory, path, genome):
            root = getattr(genome, "repo_root", None)
            unfit = unfit_reason(root, path)
            kind = special_kind(root / path) if root is not None and unfit is None else None
            gone = "not in the working tree (deleted, or not written yet)"
            found[path] = unfit or (f"{kind}, not a regular file" if kind else gone)
    return found


def repointed(memory: Memory, moved: dict[str, str]) -> tuple[list[str], list[str]]:
    """The memory's file list with ``moved`` applied, and its former files with the old added.

    Paths that are gone without a known rename are kept as they are: dropping a name is a
    person's call, not this function's.
    """
    files = list(dict.fromkeys(moved.get(path, path) for path in memory.files))
    former = memory.extra.get(FORMER_FILES_KEY)
    earlier = [p for p in former if isinstance(p, str)] if isinstance(former, list) else []
    return files, list(dict.fromkeys([*earlier, *moved]))
