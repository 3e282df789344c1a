"""Supersede links that point nowhere: a superseded memory whose replacement is in neither
store (an import of a record whose replacement was not exported with it, a hand edit, a
mistyped id). Such a memory is out of recall with nothing in its place; ``tether doctor``
names it and ``tether import`` says so on its line. Nothing is rewritten: the person decides
whether to bring it back or to give the right id. The other direction is named the same way:
a memory saying it supersedes an id that is in neither store (it replaces nothing that can be
found).

A replacement deleted and then purged is a decision, not a broken link: ``tether purge`` keeps
the ids it removes that a superseded memory still names in the store's :data:`PURGED_FILE`
(committed with the memories, so a clone and CI know them too), and says which memories stay
superseded with their replacement gone."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from recall.containment import read_plain_file
from recall.errors import BadInput, StoreUnavailable
from recall.locations import GLOBAL
from recall.privacy import FILE_MODE
from recall.store import MemoryStore

LINK_KEY = "superseded_by"
"""The front-matter key of a superseded memory naming the memory that replaces it."""

REPLACES_KEY = "supersedes"
"""The front-matter key of a memory naming the memory it replaces."""

PURGED_FILE = "purged.txt"
"""In a store's folder, beside ``memories/``: the ids ``tether purge`` removed that a
superseded memory still names, one a line. Outside ``memories/`` so that it is never read as a
memory, and not git-ignored so that a clone's ``tether doctor`` (in CI) knows them too."""

_PURGED_HEADER = (
    "# Memories removed by `tether purge` that another memory still names (as its\n"
    "# replacement, or as the memory it supersedes): a decision, not a broken link.\n"
)
PURGED_MAX_BYTES = 16 << 20
"""The most of :data:`PURGED_FILE` read: nine bytes an id, so well over a million purged ids."""

_COMMIT_IT = "# Commit this file with the memories.\n"
"""Said in a project store's file only: the global store is no repository's."""


def purged_ids(store: MemoryStore) -> set[str]:
    """The ids recorded in ``store``'s :data:`PURGED_FILE` (none when it has no such file, or
    one that is not a plain file of at most :data:`PURGED_MAX_BYTES`: a repository's link to
    ``/dev/zero`` there must not be read until memory runs out)."""
    path = store.location.base / PURGED_FILE
    try:
        text = read_plain_file(path, PURGED_MAX_BYTES, follow_link=False).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return set()
    lines = (line.strip() for line in text.splitlines())
    return {line for line in lines if line and not line.startswith("#")}


def in_a_store(memory_id: str, stores: Sequence[MemoryStore]) -> bool:
    """Whether a memory with exactly this id is in one of ``stores`` (any status: a deleted
    replacement is a decision, not a broken link), or was purged from one (recorded in its
    :data:`PURGED_FILE`, the same decision carried through). A store not created yet holds
    none; an id one store cannot read as an id is still looked up in the others."""
    for store in stores:
        if not store.exists:
            continue
        try:
            found = store.find(memory_id)
        except BadInput:  # not an id this store can look up: try the next one
            found = None
        if found is not None and found.id == memory_id:
            return True
        if memory_id in purged_ids(store):
            return True
    return False


def keep_purged_known(
    store: MemoryStore,
    removing: Sequence[str],
    stores: Sequence[MemoryStore],
    notice: Callable[[str], None],
) -> list[dict[str, str]]:
    """Before ``store`` removes the memories ``removing`` for good: record in its
    :data:`PURGED_FILE` each one that a superseded memory of ``stores`` names as its
    replacement, say through ``notice`` which memories stay superseded with their replacement
    gone, and return those links (``id``, ``superseded_by``). The superseded memories are
    left as they are: restoring one is the person's call."""
    doomed = set(removing)
    replaced = {  # the memory that replaced one stays as it is: only its link is kept known
        memory.supersedes
        for each in stores
        if each.exists
        for memory in each.list(status=None)
        if memory.supersedes in doomed and memory.id not in doomed
    }
    links = [
        (memory.id, memory.superseded_by)
        for each in stores
        if each.exists
        for memory in each.list(status="superseded")
        if memory.superseded_by in doomed and memory.id not in doomed
    ]
    new = sorted(({target for _, target in links} | replaced) - purged_ids(store))
    path = store.location.base / PURGED_FILE
    if new:
        _append_purged(path, new, private=store.scope == GLOBAL)
    for old, target in links:
        notice(
            f"{old} stays superseded, out of recall: its replacement {target} is removed for "
            f"good (kept known as purged in {path}, so `tether doctor` does not report the "
            f"link); `tether restore {old}` brings {old} back"
        )
    return [{"id": old, "superseded_by": target} for old, target in links]


