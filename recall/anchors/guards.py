"""Guarding a memory, and taking the guard off: ``guard: true`` in its file.

A guarded decision or gotcha makes an agent's edit under it ask the person first (the
pre-edit hook), shows as an error in the editor, and fails ``tether check`` while code under it
changed without a confirm. Taking the guard off removes the key from the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall.anchors.symbols import NAME_SEPARATOR, SEPARATOR, normalize_name
from recall.errors import BadInput, NothingToDo
from recall.locations import GLOBAL, PROJECT
from recall.model import GUARD_CATEGORIES
from recall.store.changes import refuse_retired

if TYPE_CHECKING:
    from recall.anchors.symbols import SymbolAnchor
    from recall.model import Memory
    from recall.ranking.engine import RepoSignals
    from recall.store import MemoryStore


def check_guard(
    guard: bool,
    category: str,
    option: str = "--guard",
    *,
    covers: bool = True,
    scope: str = PROJECT,
    scope_option: str = "--global",
) -> bool:
    """Validate ``guard`` for a memory of ``category`` that names files or symbols
    (``covers``), written in the ``scope`` store; raises :class:`BadInput` for a category a
    guard does not fit, a memory in the global store, or a memory naming nothing for it to
    cover, telling to drop ``option`` (how the guard was given) or ``scope_option`` (how the
    global store was chosen)."""
    if guard and category not in GUARD_CATEGORIES:
        raise BadInput(
            f"a guard protects a {' or '.join(GUARD_CATEGORIES)}, not a {category}; "
            f"drop {option} or change the category"
        )
    if guard and scope == GLOBAL:
        raise BadInput(global_guard(option, scope_option))
    if guard and not covers:
        raise BadInput(uncovered(option))
    return guard


def global_guard(option: str, scope_option: str) -> str:
    """Why a guard in the global store is refused: the edit hooks ask only under the guards
    of the edited file's own repository, and the global store is no repository's, so no edit
    would ever be asked about."""
    return (
        "a guard protects the files of one repository, and the global store belongs to none, "
        "so no edit would ever be asked about; write the memory in the project store (drop "
        f"{scope_option}) or drop {option}"
    )


def uncovered(option: str) -> str:
    """Why a guard on a memory naming no file or symbol is refused: it would cover nothing
    (an edit asks only under a guard's files and symbols), so it would protect nothing."""
    return (
        "a guard covers the files and symbols its memory names, and this one names none, so "
        f"no edit would ever be asked about; name the files (or symbols) or drop {option}"
    )


def idle_guard(memory_id: str) -> str:
    """What ``tether doctor`` says of a guarded memory in the global store (written before
    such a guard was refused, or by hand): it protects nothing, and is left as it is."""
    return (
        f"memory {memory_id} is guarded, but it is in the global store, where a guard protects "
        f"no file (no edit is ever asked about); `tether unguard {memory_id}` takes it off, and "
        "a guard on a repository's files belongs in its project store"
    )


def carried_guard(old: Memory, category: str, scope: str = PROJECT) -> tuple[bool, str | None]:
    """The guard a memory replacing ``old`` (in the ``scope`` store) with ``category`` keeps
    (a guard is lifted on purpose, with ``unguard``, not by superseding), and a note when it
    cannot be kept: the new category takes no guard, or the store is the global one, where a
    guard protects nothing (:func:`global_guard`)."""
    if not old.guard:
        return False, None
    if scope == GLOBAL:
        return False, (
            f"{old.id} was guarded, but it is in the global store, where a guard protects no "
            "file: the memory replacing it is not guarded"
        )
    if category in GUARD_CATEGORIES:
        return True, None
    return False, (
        f"{old.id} was guarded, but a {category} takes no guard: the memory replacing it is "
        "not guarded"
    )


def set_guard(store: MemoryStore, ref: str, guard: bool) -> Memory:
    """Guard (or unguard) a memory; NothingToDo when it already is, BadInput for a category a
    guard does not fit."""
    from recall.frontmatter import REMOVE

    if guard and store.scope == GLOBAL:
        raise BadInput(
            f"memory {store.get(ref).id} is in the global store, and a guard protects the files "
            "of one repository, so no edit would ever be asked about; to guard it, write it in "
            "the project store (`tether remember SUMMARY -c decision -f PATH --guard` inside "
            "the repository)"
        )
    with store.changing(ref) as memory:  # checked as it is under the writers' lock
        if guard:
            refuse_retired(memory, "guard")
        if memory.guard == guard:
            raise NothingToDo(
                f"memory {memory.id} is already {'guarded' if guard else 'unguarded'}"
            )
        if guard and memory.category not in GUARD_CATEGORIES:
            raise BadInput(
                f"a guard protects a {' or '.join(GUARD_CATEGORIES)}, not a {memory.category}; to "
                f"guard it, supersede {memory.id} with one (`tether supersede {memory.id} SUMMARY "
                "-c decision --guard`)"
            )
        if guard and not memory.files and not memory.anchors:
            raise BadInput(
                f"memory {memory.id} names no file or symbol, so a guard on it would cover "
                f"nothing; supersede it with one that names them (`tether supersede {memory.id} "
                "SUMMARY -c decision -f PATH --guard`)"
            )
        updated = store.update_fields(memory.id, {"guard": True if guard else REMOVE})
        if guard:
            store.lift_disuse(memory.id)
    return updated


def _renamed_within(root: Path, path: str, name: str, anchors: Iterable[SymbolAnchor]) -> bool:
    """:func:`recall.anchors.base_guards.renamed_within` against the last commit, loaded when
    a narrowing is weighed."""
    from recall.anchors.base_guards import renamed_within

    return renamed_within(root, "HEAD", path, name, anchors)


def _coverage(
    files: Iterable[str], anchors: Iterable[SymbolAnchor], now: Mapping[str, str]
) -> dict[str, set[str]]:
    """What a guard on a memory with ``files`` and ``anchors`` covers, file by file under its
    name now (``now``: a name git shows renamed since -> the file's current name): the symbols
    anchored in the file (names as the index keys them), or an empty set for a file with none
    anchored, which the guard covers whole (as the pre-edit hook reads it)."""
    covered: dict[str, set[str]] = {now.get(path, path): set() for path in files}
    for anchor in anchors:
        covered.setdefault(now.get(anchor.path, anchor.path), set()).add(
            normalize_name(anchor.name)
        )
    return covered


def _named_now(renamed: Mapping[str, str], root: Path | None) -> dict[str, str]:
    """The renames of ``renamed`` (the old memory's names git shows renamed, as it follows
    them) that a memory written now follows too: those whose old name no file has now (one a
    new file took is that file's, for a memory written after it: see
    :func:`recall.lifecycle.dead.follows`). Without ``root``, all of them."""
    if root is None:
        return dict(renamed)
    return {old: new for old, new in renamed.items() if not (root / old).exists()}


def _holds(names: set[str], name: str) -> bool:
    """Whether a guard on ``names`` covers the symbol ``name``: it names it, or the symbol
    within which it is defined (a class covers its methods: its lines hold theirs)."""
    return any(name == held or name.startswith(held + NAME_SEPARATOR) for held in names)


def narrowed(
    old: Memory,
    files: Iterable[str],
    anchors: Iterable[SymbolAnchor],
    root: Path | None = None,
    renamed: Mapping[str, str] | None = None,
    moved: Mapping[SymbolAnchor, SymbolAnchor] | None = None,
) -> tuple[list[str], list[str]]:
    """What a guard on a memory with ``files`` and ``anchors`` leaves out of ``old``'s guard:
    the guarded files it names no longer, and the guarded code it covers less of (a file
    guarded whole narrowed to symbols, a guarded symbol dropped), each said in a phrase. Both
    empty when it covers as much or more. Given the working tree's ``root``, a guarded symbol
    renamed since the last commit, the new memory anchoring its new name, is not left out
    (:func:`recall.anchors.base_guards.renamed_within`, as ``tether check`` reads it).

    ``renamed`` maps each of ``old``'s files that git shows renamed since, the memory
    following it (:func:`recall.lifecycle.dead.renames`), to its name now: a file is weighed,
    and named, as it is now (``NEW (OLD in the memory)``), so that the new memory naming it by
    either name keeps it guarded. ``moved`` maps each of ``old``'s anchors whose definition
    went to another file (:func:`recall.anchors.carry.following`) to it there: a
    guarded symbol the new memory covers where it is now is not left out."""
    anchors = tuple(anchors)  # read twice
    renamed = renamed or {}
    before = _coverage(old.files, old.anchors, renamed)
    after = _coverage(files, anchors, _named_now(renamed, root))
    given = {new: old for old, new in renamed.items()}  # a name now -> the memory's name
    went = {  # a guarded symbol, as ``before`` keys it -> the file it is defined in now
        (renamed.get(a.path, a.path), normalize_name(a.name)): b.path
        for a, b in (moved or {}).items()
    }

    def followed(path: str, name: str) -> bool:
        now = went.get((path, name))
        return now is not None and now in after and (not after[now] or _holds(after[now], name))

    left_files: list[str] = []
    left_code: list[str] = []
    for path, names in before.items():
        if names and all(followed(path, name) for name in names):
            continue  # every guarded symbol in it moved, and is guarded where it is now
        if path not in after:
            was = given.get(path)
            left_files.append(f"{path} ({was} in the memory)" if was else path)
            continue
        now = after[path]
        if not now:  # guarded whole: covers every symbol
            continue
        if not names:
            shown = ", ".join(f"{path}{SEPARATOR}{name}" for name in sorted(now))
            left_code.append(f"{path} is guarded whole, and {shown} is only part of it")
            continue
        dropped = [
            f"{path}{SEPARATOR}{name}"
            for name in sorted(names)
            if not _holds(now, name)
            and not followed(path, name)
            and not (root is not None and _renamed_within(root, path, name, anchors))
        ]
        if dropped:
            left_code.append(f"{', '.join(dropped)} is guarded and not among them")
    return left_files, left_code


@dataclass(frozen=True)
class Replacement:
    """A memory of ``store`` about to replace ``old``, naming ``files`` and ``anchors``, as
    :func:`narrowed_now` weighs what it leaves out of ``old``'s guard; the repository's history
    is brought up to HEAD first unless not to ``refresh`` (a process whose index another
    thread keeps up to date), ``notice`` hearing what doing so has to say. When the command
    has opened the repository's signals already (carrying anchors:
    :attr:`recall.anchors.carry.Carried.signals`, brought up to date as they were opened),
    they are read as ``opened`` rather than opened again."""

    store: MemoryStore
    old: Memory
    files: Sequence[str]
    anchors: Sequence[SymbolAnchor]
    notice: Callable[[str], None]
    refresh: bool = True
    opened: RepoSignals | None = None

    def left_out(
        self,
        renamed: Mapping[str, str] | None = None,
        moved: Mapping[SymbolAnchor, SymbolAnchor] | None = None,
    ) -> tuple[list[str], list[str]]:
        """:func:`narrowed` in the store's working tree, through ``renamed`` and ``moved``."""
        return narrowed(self.old, self.files, self.anchors, self.store.repo_root, renamed, moved)


def narrowed_now(replacement: Replacement) -> tuple[list[str], list[str]]:
    """:func:`narrowed` for ``replacement``, in its store's working tree and through the
    renames git shows for the old memory's files since (a file named by its new name stays
    guarded; one left out is named as it is now: :func:`recall.lifecycle.dead.renames`), then
    through where the definitions of its anchors in files gone from the working tree are now
    (a guarded symbol anchored where it moved stays guarded, as a supersede carries it: see
    :func:`recall.anchors.carry.following`). The history is read only when the guard
    seems narrowed: most supersedes never read it. The repository's signals are opened once
    for both (the symbol index read only when a definition is looked for), or not at all
    when the replacement comes with them ``opened``."""
    from recall.anchors.carry import following
    from recall.lifecycle.dead import renames
    from recall.repo_signals import open_repo_signals

    left = replacement.left_out()
    store, old = replacement.store, replacement.old
    if not any(left) or store.repo_root is None:
        return left
    notice, refresh = replacement.notice, replacement.refresh
    signals = replacement.opened
    if signals is None:  # without symbols: a short-lived process leaves them for `tether index`
        signals = open_repo_signals(store, notice=notice, refresh=refresh, symbols=False)
    renamed = renames(old, signals)
    if renamed:
        left = replacement.left_out(renamed)
    if not any(left):
        return left
    moved = following(store, old.anchors, notice=notice, refresh=refresh, opened=signals).moves
    return replacement.left_out(renamed, moved) if moved else left


def narrowing_note(replacement: Replacement) -> str | None:
    """What a person is told when the guard carried to ``replacement`` guards less than it
    did (:func:`narrowed_now`): allowed, since a person may narrow a guard, but never unsaid.
    None when it covers as much or more."""
    left_files, left_code = narrowed_now(replacement)
    said = []
    if left_files:
        verb = "is" if len(left_files) == 1 else "are"
        said.append(f"{', '.join(left_files)} {verb} no longer guarded")
    if left_code:
        said.append(f"the anchors guard less of its code ({'; '.join(left_code)})")
    if not said:
        return None
    return (
        f"the guard of {replacement.old.id} is carried, but narrowed: {'; '.join(said)} (name "
        "what it leaves out among the files or anchors to keep it guarded)"
    )
