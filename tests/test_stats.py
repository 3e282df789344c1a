"""``tether stats``: per-category numbers from a real store, usage written through recall.usage."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import CliResult, OpenStore, remember
from test_cli import Cli, ok

from recall.cli.cmd_stats import BAR_WIDTH, bar
from recall.stats import CategoryStats, category_stats, merge, totals
from recall.usage import record_action, record_surfacings


@pytest.fixture
def populated(open_store: Callable[..., OpenStore]) -> dict[str, str]:
    """A project store: gotchas shown and acted on, one archived, one superseded, one deleted."""
    store = open_store().store
    ids = {
        "g1": remember(store, "Gotcha one"),
        "g2": remember(store, "Gotcha two"),
        "g3": remember(store, "Gotcha archived"),
        "g4": remember(store, "Gotcha deleted"),
        "d1": remember(store, "Decision one", category="decision"),
        "p1": remember(store, "Pref kept", category="pref"),
    }
    store.supersede(
        ids["d1"], store.prepare_memory(summary="Decision two", category="decision", files=[])
    )
    store.set_status(ids["g3"], "archived", allowed_from=("active",))
    store.set_status(ids["g4"], "deleted", allowed_from=("active",))
    conn = store.conn
    for _ in range(4):
        record_surfacings(conn, [ids["g1"], ids["g2"], ids["g3"], ids["g4"]])
    record_surfacings(conn, [ids["d1"]])
    for _ in range(3):
        record_action(conn, ids["g1"])
    record_action(conn, ids["d1"])
    record_action(conn, ids["g4"])  # deleted: left out of every number
    return ids


def test_category_stats_counts_each_category(
    open_store: Callable[..., OpenStore], populated: dict[str, str]
) -> None:
    table = {entry.category: entry for entry in category_stats(open_store().store.conn)}
    assert list(table) == ["pref", "decision", "gotcha", "context"]
    gotcha = table["gotcha"]
    assert (gotcha.memories, gotcha.archived, gotcha.superseded) == (2, 1, 0)
    assert (gotcha.surfaced, gotcha.acted) == (12, 3)
    assert gotcha.follow_through == pytest.approx(0.25)
    decision = table["decision"]
    assert (decision.memories, decision.superseded, decision.surfaced, decision.acted) == (
        1,
        1,
        1,
        1,
    )
    assert table["pref"].memories == 1 and table["pref"].follow_through is None
    assert table["context"] == CategoryStats("context")


def test_merge_and_totals_add_up() -> None:
    one = [CategoryStats("gotcha", memories=1, surfaced=4, acted=1)]
    two = [CategoryStats("gotcha", memories=2, surfaced=4, acted=3), CategoryStats("pref", 1)]
    merged = {e.category: e for e in merge([one, two])}
    assert merged["gotcha"].follow_through == pytest.approx(0.5)
    assert totals(list(merged.values())).memories == 4


def test_bar() -> None:
    assert bar(None) == "·" * BAR_WIDTH
    assert bar(0.0) == "░" * BAR_WIDTH
    assert bar(1.0) == "█" * BAR_WIDTH
    assert bar(0.25).count("█") == BAR_WIDTH // 4 and len(bar(0.25)) == BAR_WIDTH


def test_stats_json(cli: Cli, populated: dict[str, str]) -> None:
    out = ok(cli("stats", "--json")).json()
    assert out["scope"] == "project"
    gotcha = next(c for c in out["categories"] if c["category"] == "gotcha")
    assert gotcha == {
        "category": "gotcha",
        "memories": 2,
        "surfaced": 12,
        "acted": 3,
        "archived": 1,
        "superseded": 0,
        "follow_through": 0.25,
    }
    assert out["total"]["memories"] == 4 and out["total"]["surfaced"] == 13
    assert out["total"]["acted"] == 4


def test_stats_table_for_people(cli: Cli, populated: dict[str, str]) -> None:
    result: CliResult = ok(cli("stats", env={"COLUMNS": "80"}))
    assert "follow-through" in result.stdout
    gotcha_line = next(line for line in result.stdout.splitlines() if "gotcha" in line)
    assert "25%" in gotcha_line and "█" * (BAR_WIDTH // 4) in gotcha_line
    assert "—" in next(line for line in result.stdout.splitlines() if " pref " in line)


def test_stats_scope_global_and_all(
    cli: Cli, open_store: Callable[..., OpenStore], populated: dict[str, str]
) -> None:
    remember(open_store(scope="global").store, "Global pref", category="pref", files=[])
    glob = ok(cli("stats", "--scope", "global", "--json")).json()
    assert glob["total"]["memories"] == 1
    both = ok(cli("stats", "--scope", "all", "--json")).json()
    assert both["total"]["memories"] == 5


def test_stats_of_an_empty_store_is_all_zero(cli: Cli) -> None:
    ok(cli("init"))
    out = ok(cli("stats", "--json")).json()
    assert out["total"]["memories"] == 0 and out["total"]["follow_through"] is None
