"""References that die or drift: memories whose files are gone, or changed a lot since.

A dead reference is a memory whose every named path is gone from the working tree; where git
shows a rename, the new name is offered (never applied here: ``tether repoint --apply`` does
that). Drift is a memory whose files saw :data:`~recall.ranking.weights.DRIFT_COMMITS` commits
or more since it was created or last confirmed (the ``confirmed`` front-matter key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from recall.errors import BadInput
from recall.model import Memory
from recall.ranking.weights import DRIFT_COMMITS
from recall.store import MemoryStore

# Front-matter keys this module reads and ``repoint``/``confirm`` write.
CONFIRMED_KEY = "confirmed"
FORMER_FILES_KEY = "former_files"


def with_lifecycle_keys(store: MemoryStore, memory: Memory) -> Memory:
    """``memory`` with the ``confirmed`` and ``former_files`` keys of its file in ``extra``.

    The index keeps only the fields recall ranks on, so these are read from the file itself; a
    file that cannot be read or parsed now leaves the memory as it was (doctor reports it).
    """
    from recall import frontmatter

    try:
        text = store.path_of(memory.id).read_text(encoding="utf-8")
        fields = frontmatter.parse(text, store.path_of(memory.id)).fields
    except (OSError, UnicodeDecodeError, BadInput):
        return memory
    keys = {k: fields[k] for k in (CONFIRMED_KEY, FORMER_FILES_KEY) if k in fields}
    return memory.with_changes(extra={**memory.extra, **keys}) if keys else memory


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


@dataclass(frozen=True)
class Drift:
    """A memory whose files have changed a lot since it was written or confirmed."""

    memory: Memory
    since: str
    commits: int  # the most commits any one of its files saw since then

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.memory.id, "since": self.since, "commits": self.commits}


def _new_name(path: str, genome: Any) -> str | None:
    finder = getattr(genome, "renamed_to", None)  # a plain working tree knows no history
    new = finder(path) if finder else None
    return new if new and new != path and genome.exists(new) else None


def dead_reference(memory: Memory, genome: Any) -> DeadReference | None:
    """The dead reference of ``memory`` if every one of its files is gone, else None."""
    if not memory.files or any(genome.exists(path) for path in memory.files):
        return None
    return DeadReference(memory, {path: _new_name(path, genome) for path in memory.files})


def renames(memory: Memory, genome: Any) -> dict[str, str]:
    """Each of the memory's files that is gone but was renamed: old path -> current name."""
    found: dict[str, str] = {}
    for path in memory.files:
        if not genome.exists(path):
            new = _new_name(path, genome)
            if new:
                found[path] = new
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


def baseline(memory: Memory) -> str:
    """When the memory was last known good: its ``confirmed`` time, else its creation."""
    confirmed = memory.extra.get(CONFIRMED_KEY)
    if isinstance(confirmed, datetime):  # a hand-written, unquoted YAML timestamp
        confirmed = confirmed.isoformat()
    return confirmed if isinstance(confirmed, str) and confirmed else memory.created


def drift(
    memory: Memory,
    genome: Any,
    threshold: int = DRIFT_COMMITS,
    counted: Mapping[tuple[str, str], int] | None = None,
) -> Drift | None:
    """The drift of ``memory`` if one of its files saw ``threshold`` commits since, else None.

    The count is per file (the busiest one), not summed: one commit touching three of its files
    is one change, not three. ``counted`` holds counts already asked of the genome for
    ``(path, since)`` pairs (``Genome.commits_touching_many``); the others are asked here.
    """
    counter = getattr(genome, "commits_touching", None)
    since = baseline(memory)
    if counter is None or not since or not memory.files:
        return None
    most = 0
    for path in memory.files:
        known = counted.get((path, since)) if counted is not None else None
        try:
            most = max(most, known if known is not None else counter(path, since))
        except BadInput:
            return None  # an unreadable date in a hand-edited file: no claim either way
    return Drift(memory, since, most) if most >= threshold else None