def _append_purged(path: Path, ids: Sequence[str], *, private: bool) -> None:
    """Add ``ids`` to the purged-ids file at ``path``, each on a line of its own (made with its
    header when new, readable by its owner only in the global store, as the rest of it; never
    through a link, which in a repository's store would send the write elsewhere)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, FILE_MODE if private else 0o644)
        with os.fdopen(fd, "r+b") as out:
            size = os.fstat(out.fileno()).st_size
            head = (_PURGED_HEADER + ("" if private else _COMMIT_IT)) if size == 0 else ""
            if size and os.pread(out.fileno(), 1, size - 1) != b"\n":  # a hand edit's last line
                head = "\n"
            out.write((head + "".join(f"{i}\n" for i in ids)).encode("utf-8"))
    except OSError as error:
        raise StoreUnavailable(
            f"cannot record the purged ids {' '.join(ids)} in {path}: {error.strerror}; "
            "nothing was purged: make the file writable (and a plain file) and purge again"
        ) from None


def key_line(path: Path, key: str = LINK_KEY) -> int:
    """The line of ``path``'s front matter that gives ``key`` (1 when it cannot be found)."""
    from recall.frontmatter import file_key_line  # only where a link is reported

    return file_key_line(path, key)


def dangling(
    store: MemoryStore, stores: Sequence[MemoryStore], status: str = "superseded"
) -> list[tuple[str, str]]:
    """The memories of ``store`` in ``status`` whose ``superseded_by`` names an id in none of
    ``stores``: each as (its id, the id its link names). A superseded one is out of recall with
    nothing in its place; an active one (a hand edit, an import) is recalled, yet its link says
    it was replaced."""
    if not store.exists:
        return []
    return [
        (memory.id, memory.superseded_by)
        for memory in store.list(status=status)
        if memory.superseded_by and not in_a_store(memory.superseded_by, stores)
    ]


def dangling_message(memory_id: str, target: str, file: Path | None = None) -> str:
    """What to say of ``memory_id``, superseded by ``target``, which no store holds (``file``:
    its memory file, named when the message is not already placed on it)."""
    where = f" in {file}" if file is not None else ""
    return (
        f"{memory_id} is superseded by {target}, which is in neither store, so it is out of "
        f"recall with nothing in its place; `tether restore {memory_id}` brings it back, or "
        f"write the id of the memory that replaces it as its {LINK_KEY}{where}"
    )


def stray_link_message(memory_id: str, status: str, target: str, file: Path | None = None) -> str:
    """What to say of ``memory_id``, which is ``status`` (anything but superseded) and names
    ``target``, an id no store holds, as its replacement (``file``: its memory file, named
    when the message is not already placed on it). An active one stays in recall: the link
    changes nothing but what it appears to say."""
    where = f" in {file}" if file is not None else ""
    if status == "active":
        return (
            f"{memory_id} is active, so recall gives it, but its {LINK_KEY} names {target}, "
            f"which is in neither store; remove that line{where} if nothing replaces it, or "
            f"`tether archive {memory_id}` if it should not stand"
        )
    return (
        f"{memory_id} is {status}, and its {LINK_KEY} names {target}, which is in neither "
        f"store; write the id of the memory that replaces it there{where}, or remove that line"
    )


def dangling_replaced(store: MemoryStore, stores: Sequence[MemoryStore]) -> list[tuple[str, str]]:
    """The memories of ``store`` (deleted ones aside) that say they supersede an id in none of
    ``stores``: each as (its id, the id its ``supersedes`` names)."""
    if not store.exists:
        return []
    return [
        (memory.id, memory.supersedes)
        for memory in store.list(status=None)
        if memory.supersedes
        and memory.status != "deleted"
        and not in_a_store(memory.supersedes, stores)
    ]


def replaced_message(memory_id: str, target: str, file: Path | None = None) -> str:
    """What to say of ``memory_id``, which says it supersedes ``target``, an id no store holds
    (``file``: its memory file, named when the message is not already placed on it)."""
    where = f" in {file}" if file is not None else ""
    return (
        f"{memory_id} supersedes {target}, which is in neither store, so the link leads "
        f"nowhere; write the id of the memory it replaces as its {REPLACES_KEY}{where}, or "
        f"remove that line if it replaces none"
    )


