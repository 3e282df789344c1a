"""The files a new memory names, checked before it is written, for every surface that writes
one (the CLI's ``remember`` and ``supersede``, the MCP tools): one check, so they refuse and
note the same things.

A memory is about files someone edits. One of git's own files (``.git/…``) and a folder are
refused: no edit ever touches them. A path the repository has neither in its files nor in its
history is refused as a typo, with the closest names, unless the caller lets it through (a file
still to come). A file renamed since is written as given, with a note naming what it is called
now: recall follows the rename.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from recall.errors import BadInput
from recall.genome.names import is_git_own
from recall.known_paths import folder_hint, refuse_unknown, typed_from
from recall.locations import PROJECT

if TYPE_CHECKING:
    from pathlib import Path

    from recall.store import MemoryStore

Named = tuple[str, str]
"""A path in the stored form, and the label it was given by (``--file``, ``files[0]``): what
a message names it by."""


def unfit_line(
    root: Path | None, path: str, label: str, typed: Callable[[str], str] | None = None
) -> str | None:
    """Why ``path`` (stored form), given as ``label``, can be the file of no memory, as a write
    refuses it (:func:`unfit_reason`); None for any other path. With ``typed``, the paths are
    said as it gives them (as typed where the command runs)."""
    reason = unfit_reason(root, path, typed)
    shown = typed(path) if typed is not None else path
    return None if reason is None else f"{label} {shown!r} is {reason}"


def unfit_reason(
    root: Path | None, path: str, typed: Callable[[str], str] | None = None
) -> str | None:
    """What ``path`` (stored form) is when it can be the file of no memory, and what to name
    instead: one of git's own files, or a folder of ``root`` (the repository's working tree;
    None: not looked at) with a few of its files (each as ``typed`` gives it); None for any
    other path."""
    if is_git_own(path):
        return (
            "one of git's own files, not a file of the repository; name the files of the "
            "repository the memory is about"
        )
    hint = folder_hint(root, path, typed=typed)
    return None if hint is None else f"a folder; name the files it is about{hint}"


def check_named_files(
    store: MemoryStore,
    named: Sequence[Named],
    *,
    allow_missing: bool,
    let_through: str,
    cwd: Path | None = None,
) -> list[str]:
    """Refuse the files of a new memory for ``store`` that no edit can touch or that the
    repository does not know (unless ``allow_missing``; ``let_through`` says how the caller
    asks for that), raising :class:`BadInput` that names each by its label (as typed from
    ``cwd``, where the caller reads paths from the folder it runs in); return the notes to
    pass on: one per file renamed since (as the index last read the history)."""
    labels: dict[str, str] = {}
    for path, label in named:  # a file named twice (a file and an anchor's) by its first label
        labels.setdefault(path, label)
    given = list(labels.items())
    root = store.repo_root if store.scope == PROJECT else None
    for path, label in given:  # git's own files first: they are refused in any store
        if is_git_own(path):
            raise BadInput(f"{unfit_line(None, path, label)}\n  nothing written")
    if root is None:  # the user's own store outside a repository: no files to check against
        return []
    typed = typed_from(root, cwd)
    folders = [line for path, label in given if (line := unfit_line(root, path, label, typed))]
    if folders:
        raise BadInput("\n  ".join([*folders, "nothing written"]))
    if not allow_missing:
        refuse_unknown(root, given, let_through=let_through, cwd=cwd)
    return _renamed_notes(store, root, given, typed) + _nested_notes(root, given, typed)


def _nested_notes(root: Path, named: Sequence[Named], typed: Callable[[str], str]) -> list[str]:
    """A note for each file of ``named`` inside a repository nested in ``root`` (a submodule,
    a vendored checkout) that has a Tether store of its own: editors take that store's
    memories for the file, so the memory may belong there. Paths are said as ``typed``
    gives them (as typed where the command runs)."""
    from recall.repo import TETHER_DIR

    notes = []
    for path, label in named:
        parts = path.split("/")[:-1]
        for depth in range(len(parts), 0, -1):
            folder = "/".join(parts[:depth])
            base = root / folder
            if (base / ".git").exists() and (base / TETHER_DIR / "memories").is_dir():
                there = typed(folder)
                notes.append(
                    f"{label} {typed(path)!r} is in {there}, a repository with a Tether store of "
                    f"its own: recall here finds the memory, but an editor on the file shows "
                    f"that store's (run `tether remember` in {there} to write it there)"
                )
                break
    return notes


def _renamed_notes(
    store: MemoryStore, root: Path, named: Sequence[Named], typed: Callable[[str], str]
) -> list[str]:
    """A note for each file of ``named`` no longer on disk that git's history renamed (and
    whether the file it became is gone too), the history read as of HEAD: a rename committed
    since the genome's last refresh is read first (:func:`recall.genome.catch_up.catch_up`).
    The file and its new name are said as ``typed`` gives them (as typed where the command
    runs: the new name is to be given there); what the memory names, as it is stored."""
    gone = [(path, label) for path, label in named if not (root / path).exists()]
    if not store.exists or not gone:
        return []
    from recall.file_names import later_name
    from recall.genome.catch_up import catch_up

    catch_up(store, notice=store.notice)
    notes = []
    for path, label in gone:
        now = later_name(store.conn, path)
        if now is not None and not (root / now).exists():
            notes.append(
                f"{label} {typed(path)!r} was renamed to {typed(now)}, which was later deleted; "
                f"the memory names {path}, a file the repository no longer has"
            )
        elif now is not None:
            notes.append(
                f"{label} {typed(path)!r} was renamed to {typed(now)}; the memory names {path} "
                f"(recall follows the rename; give {typed(now)} to name it as it is now)"
            )
    return notes
