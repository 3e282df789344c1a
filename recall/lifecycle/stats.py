"""Per-category curation numbers for ``tether stats``: how much is kept, shown and acted on.

The numbers are the current user's view: a memory their disuse archived
(:mod:`recall.lifecycle.disuse`; the file still says active) counts as archived, not among
the memories recall can show, as ``tether list --status archived`` lists it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import date

from recall.lifecycle.disuse import archived_by_disuse
from recall.model import CATEGORIES


@dataclass
class CategoryStats:
    """The numbers of one category in one store."""

    category: str
    memories: int = 0  # active ones: what recall can show
    surfaced: int = 0  # times shown, over every memory of the category whatever its status
    acted: int = 0  # times someone acted on one (show, pin, supersede, hover, follow)
    followed: int = 0  # of ``acted``: at most one per showing of the memory acted on
    archived: int = 0  # by a person (the file says so) or by this user's disuse
    archived_by_disuse: int = 0  # of ``archived``: this user's disuse archives only
    superseded: int = 0
    pending: int = 0  # auto-distilled, awaiting a person's review (never recalled until then)

    @property
    def follow_through(self) -> float | None:
        """followed / surfaced: the share of showings acted on, at most 1 (a memory acted on
        more often than shown, by ``tether show`` or a pin, counts each showing once); None
        when nothing was ever shown (no rate to speak of)."""
        return self.followed / self.surfaced if self.surfaced else None

    def add(self, other: CategoryStats) -> None:
        """Add another store's numbers for the same category."""
        for item in fields(self):
            if item.name != "category":
                setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form, the rate rounded to 4 places."""
        rate = self.follow_through
        return {**asdict(self), "follow_through": None if rate is None else round(rate, 4)}


def category_stats(conn: sqlite3.Connection) -> list[CategoryStats]:
    """One row per known category (in their usual order), then any other found in the index."""
    by_category = {name: CategoryStats(name) for name in CATEGORIES}
    disused = _disused_by_category(conn)
    rows = conn.execute(
        "SELECT m.category AS category, "
        "sum(m.status = 'active') AS memories, "
        "sum(m.status = 'archived') AS archived, "
        "sum(m.status = 'superseded') AS superseded, "
        "sum(m.status = 'pending') AS pending, "
        "coalesce(sum(u.surfaced), 0) AS surfaced, "
        "coalesce(sum(u.acted), 0) AS acted, "
        "coalesce(sum(min(u.acted, u.surfaced)), 0) AS followed "
        "FROM memories m LEFT JOIN usage u ON u.memory_id = m.id "
        "WHERE m.status != 'deleted' GROUP BY m.category"
    ).fetchall()
    for row in rows:
        entry = by_category.setdefault(row["category"], CategoryStats(row["category"]))
        by_disuse = disused.get(row["category"], 0)
        entry.add(
            CategoryStats(
                row["category"],
                memories=(row["memories"] or 0) - by_disuse,
                surfaced=row["surfaced"],
                acted=row["acted"],
                followed=row["followed"],
                archived=(row["archived"] or 0) + by_disuse,
                archived_by_disuse=by_disuse,
                superseded=row["superseded"] or 0,
                pending=row["pending"] or 0,
            )
        )
    return list(by_category.values())


def _disused_by_category(conn: sqlite3.Connection) -> dict[str, int]:
    """How many memories of each category this user's disuse archived."""
    flagged = archived_by_disuse(conn)  # only ever active memories (see recall.lifecycle.disuse)
    counts: dict[str, int] = {}
    if not flagged:
        return counts
    for memory_id, category in conn.execute(
        "SELECT id, category FROM memories WHERE status = 'active'"
    ):
        if memory_id in flagged:
            counts[category] = counts.get(category, 0) + 1
    return counts


HUB_FILES = 8
"""Files charted by ``tether stats``: the hubs where memories pile up fit one screen."""


def hub_files(conn: sqlite3.Connection, limit: int | None = HUB_FILES) -> list[tuple[str, int]]:
    """The files named by the most memories recall can show (active, not archived by this
    user's disuse), most first, as (path, count); every one when ``limit`` is None."""
    hidden = archived_by_disuse(conn)
    counts: dict[str, int] = {}
    for memory_id, path in conn.execute(
        "SELECT m.id, f.path FROM memory_files f JOIN memories m ON m.rowid = f.memory_rowid "
        "WHERE m.status = 'active'"
    ):
        if memory_id not in hidden:
            counts[path] = counts.get(path, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]


def merge_hubs(lists: list[list[tuple[str, int]]], limit: int = HUB_FILES) -> list[tuple[str, int]]:
    """Several stores' hub files added up, most first."""
    counts: dict[str, int] = {}
    for found in lists:
        for path, count in found:
            counts[path] = counts.get(path, 0) + count
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]


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


