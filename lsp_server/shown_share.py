"""The share of a workspace's active memories the editor shows as diagnostics (of a shown
category, or guarded while guards are shown): how many hits a file's first recall asks for
follows it, so a rare shown category still fills a file's diagnostics in one recall."""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

from lsp_server.roots import Root
from recall.index.rows import index_stamp

if TYPE_CHECKING:
    from lsp_server.server import TetherServer


def active_counts(root: Root) -> collections.Counter[tuple[str, bool]]:
    """The root's active memories by category and guard (read once per index state)."""
    counts: collections.Counter[tuple[str, bool]] = collections.Counter()
    for store in root.stores():
        if not store.exists:
            continue
        stamp = index_stamp(store.conn)
        kept = root.category_counts.get(store.location.memories_dir)
        if kept is None or kept[0] != stamp:
            found = store.conn.execute(
                "SELECT category, guard, count(*) FROM memories WHERE status = 'active'"
                " GROUP BY category, guard"
            )
            kept = root.category_counts[store.location.memories_dir] = (
                stamp,
                collections.Counter({(c, bool(g)): n for c, g, n in found.fetchall()}),
            )
        counts.update(kept[1])
    return counts


def shown_share(ls: TetherServer, root: Root) -> float:
    """The share of the root's active memories shown as a diagnostic: of a shown category, or
    guarded while guards are shown."""
    counts, show = active_counts(root), root.settings.severity_for
    shown = sum(n for (c, g), n in counts.items() if show(c, ls.client_name, guard=g) is not None)
    return shown / sum(counts.values()) if counts else 0.0