def replaced_elsewhere(
    store: MemoryStore, stores: Sequence[MemoryStore]
) -> list[tuple[str, str, str]]:
    """The memories of ``store`` (deleted ones aside) whose ``supersedes`` names a memory of
    another of ``stores`` and none of its own (a hand edit: the commands link memories of one
    store only, so recall keeps both). Each as (its id, the id named, that store's scope)."""
    if not store.exists:
        return []
    found = []
    for memory in store.list(status=None):
        target = memory.supersedes
        if not target or memory.status == "deleted" or in_a_store(target, [store]):
            continue
        others = [each for each in stores if each is not store and in_a_store(target, [each])]
        if others:
            found.append((memory.id, target, others[0].scope))
    return found


def elsewhere_message(memory_id: str, target: str, scope: str) -> str:
    """What to say of ``memory_id``, which says it supersedes ``target`` of the ``scope``
    store: a link across stores is not followed, so both stay in recall."""
    return (
        f"{memory_id} supersedes {target}, a memory of the {scope} store; a supersede links "
        f"memories of one store only, so recall keeps both: `tether archive {target}` if this "
        f"one replaces it, and remove the {REPLACES_KEY} line"
    )


def hidden_active(store: MemoryStore) -> list[tuple[str, str]]:
    """The active memories of ``store`` that an active memory of the same store says it
    supersedes (a restore by an older version, a hand edit, a merge): listed as active, yet
    recall leaves them out. Each as (its id, the id of the memory naming it)."""
    if not store.exists:
        return []
    active = store.list(status="active")
    ids = {memory.id for memory in active}
    return sorted(
        (memory.supersedes, memory.id)
        for memory in active
        if memory.supersedes in ids and memory.supersedes != memory.id
    )


def hidden_message(memory_id: str, replacement: str) -> str:
    """What to say of the active ``memory_id``, which the active ``replacement`` says it
    supersedes."""
    return (
        f"{memory_id} is active, but {replacement} says it supersedes it, so recall leaves "
        f"{memory_id} out; `tether restore {memory_id}` keeps both (it removes the "
        f"{REPLACES_KEY} line of {replacement}), or `tether archive {memory_id}` retires it"
    )


def crossed(store: MemoryStore) -> list[tuple[str, str, str]]:
    """The active memories of ``store`` that say they supersede a memory of the same store
    which does not say it is superseded by them (two writers at once in an older version, a
    hand edit, a merge): two replacements of one memory, or one of a memory archived instead.
    Each as (its id, the id it names, what that memory says of itself). A memory it names that
    is active is :func:`hidden_active`'s; one that names it as its replacement is a link."""
    if not store.exists:
        return []
    every = {memory.id: memory for memory in store.list(status=None)}
    found = []
    for memory in every.values():
        old = every.get(memory.supersedes or "")
        if memory.status != "active" or old is None or old.status == "active":
            continue
        if old.superseded_by == memory.id:
            continue
        said = f"superseded by {old.superseded_by}" if old.superseded_by else old.status
        found.append((memory.id, old.id, said))
    return sorted(found)


def crossed_message(memory_id: str, target: str, said: str, file: Path | None = None) -> str:
    """What to say of the active ``memory_id``, which says it supersedes ``target`` while
    ``target`` is ``said`` (``superseded by OTHER``, ``archived``...); ``file``: the memory
    file of ``memory_id``, named when the message is not already placed on it."""
    where = f" in {file}" if file is not None else ""
    return (
        f"{memory_id} says it supersedes {target}, but {target} is {said}, so the two do not "
        f"link both ways; if {memory_id} replaces nothing now, remove its {REPLACES_KEY} "
        f"line{where}, or `tether archive {memory_id}` if it should not stand"
    )


def left_superseded(store: MemoryStore, replacement: str, status: str) -> tuple[str, str] | None:
    """The memory ``replacement`` superseded, when ``replacement`` has just become ``status``
    (archived, deleted) and the old one stays superseded, out of recall with nothing in its
    place: its id and what a person is told, with how to bring it back (None: none)."""
    row = store.conn.execute(
        "SELECT id FROM memories WHERE superseded_by = ? AND status = 'superseded' ORDER BY id",
        (replacement,),
    ).fetchone()
    if row is None:
        return None
    old = row[0]
    return old, (
        f"{old} stays superseded, out of recall: its replacement {replacement} is {status} "
        f"now; `tether restore {old}` brings {old} back"
    )
