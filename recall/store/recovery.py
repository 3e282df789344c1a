"""Replacing an index found unusable (damaged, from elsewhere) when a store opens it.

The new index is built beside the old one and swapped in, as ``tether reindex`` does, so that
what the memory files do not hold is carried over from the old file while it is still there:
the per-user counts (:mod:`recall.index.keep`) and the code map (:mod:`recall.genome.carry`).
The caller syncs the memory files into it afterwards.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from recall.genome import carry as genome_carry
from recall.index import db, swap

OpenIndex = Callable[[Path], tuple[sqlite3.Connection, bool]]
"""Opens (creating) an index file: the store's own way, a private store's owner-only."""


def replace_unusable(path: Path, folder: Path, open_index: OpenIndex) -> str:
    """Put an index holding no memory yet in place of the one at ``path`` (serving the memory
    folder ``folder``), carrying over its counts and code map where they can be read; return
    what a notice adds for what was left behind ('' when nothing was). The caller holds the
    store's writers' lock. :class:`db.IndexUnwritable` when the new index cannot be written;
    the old one is then left as it was."""
    swap.discard_build(path)
    try:
        built, _ = open_index(swap.build_path(path))
    except BaseException:
        swap.discard_build(path)
        raise
    try:
        code_map_left = genome_carry.carry(path, folder, built)
    except BaseException as error:
        built.close()
        swap.discard_build(path)
        if isinstance(error, sqlite3.Error) and db.is_unwritable_error(error):
            raise db.IndexUnwritable(str(error), full=db.is_full_error(error)) from None
        raise
    try:
        saved = swap.swap_in(path, built, folder)  # closes ``built``, whatever happens
    except sqlite3.Error as error:
        if db.is_unwritable_error(error):
            raise db.IndexUnwritable(str(error), full=db.is_full_error(error)) from None
        raise
    return genome_carry.left_behind(saved, code_map_left)