ACTIVITY_WEEKS = 8
"""Weeks charted by ``tether stats``: two months shows a trend and fits a narrow terminal."""


@dataclass
class CategoryActivity:
    """One category's surfaced and acted-on counts, one entry per week, oldest first."""

    surfaced: list[int]
    acted: list[int]

    def any(self) -> bool:
        """Whether anything was counted in the period."""
        return any(self.surfaced) or any(self.acted)


@dataclass
class Activity:
    """Surfaced and acted-on counts per category per week, over the weeks ending ``end``."""

    weeks: list[str]  # the first day of each week, oldest first
    end: str  # the last day counted (today)
    categories: dict[str, CategoryActivity] = field(default_factory=dict)
    since: str | None = None  # set when counts from before per-day counting exist

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "weeks": self.weeks,
            "end": self.end,
            "since": self.since,
            "categories": {name: asdict(counts) for name, counts in self.categories.items()},
        }


def activity(conn: sqlite3.Connection, today: date, weeks: int = ACTIVITY_WEEKS) -> Activity:
    """Per category, how often its memories were surfaced and acted on in each of the
    ``weeks`` weeks ending ``today`` (UTC days, from ``usage_days``)."""
    first = today.toordinal() - (7 * weeks - 1)  # day 1 is 0001-01-01: may come before it
    gone = max(0, (1 - first) // 7)  # weeks wholly before the first day there is, left out
    weeks -= gone
    starts = [date.fromordinal(max(1, first + 7 * (gone + week))) for week in range(weeks)]
    start = starts[0]
    result = Activity([day.isoformat() for day in starts], today.isoformat())
    try:
        rows = conn.execute(
            "SELECT d.day AS day, m.category AS category, sum(d.surfaced) AS surfaced, "
            "sum(d.acted) AS acted FROM usage_days d JOIN memories m ON m.id = d.memory_id "
            "WHERE d.day BETWEEN ? AND ? GROUP BY d.day, m.category",
            (start.isoformat(), today.isoformat()),
        ).fetchall()
        first_day = conn.execute("SELECT min(day) FROM usage_days").fetchone()[0]
    except sqlite3.OperationalError:  # an index opened read-only at an older schema
        return result
    for name in CATEGORIES:
        result.categories[name] = CategoryActivity([0] * weeks, [0] * weeks)
    for row in rows:
        week = (date.fromisoformat(row["day"]).toordinal() - first) // 7 - gone
        counts = result.categories.setdefault(
            row["category"], CategoryActivity([0] * weeks, [0] * weeks)
        )
        counts.surfaced[week] += row["surfaced"]
        counts.acted[week] += row["acted"]
    result.since = _counted_before(conn, first_day)
    return result


def _counted_before(conn: sqlite3.Connection, first_day: str | None) -> str | None:
    """``first_day`` when ``usage`` holds counts older than it (made before per-day counting
    began, so the weekly chart leaves them out), else None."""
    if first_day is None:
        return None
    older = conn.execute(
        "SELECT 1 FROM usage WHERE substr(first_surfaced, 1, 10) < ? "
        "OR substr(last_acted, 1, 10) < ? LIMIT 1",
        (first_day, first_day),
    ).fetchone()
    return first_day if older else None


def merge_activity(found: list[Activity]) -> Activity:
    """Several stores' activity over the same weeks, added up."""
    merged = Activity(found[0].weeks, found[0].end)
    for one in found:
        for name, counts in one.categories.items():
            into = merged.categories.setdefault(
                name, CategoryActivity([0] * len(merged.weeks), [0] * len(merged.weeks))
            )
            into.surfaced = [a + b for a, b in zip(into.surfaced, counts.surfaced, strict=True)]
            into.acted = [a + b for a, b in zip(into.acted, counts.acted, strict=True)]
        if one.since is not None:
            merged.since = max(merged.since or one.since, one.since)
    return merged


@dataclass(frozen=True)
class Overview:
    """What ``tether stats`` shows (the browser's overview too): the per-category numbers, use
    per week and the files most memories name, over one or more stores added up."""

    categories: list[CategoryStats]
    total: CategoryStats
    activity: Activity
    hubs: list[tuple[str, int]]


def overview(conns: Sequence[sqlite3.Connection], today: date) -> Overview:
    """The numbers of the stores behind ``conns`` (at least one), added up."""
    table = merge([category_stats(conn) for conn in conns])
    return Overview(
        table,
        totals(table),
        merge_activity([activity(conn, today) for conn in conns]),
        merge_hubs([hub_files(conn, None) for conn in conns]),  # added up, then cut
    )
