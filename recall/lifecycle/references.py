"""References that drift: memories whose files changed a lot since they were written.

Drift is a memory whose files saw :data:`~recall.ranking.weights.DRIFT_COMMITS` commits or more
since it was created or last confirmed (the ``confirmed`` front-matter key); every recall marks
it. References that died (files gone) are in :mod:`recall.lifecycle.dead`, which only the
maintenance commands and the cleanup ask about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from recall.anchors.symbols import SymbolAnchor
from recall.errors import BadInput
from recall.model import Memory
from recall.ranking.weights import DRIFT_COMMITS
from recall.store import MemoryStore
from recall.store.changes import DELETED_FROM_KEY

# Front-matter keys this module reads and ``repoint``/``confirm`` write.
CONFIRMED_KEY = "confirmed"
FORMER_FILES_KEY = "former_files"
GIVEN_FILES_KEY = "given_files"
"""The files of a memory the person named themselves that one of its symbol anchors is also in
(a write adds an anchor's file to the files, so only this tells the two apart): ``repoint``
keeps them when every anchor moves away. Written only for such files (any other file in
``files`` was named by the person), so a memory without it reads as before."""


def with_lifecycle_keys(store: MemoryStore, memory: Memory) -> Memory:
    """``memory`` with the ``confirmed``, ``former_files``, ``given_files`` and
    ``deleted_from`` keys of its file in ``extra``.

    The index keeps only the fields recall ranks on, so these are read from the file itself; a
    file that cannot be read or parsed now leaves the memory as it was (doctor reports it).
    """
    from recall import frontmatter

    try:
        text = store.path_of(memory.id).read_text(encoding="utf-8")
        fields = frontmatter.parse(text, store.path_of(memory.id)).fields
    except (OSError, UnicodeDecodeError, BadInput):
        return memory
    wanted = (CONFIRMED_KEY, FORMER_FILES_KEY, GIVEN_FILES_KEY, DELETED_FROM_KEY)
    keys = {k: fields[k] for k in wanted if k in fields}
    return memory.with_changes(extra={**memory.extra, **keys}) if keys else memory


def given_files(given: Iterable[str], anchors: Iterable[SymbolAnchor]) -> list[str]:
    """The files of ``given`` (named by the person) that an anchor of ``anchors`` is in: the
    value of :data:`GIVEN_FILES_KEY` (empty: the key is not written)."""
    anchored = {anchor.path for anchor in anchors}
    return [path for path in dict.fromkeys(given) if path in anchored]


def with_given_files(draft: Memory, named: Iterable[str]) -> Memory:
    """``draft`` (its anchors set) with :data:`GIVEN_FILES_KEY` listing the files of ``named``
    (named by the person) that one of its anchors is in; without the key when there is none."""
    given = given_files(named, draft.anchors)
    extra = {key: value for key, value in draft.extra.items() if key != GIVEN_FILES_KEY}
    if given:
        extra[GIVEN_FILES_KEY] = given
    return draft if extra == draft.extra else draft.with_changes(extra=extra)


def named_by_person(memory: Memory) -> list[str]:
    """The files of ``memory`` the person named (read with :func:`with_lifecycle_keys`), in its
    order: those no anchor is in, and those its :data:`GIVEN_FILES_KEY` lists."""
    anchored = {anchor.path for anchor in memory.anchors}
    listed = memory.extra.get(GIVEN_FILES_KEY)
    given = {p for p in listed if isinstance(p, str)} if isinstance(listed, list) else set()
    return [path for path in memory.files if path not in anchored or path in given]


def replacement_files(
    old: Memory, named: Iterable[str], added: Iterable[str], *, new_anchors: bool
) -> list[str]:
    """The files of a memory replacing ``old`` when no files are given for it: new anchors
    (``new_anchors``) replace the old, so of the old files only those the person named
    (``named``, from :func:`named_by_person`) stay, else all of them; then each of ``added``
    (the files of the replacement's anchors) not among them. A new list: ``named`` is not
    changed, so it can still say which files the person named."""
    kept = list(named) if new_anchors else list(old.files)
    return kept + [path for path in dict.fromkeys(added) if path not in kept]


def named_by_person_of(store: MemoryStore, memory: Memory) -> list[str]:
    """:func:`named_by_person` of ``memory`` as its file in ``store`` says."""
    return named_by_person(with_lifecycle_keys(store, memory))


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
