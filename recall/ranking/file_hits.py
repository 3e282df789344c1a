"""The file channel of a recall as the engine asks for it: kept per index state for each set of
touched files, and widened by the memories whose anchored symbol moved into a touched file."""

from __future__ import annotations

import sqlite3
from typing import Any

from recall.clock import day_number, now
from recall.ranking import channels as ch
from recall.ranking import file_channels as fc
from recall.ranking.store_facts import StoreFacts, any_symbol_anchor

FILE_CHANNELS_KEPT = 64
"""Sets of touched files whose file channel is kept per index state; a speed setting, not a
judgement (any value ranks the same)."""


def kept_file_channel(
    conn: sqlite3.Connection,
    facts: StoreFacts,
    touched: dict[str, float],
    aliases: fc.Aliases,
) -> ch.Channel:
    """The file channel, kept per index state for each set of touched files and the names
    they had (``aliases``: an editor asks for the same open file again and again)."""
    clock = now()
    present = clock.timestamp()
    # The newest-on-file bonus counts only memories written by now: a channel with memories
    # dated later is kept for this moment only.
    named = facts.memo.owners(conn, [n.name for names in aliases.values() for n in names])
    cutoff = fc.newest_cutoff(named, present)
    # the origin bonus grows (and the newest bonus fades) with the days a file has gone
    # without a memory: kept for a day
    day = day_number(clock)
    key = (tuple((path, touched[path], names) for path, names in aliases.items()), cutoff, day)
    kept = facts.file_channels.get(key)
    if kept is None:
        if len(facts.file_channels) >= FILE_CHANNELS_KEPT:
            facts.file_channels.clear()
        kept = fc.files_channel(conn, touched, aliases, facts.memo, present)
        facts.file_channels[key] = kept
    return kept


def with_moved_symbols(
    conn: sqlite3.Connection,
    repo: Any,
    facts: StoreFacts,
    touched: dict[str, float],
    aliases: fc.Aliases,
    file_hits: ch.Channel,
) -> ch.Channel:
    """The file channel plus memories whose anchored symbol moved into a touched file (as the
    repository ``repo`` tells)."""
    if facts.any_anchor is None:
        facts.any_anchor = any_symbol_anchor(conn)
    if not facts.any_anchor:
        return file_hits
    from recall.ranking.symbol_moves import MovesKept, with_moved

    if facts.moves is None:
        facts.moves = MovesKept()
    return with_moved(conn, repo, facts.moves, touched, aliases, file_hits)
