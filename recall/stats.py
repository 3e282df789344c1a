"""Per-category curation numbers for ``tether stats``: how much is kept, shown and acted on."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass

from recall.model import CATEGORIES


@dataclass
class CategoryStats:
    """The numbers of one category in one store."""

    category: str
    memories: int = 0  # active ones: what recall can show
    surfaced: int = 0  # times shown, over every memory of the category whatever its status
    acted: int = 0  # times someone acted on one (show, pin, supersede, hover, follow)
    archived: int = 0
    superseded: int = 0

    @property
    def follow_through(self) -> float | None:
        """acted / surfaced, or None when nothing was ever shown (no rate to speak of)."""
        return self.acted / self.surfaced if self.surfaced else None

    def add(self, other: CategoryStats) -> None:
        """Add another store's numbers for the same category."""
        for key in ("memories", "surfaced", "acted", "archived", "superseded"):
            setattr(self, key, getattr(self, key) + getattr(other, key))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form, the rate rounded to 4 places."""
        rate = self.follow_through
        return {**asdict(self), "follow_through": None if rate is None else round(rate, 4)}


def category_stats(conn: sqlite3.Connection) -> list[CategoryStats]:
    """One row per known category (in their usual order), then any other found in the index."""
    by_category = {name: CategoryStats(name) for name in CATEGORIES}
    rows = conn.execute(
        "SELECT m.category AS category, "
        "sum(m.status = 'active') AS memories, "
        "sum(m.status = 'archived') AS archived, "
        "sum(m.status = 'superseded') AS superseded, "
        "coalesce(sum(u.surfaced), 0) AS surfaced, "
        "coalesce(sum(u.acted), 0) AS acted "
        "FROM memories m LEFT JOIN usage u ON u.memory_id = m.id "
        "WHERE m.status != 'deleted' GROUP BY m.category"
    ).fetchall()
    for row in rows:
        entry = by_category.setdefault(row["category"], CategoryStats(row["category"]))
        entry.add(
            CategoryStats(
                row["category"],
                memories=row["memories"] or 0,
                surfaced=row["surfaced"],
                acted=row["acted"],
                archived=row["archived"] or 0,
                superseded=row["superseded"] or 0,
            )
        )
    return list(by_category.values())


def merge(tables: list[list[CategoryStats]]) -> list[CategoryStats]:
    """Sum the per-category numbers of several stores."""
    merged: dict[str, CategoryStats] = {}
    for table in tables:
        for entry in table:
            merged.setdefault(entry.category, CategoryStats(entry.category)).add(entry)
    return list(merged.values())


def totals(table: list[CategoryStats]) -> CategoryStats:
    """Every category added up."""
    total = CategoryStats("total")
    for entry in table:
        total.add(entry)
    return total
