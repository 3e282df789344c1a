"""A memory found by id across stores (the project's, then the user's global one)."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from recall.errors import BadInput

if TYPE_CHECKING:
    from recall.model import Memory
    from recall.store import MemoryStore


def find_across(stores: Iterable[MemoryStore], ref: str) -> tuple[MemoryStore, Memory] | None:
    """The memory ``ref`` names in ``stores``: a whole id where it is, a prefix only where it
    names one memory in all of them. A prefix two stores each hold once is ambiguous, as
    within one store (:class:`BadInput` naming both), never the first store's silently; so is
    an id both stores hold (written by hand, or imported before imports kept ids apart), named
    with both files and how to tell them apart. None when no store holds it."""
    found: list[tuple[MemoryStore, Memory]] = []
    for store in stores:
        memory = store.find(ref)  # an ambiguous prefix within one store raises here
        if memory is not None:
            found.append((store, memory))
    whole = [pair for pair in found if pair[1].id == ref.strip().lower()]
    if len(whole) == 1:
        return whole[0]
    ids = {memory.id for _, memory in found}
    if len(found) > 1 and len(ids) == 1:
        raise BadInput(same_id_message(ref, found))
    if len(found) > 1:
        named = ", ".join(f"{memory.id} ({store.scope})" for store, memory in found)
        raise BadInput(
            f"id prefix {ref.strip()!r} matches several memories ({named}); give more digits"
        )
    return found[0] if found else None


def why_not_found(stores: Iterable[MemoryStore], ref: str) -> str | None:
    """Why ``ref`` (a whole id, or a prefix of at least
    :data:`~recall.model.MIN_ID_PREFIX` characters) is in none of ``stores`` when one of them
    can say: it names a memory file a store holds but cannot load (a merge conflict, bad YAML),
    or a project store's repository folder is gone or moved since the store was found (nothing
    is read there). None when neither: no such memory. Every way of finding a memory by id (the
    CLI, the MCP server, the language server) says it in these words."""
    from recall.locations import PROJECT, repository_gone, still_a_repository
    from recall.model import MIN_ID_PREFIX

    stores = list(stores)
    wanted = ref.strip().lower()
    for store in stores if len(wanted) >= MIN_ID_PREFIX else []:
        for problem in store.problems() if store.exists else []:
            if problem.path.name.lower().startswith(wanted):
                return (
                    f"memory {ref!r} cannot be loaded: {problem}; fix the file "
                    "(`tether doctor` lists every file that cannot be loaded)"
                )
    for store in stores:
        root = store.repo_root if store.scope == PROJECT else None
        if root is not None and not still_a_repository(root):
            return repository_gone(root)
    return None


def same_id_message(ref: str, found: list[tuple[MemoryStore, Memory]]) -> str:
    """What to do when every store of ``found`` holds a memory with the one id ``ref`` names:
    no id reaches either, so one of them must be given another."""
    memory_id = found[0][1].id
    files = "; ".join(f"the {store.scope} store's {store.path_of(m.id)}" for store, m in found)
    return (
        f"{ref.strip()!r} names memory {memory_id}, and both stores hold one with that id "
        f"({files}), so no id reaches either; give one of them another id: rename its file "
        "to 8 new hex digits (and its `id:` line, if it has one, to the same)"
    )


def shared_ids(stores: Iterable[MemoryStore]) -> list[tuple[str, list[tuple[MemoryStore, Path]]]]:
    """Each id more than one of ``stores`` holds (hand-written files of one name in both, a
    memory file copied from one store to the other), with each holding store and its file,
    in the order of ``stores``."""
    held: dict[str, list[tuple[MemoryStore, Path]]] = {}
    for store in stores:
        if store.exists:
            for memory in store.list(status=None):
                held.setdefault(memory.id, []).append((store, store.path_of(memory.id)))
    return sorted((memory_id, where) for memory_id, where in held.items() if len(where) > 1)


def shared_id_message(memory_id: str, where: list[tuple[MemoryStore, Path]], new_id: str) -> str:
    """What ``tether doctor`` says of ``memory_id``, held in the files ``where`` (the store
    to rename in last: the user's own global store, whose files no one else reads), with the
    rename to ``new_id`` that gives the last one an id of its own."""
    from recall.frontmatter import file_key_line

    store, path = where[-1]
    others = "; ".join(f"the {each.scope} store's {file}" for each, file in where[:-1])
    move = f"`mv {shlex.quote(str(path))} {shlex.quote(str(path.with_name(new_id + '.md')))}`"
    id_line = file_key_line(path, "id") > 1  # line 1 opens the front matter
    also = f" and change its `id:` line to `id: {new_id}`" if id_line else ""
    return (
        f"{path}: memory {memory_id} of the {store.scope} store has the id of {others}, so no "
        f"command reaches either by id; give this one an id of its own: {move}{also}, and "
        f"write {new_id} for {memory_id} in any `supersedes:` or `superseded_by:` of the "
        f"{store.scope} store meaning it"
    )


def fresh_id(stores: Iterable[MemoryStore]) -> str:
    """An id none of ``stores`` holds, nor names a file after."""
    import secrets  # only for a finding that needs one

    taken = set().union(*(store.ids() for store in stores if store.exists))
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
