"""The names a file defines as the symbol index holds them, asked of the index once per file:
what a ``gone`` anchor's closest names are matched against (``doctor`` over many memories
whose anchors are gone from one file reads that file's names once)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from recall.genome.symbols.lookup import defined_in

NamesIn = Callable[[str], Sequence[str]]
"""The names a file defines, qualified as an anchor takes them (``Store.save``)."""


def names_in(conn: sqlite3.Connection) -> NamesIn:
    """The names each file defines in the index ``conn``, each file asked once (an indexed
    look-up, no parsing); none for a file the index does not hold."""
    seen: dict[str, list[str]] = {}

    def names(path: str) -> list[str]:
        if path not in seen:
            seen[path] = [hit.name for hit in defined_in(conn, path)]
        return seen[path]

    return names


def genome_names(genome: Any | None) -> NamesIn | None:
    """:func:`names_in` of the index of ``genome`` (a :class:`recall.genome.Genome`), to
    share across its memories; None without one."""
    conn = getattr(genome, "conn", None)
    return names_in(conn) if conn is not None else None
