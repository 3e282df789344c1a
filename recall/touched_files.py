"""The files someone names to a recall (``tether recall --file``, the MCP ``memory_recall``'s
``files``): read as the hooks read an edited file (a link inside the repository stands for its
target), and a file missing from the working tree (deleted, or not on this branch) still
recalled by the memories naming it, as ``tether list --file`` lists them.

The ranking engine leaves a touched file that is not in the working tree out of its file
channel (an agent's touch of a deleted file earns nothing); whoever names one to a recall asks
for it, so it counts as present for that one recall (:mod:`recall.ranking.asked_present`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from recall.display import visible
from recall.file_kinds import in_tree, special_kind
from recall.locations import PROJECT
from recall.paths import link_target
from recall.ranking.asked_present import asked_present
from recall.ranking.query import Touch

if TYPE_CHECKING:
    from recall.ranking.engine import Recaller, RecallResult
    from recall.ranking.query import RecallQuery
    from recall.store import MemoryStore


def touches(
    store: MemoryStore, cwd: Path, edits: Sequence[str], opens: Sequence[str]
) -> tuple[Touch, ...]:
    """The touches of the files named (relative to ``cwd``), by ``store``'s names for them: a
    path outside the repository, or leading outside it through a link, is refused
    (:meth:`MemoryStore.normalize_input`); a link inside it touches its target and the link
    both (:func:`linked_touches`). A refusal names the option that gave the path: ``--file``
    for an edit, ``--open`` for a file only opened."""
    named = [(p, "edit", "--file") for p in edits] + [(p, "open", "--open") for p in opens]
    return linked_touches(
        store.repo_root,
        [
            (store.normalize_input(raw, cwd, names="a file", label=option), kind)
            for raw, kind, option in named
        ],
    )


def linked_touches(root: Path | None, named: Sequence[tuple[str, str]]) -> tuple[Touch, ...]:
    """The touches of files already in the stored form and checked to lead nowhere outside the
    repository ``root`` (``named``: path and touch kind, ``edit`` or ``open``): a link inside
    the repository touches its target and the link both, as an edit through it does in the
    hooks (:func:`recall.paths.link_target`). The CLI's ``--file`` and the MCP
    ``memory_recall``'s ``files`` both come here."""
    found: list[Touch] = []
    for typed, kind in named:
        target = link_target(root, typed)
        found.append(Touch(target, kind))
        if target != typed:
            found.append(Touch(typed, kind))
    return tuple(found)


def absent(root: Path | None, paths: Iterable[str]) -> list[str]:
    """The ``paths`` (relative to ``root``) not in the working tree now as a file or a folder
    (a named pipe in a file's place is not: :func:`recall.file_kinds.in_tree`); none without
    a repository (outside one no file is in a working tree)."""
    if root is None:
        return []
    return [p for p in dict.fromkeys(paths) if not in_tree(root, p)]


def named_by_memories(stores: Sequence[MemoryStore], paths: Sequence[str]) -> list[str]:
    """The ``paths`` some active memory of ``stores`` names, by the path or by a name its file
    had before a rename, as recall follows it (:func:`recall.listed_names.followed_names`,
    from the project store's history)."""
    from recall.listed_names import followed_names
    from recall.written_moments import names_it_by

    history = next((s for s in stores if s.scope == PROJECT), None)
    found = []
    for path in paths:
        dated = followed_names(history, path)
        earlier = [n.name for n in dated]
        if any(
            names_it_by(m.files, m.created, path, dated)
            for s in stores
            if s.exists
            for m in s.list(file=path, earlier=earlier)
        ):
            found.append(path)
    return found


def absent_notes(
    root: Path | None,
    stores: Sequence[MemoryStore],
    paths: list[str],
    *,
    cwd: Path | None = None,
) -> list[str]:
    """What to tell about the named ``paths`` no file of ``root`` answers to: one missing from
    the working tree that memories name is recalled all the same, and said so, with why it is
    missing (:func:`recall.known_paths.absent_reason`); any other (a
    typo, a folder) as :func:`recall.known_paths.touched_notes` tells it. Each path is said as
    it is typed from ``cwd``, the folder the caller read them from
    (:func:`recall.known_paths.typed_from`)."""
    # git: for a path not on disk only
    from recall.known_paths import absent_reason, touched_notes, typed_from

    named = named_by_memories(stores, absent(root, paths))
    notes = []
    if root is not None and named:  # absent: none without a repository
        typed = typed_from(root, cwd)
        why = absent_reason(root, named, typed)
        said = "recalling the memories that name it all the same"
        for path in named:
            kind = special_kind(root / path)
            what = why[path] if kind is None else f"is {kind}, not a regular file"
            notes.append(f"{visible(typed(path))} {what}; {said}")
    return notes + touched_notes(root, [p for p in paths if p not in named], cwd=cwd)


def given_notes(
    stores: Sequence[MemoryStore], paths: list[str], *, cwd: Path | None = None
) -> list[str]:
    """:func:`absent_notes` for the ``paths`` given to a recall over ``stores``, in the
    repository of the first (none without paths, or outside any repository), each said as
    it is typed from ``cwd``."""
    if not paths or not stores:
        return []
    return absent_notes(stores[0].repo_root, stores, paths, cwd=cwd)


def recalled(recaller: Recaller, query: RecallQuery) -> RecallResult:
    """The engine's answer to ``query``, a named file missing from the working tree ranked by
    file all the same (its notes: :func:`absent_notes`)."""
    missing = absent(recaller.stores[0].repo_root, query.paths)
    with asked_present(recaller, missing):
        return recaller.recall(query)
