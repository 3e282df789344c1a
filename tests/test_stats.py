"""``tether stats``: per-category numbers from a real store, usage written through
recall.policy.usage."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import CliResult, OpenStore, git, pty_run, remember
from test_cli import Cli, ok

from recall.charts import BAR_WIDTH, SPARK_NONE, bar, sparkline
from recall.cli.cmd_stats import disuse_note
from recall.clock import now
from recall.lifecycle.disuse import archive_ignored
from recall.lifecycle.stats import ACTIVITY_WEEKS, CategoryStats, category_stats, merge, totals
from recall.policy.usage import record_action, record_surfacings
from recall.settings import EngineSettings


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
    assert list(table) == ["pref", "decision", "gotcha", "context", "rejected"]
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


def test_a_memory_acted_on_more_often_than_shown_follows_through_at_most_fully(
    open_store: Callable[..., OpenStore],
) -> None:
    """``tether show`` and a pin count as acts though recall never showed the memory: one
    shown once and acted on three times is followed through once, not 300%."""
    store = open_store().store
    shown_once = remember(store, "Shown once, read three times")
    never_shown = remember(store, "Never shown, pinned")
    record_surfacings(store.conn, [shown_once])
    for _ in range(3):
        record_action(store.conn, shown_once)
    record_action(store.conn, never_shown)
    gotcha = {e.category: e for e in category_stats(store.conn)}["gotcha"]
    assert (gotcha.surfaced, gotcha.acted, gotcha.followed) == (1, 4, 1)
    assert gotcha.follow_through == pytest.approx(1.0)


def test_merge_and_totals_add_up() -> None:
    one = [CategoryStats("gotcha", memories=1, surfaced=4, acted=1, followed=1)]
    two = [
        CategoryStats("gotcha", memories=2, surfaced=4, acted=3, followed=3),
        CategoryStats("pref", 1),
    ]
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
        "followed": 3,
        "archived": 1,
        "archived_by_disuse": 0,
        "superseded": 0,
        "pending": 0,
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


def archive_by_disuse(open_store: Callable[..., OpenStore], memory_id: str) -> None:
    """Two more showings (six in all), then the session-start pass of 46 days later."""
    conn = open_store().store.conn
    record_surfacings(conn, [memory_id])
    record_surfacings(conn, [memory_id])
    archived = archive_ignored(conn, EngineSettings(), now() + timedelta(days=46))
    assert [a.memory_id for a in archived] == [memory_id]


def test_disuse_archives_count_as_archived_for_this_user(
    cli: Cli, open_store: Callable[..., OpenStore], populated: dict[str, str]
) -> None:
    archive_by_disuse(open_store, populated["g2"])
    gotcha = {e.category: e for e in category_stats(open_store().store.conn)}["gotcha"]
    # g2's file still says active; for this user it left recall, so it is archived, not kept
    assert (gotcha.memories, gotcha.archived, gotcha.archived_by_disuse) == (1, 2, 1)
    assert (gotcha.surfaced, gotcha.acted) == (14, 3)  # its showings still count
    out = ok(cli("stats", "--json")).json()
    assert out["total"]["memories"] == 3 and out["total"]["archived"] == 2
    assert out["total"]["archived_by_disuse"] == 1
    table = ok(cli("stats", env={"COLUMNS": "80"})).stdout
    gotcha_line = next(line for line in table.splitlines() if "gotcha" in line)
    cells = gotcha_line.split()
    assert cells[:2] == ["gotcha", "1"] and cells[-2:] == ["2", "0"]  # archived, superseded
    assert disuse_note(1) in " ".join(table.split())
    assert "1 of the archived was archived by your disuse" in disuse_note(1)
    assert "2 of the archived were" in disuse_note(2)

    ok(cli("restore", populated["g2"]))
    after = ok(cli("stats", "--json")).json()["total"]
    assert (after["memories"], after["archived"], after["archived_by_disuse"]) == (4, 1, 0)
    assert "by your disuse" not in ok(cli("stats", env={"COLUMNS": "80"})).stdout


def test_a_pinned_memory_flagged_before_it_was_pinned_is_not_counted_archived(
    open_store: Callable[..., OpenStore], populated: dict[str, str]
) -> None:
    archive_by_disuse(open_store, populated["g2"])
    open_store().store.set_pinned(populated["g2"], True)  # pinned: exempt, back in recall
    gotcha = {e.category: e for e in category_stats(open_store().store.conn)}["gotcha"]
    assert (gotcha.memories, gotcha.archived, gotcha.archived_by_disuse) == (2, 1, 0)


def test_sparkline_scales_to_the_top_and_keeps_a_single_use_visible() -> None:
    assert sparkline([0, 1, 2, 4], 4) == f"{SPARK_NONE}▃▅█"
    assert sparkline([1, 100], 100) == "▁█"  # one use beside a hundred still shows
    assert sparkline([0, 0], 0) == SPARK_NONE * 2


WEEK_END = "2026-11-30T12:00:00+00:00"  # the clock of the activity tests: a Monday


def test_stats_charts_surfaced_and_acted_per_week(cli: Cli, open_store) -> None:
    store = open_store().store
    gotcha = remember(store, "Gotcha shown for weeks")
    decision = remember(store, "Decision shown once", category="decision")
    conn = store.conn
    for day in ("2026-10-06", "2026-11-24", "2026-11-25", "2026-11-30"):  # weeks 0, 7, 7, 7
        record_surfacings(conn, [gotcha], when=f"{day}T09:00:00+00:00")
    record_action(conn, gotcha, when="2026-11-25T09:30:00+00:00")
    record_surfacings(conn, [decision], when="2026-11-03T09:00:00+00:00")  # week 4
    record_surfacings(conn, [decision], when="2026-08-01T09:00:00+00:00")  # before the chart

    env = {"TETHER_NOW": WEEK_END, "COLUMNS": "100"}
    out = ok(cli("stats", "--json", env=env)).json()["activity"]
    assert out["end"] == "2026-11-30" and out["weeks"][0] == "2026-10-06"
    assert len(out["weeks"]) == ACTIVITY_WEEKS == 8 and out["since"] is None
    assert out["categories"]["gotcha"] == {
        "surfaced": [1, 0, 0, 0, 0, 0, 0, 3],
        "acted": [0, 0, 0, 0, 0, 0, 0, 1],
    }
    assert out["categories"]["decision"]["surfaced"] == [0, 0, 0, 0, 1, 0, 0, 0]

    lines = ok(cli("stats", env=env)).stdout.splitlines()
    gotcha_line = next(line for line in lines if line.startswith("  gotcha"))
    assert f"surfaced ▃{SPARK_NONE * 6}█     4" in gotcha_line
    assert f"acted {SPARK_NONE * 7}▃     1" in gotcha_line
    assert not any(line.startswith("  pref") for line in lines)  # nothing to chart


def test_counts_from_before_per_day_counting_are_said_to_be_left_out(cli: Cli, open_store) -> None:
    store = open_store().store
    gotcha = remember(store, "Gotcha from an older index")
    record_surfacings(store.conn, [gotcha], when="2026-11-02T09:00:00+00:00")
    with store.conn:  # as an index upgraded from version 4 has it: totals, no days
        store.conn.execute("DELETE FROM usage_days")
    record_surfacings(store.conn, [gotcha], when="2026-11-27T09:00:00+00:00")
    out = ok(cli("stats", "--json", env={"TETHER_NOW": WEEK_END})).json()
    assert out["activity"]["since"] == "2026-11-27"
    assert out["activity"]["categories"]["gotcha"]["surfaced"][-1] == 1
    assert out["total"]["surfaced"] == 2
    text = ok(cli("stats", env={"TETHER_NOW": WEEK_END})).stdout
    assert "counted per day since 2026-11-27" in text


def test_a_clock_in_the_first_weeks_there_are_charts_only_the_weeks_since(
    cli: Cli, open_store
) -> None:
    store = open_store().store
    gotcha = remember(store, "Gotcha shown in year one")
    for day in ("0001-01-01", "0001-01-02", "0001-01-15"):
        record_surfacings(store.conn, [gotcha], when=f"{day}T09:00:00+00:00")
    env = {"TETHER_NOW": "0001-01-20T00:00:00+00:00", "COLUMNS": "100"}
    out = ok(cli("stats", "--json", env=env)).json()["activity"]
    # the first week began before 0001-01-01, the first day there is; five began before it
    assert out["weeks"] == ["0001-01-01", "0001-01-07", "0001-01-14"]
    assert out["categories"]["gotcha"]["surfaced"] == [2, 0, 1]
    first = {"TETHER_NOW": "0001-01-01T00:00:00+00:00", "COLUMNS": "100"}
    assert ok(cli("stats", "--json", env=first)).json()["activity"]["weeks"] == ["0001-01-01"]
    lines = ok(cli("stats", env=first)).stdout.splitlines()
    assert any(line.startswith("  gotcha") and "surfaced" in line for line in lines)


DEEP = "src/payments/gateway/adapters/legacy/soap/generated"


@pytest.mark.parametrize("where", ["piped", "terminal"])
def test_a_hub_file_path_past_the_width_is_printed_whole(cli: Cli, repo: Path, where: str) -> None:
    """Two files differing only past the 80th column are two lines, each path as written,
    piped and on an 80-column terminal (the table fits it; the path's line goes out whole)."""
    paths = [f"{DEEP}/invoice_client_v{n}.py" for n in (1, 2)]
    for path in paths:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("x = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "deep files")
    for n, path in enumerate(paths, start=1):
        ok(cli("remember", f"v{n} retries differently", "-c", "gotcha", "-f", path))
    if where == "piped":
        out = ok(cli("stats", "--scope", "project")).stdout
    else:
        code, out, err = pty_run("stats", "--scope", "project", cwd=repo, env={}, columns=80)
        assert code == 0, err
    lines = out.replace("\r\n", "\n").splitlines()
    assert all(len(f"  {'█' * BAR_WIDTH}    1  {path}") > 80 for path in paths)
    for path in paths:
        assert [line for line in lines if line.endswith(f"  {path}")], (path, lines)
