"""References that drift: memories whose files changed a lot since they were written.

Drift is a memory whose files saw :data:`~recall.ranking.weights.DRIFT_COMMITS` commits or more
since it was created or last confirmed (the ``confirmed`` front-matter key); every recall marks
it. References that died (files gone) are in :mod:`recall.lifecycle.dead`, which only the
maintenance commands and the cleanup ask about.
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
class Drift:
    """A memory whose files have changed a lot since it was written or confirmed."""

    memory: Memory
    since: str
    commits: int  # the most commits any one of its files saw since then

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.memory.id, "since": self.since, "commits": self.commits}


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
