"""The earlier names a file's memories are listed by, whichever store holds them.

A memory names files as they were called when it was written; after ``git mv`` recall still
finds it for the file, through the renames in the repository's history, and so do ``tether
list --file``, the MCP ``memory_list`` and the editor's ``tether.list``. That history lives in
the project store's index alone: the user's global store is shared by every repository and
holds none (docs: README, "What it learns lives in the repository's own index"). Its memories
name the repository's files all the same, and recall follows a rename for them as for the
project's memories; so a listing reads the earlier names from the project store and applies
them to every store it lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from recall.file_names import EarlierName, earlier_dated, own_name, renamed_into

if TYPE_CHECKING:
    from recall.store import MemoryStore


def earlier_names(
    history: MemoryStore | None, file: str, *, as_of_head: bool = True
) -> list[EarlierName]:
    """The earlier names of ``file`` in the history ``history`` (the project store) holds,
    when it is a file of that store's repository now, dated as recall dates them
    (:func:`recall.file_names.dated_names`); of a name the working tree lacks (a file renamed
    and then deleted), the names recall follows for it (:func:`followed_names`); a folder is
    listed as it is given. With ``as_of_head`` the renames are brought up to HEAD first when
    a commit since the last refresh lags them, as recall brings them
    (:func:`recall.genome.catch_up.catch_up`); without, they are read as the index last
    recorded them. The global store, or none, has no history to follow a name back through."""
    root = history.repo_root if history is not None else None
    if root is None or (root / file).is_dir():
        return []
    return followed_names(history, file, as_of_head=as_of_head)


def followed_names(
    history: MemoryStore | None, file: str, *, as_of_head: bool = True
) -> list[EarlierName]:
    """:func:`earlier_names` of ``file`` whether or not a file has the name now: the names
    recall follows for a file asked about that the working tree lacks (one renamed and then
    deleted too), dated as it dates them."""
    root = _history_root(history, as_of_head=as_of_head)
    if history is None or root is None:
        return []
    return earlier_dated(history.conn, file, lambda name: (root / name).is_file())


def _history_root(history: MemoryStore | None, *, as_of_head: bool) -> Path | None:
    """The repository whose renames ``history`` holds, with them brought up to HEAD when
    ``as_of_head`` (see :func:`earlier_names`); None when it holds none."""
    from recall.locations import GLOBAL

    if history is None or history.scope == GLOBAL or not history.exists:
        return None
    if history.repo_root is not None and as_of_head:
        from recall.genome.catch_up import catch_up

        catch_up(history, notice=history.notice)
    return history.repo_root


def own_name_in(history: MemoryStore | None, file: str) -> EarlierName | None:
    """``file`` as the file there now has it (:func:`recall.file_names.held_since`), in the
    history ``history`` holds as last read (:func:`earlier_names` brings it up to HEAD): a
    memory naming it written before another file left the name is that file's. None where
    :func:`earlier_names` finds no history to read."""
    from recall.locations import GLOBAL

    if history is None or history.scope == GLOBAL or not history.exists:
        return None
    root = history.repo_root
    if root is None or not (root / file).is_file():
        return None
    return own_name(history.conn, file)


def folder_names(history: MemoryStore | None, folder: str) -> list[EarlierName]:
    """The earlier names of the files of ``folder``, a folder of the working tree, each dated
    as :func:`earlier_names` dates a file's (every name of a file renamed into the folder:
    the folder moved, or files moved into it); none for anything else."""
    root = history.repo_root if history is not None else None
    if root is None or not folder or not (root / folder).is_dir():
        return []
    root = _history_root(history, as_of_head=True)
    if history is None or root is None:
        return []
    there = root

    def is_file(name: str) -> bool:
        return (there / name).is_file()

    return [
        name
        for path in renamed_into(history.conn, folder)
        if is_file(path)
        for name in earlier_dated(history.conn, path, is_file)
    ]
