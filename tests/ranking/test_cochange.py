"""Co-change through the real engine: neighbours from git history, their receipts and caps.

The repositories are built so the genome sees known co-change counts; the tests then check
that memories on neighbours enter behind direct hits, say ``via co-change with <file> (s/n)``,
and that at most ``NEIGHBOURS_PER_FILE`` neighbours per touched file and ``NEIGHBOURS_TOTAL``
in all are used.
"""

from __future__ import annotations

import re

import pytest

from recall.ranking import weights as W
from recall.ranking.engine import RecallResult

from .world import World, describe, hit_of, ids

RECEIPT = re.compile(r"via co-change with (?P<path>\S+) \((?P<support>\d+)/(?P<commits>\d+)\)")


def cochange_hits(result: RecallResult) -> dict[str, str]:
    """{memory id: neighbour path named by its receipt} for every co-change hit."""
    found: dict[str, str] = {}
    for hit in result.hits:
        if "cochange" in hit.signals:
            match = RECEIPT.search(hit.receipt)
            assert match, hit.receipt
            found[hit.memory.id] = match["path"]
    return found


def graded_history(world: World, touched: str, neighbours: list[str], commits: int) -> None:
    """``commits`` commits of ``touched``; neighbour k joins the first ``commits - k`` of them,
    so each neighbour is strictly weaker than the one before it."""
    world.history(
        [touched, *(n for k, n in enumerate(neighbours) if number < commits - k)]
        for number in range(commits)
    )


def test_a_neighbours_memory_enters_via_cochange_behind_the_direct_hit(world: World) -> None:
    world.history([["src/auth/routes.ts", "src/auth/middleware.ts"]] * 6 + [["src/auth/routes.ts"]])
    direct = world.remember("routes are registered in order", "src/auth/routes.ts")
    neighbour = world.remember("middleware must run before routes", "src/auth/middleware.ts")

    result = world.recall("src/auth/routes.ts")

    assert ids(result) == [direct, neighbour], describe(result)
    hit = hit_of(result, neighbour)
    (link,) = [
        n for n in world.genome().neighbours("src/auth/routes.ts") if n.path.endswith("ware.ts")
    ]
    assert (link.support, link.commits_of_path) == (6, 7)
    assert hit.receipt == "via co-change with src/auth/middleware.ts (6/7)"
    assert "file" not in hit.signals
    assert hit.signals["cochange_rank"] == pytest.approx(
        W.CHANNEL_WEIGHTS["cochange"] * W.rrf(W.COCHANGE_RRF_RANK)
    )
    assert 0 < hit.signals["cochange"] <= W.COCHANGE_MAX
    assert hit.signals["cochange"] == pytest.approx(W.cochange_magnitude(6 / 7, 6))


def test_a_neighbour_never_outranks_a_memory_on_a_crowded_touched_file(world: World) -> None:
    world.history([["src/store.ts", "src/lock.ts"]] * 8)
    crowd = world.crowd("src/store.ts", 46)
    neighbour = world.remember("lock: release it in finally", "src/lock.ts")

    result = world.recall("src/store.ts", limit=60)

    assert ids(result)[-1] == neighbour, describe(result)[-3:]
    assert set(ids(result)[:-1]) == set(crowd)


def test_at_most_two_neighbours_per_touched_file_the_strongest(world: World) -> None:
    neighbours = [f"src/core/n{k}.py" for k in range(1, 5)]
    graded_history(world, "src/core/main.py", neighbours, commits=6)
    notes = {path: world.remember(f"note on {path}", path) for path in neighbours}
    strongest = world.genome().neighbours("src/core/main.py")
    assert [n.path for n in strongest] == neighbours  # four qualifying neighbours...
    assert all(
        n.support >= W.COCHANGE_MIN_SUPPORT and n.confidence >= W.COCHANGE_MIN_CONFIDENCE
        for n in strongest
    )

    result = world.recall("src/core/main.py")

    used = cochange_hits(result)
    assert sorted(used.values()) == neighbours[: W.NEIGHBOURS_PER_FILE], describe(result)
    assert set(used) == {notes[p] for p in neighbours[: W.NEIGHBOURS_PER_FILE]}
    assert hit_of(result, notes[neighbours[0]]).receipt.endswith("(6/6)")
    assert hit_of(result, notes[neighbours[1]]).receipt.endswith("(5/6)")


def test_at_most_six_neighbours_in_all_for_a_wide_edit(world: World) -> None:
    groups = {f"src/m{g}/main.py": [f"src/m{g}/n{k}.py" for k in range(1, 4)] for g in range(4)}
    for touched, neighbours in groups.items():
        graded_history(world, touched, neighbours, commits=4)
    owner = {n: touched for touched, ns in groups.items() for n in ns}
    for path in owner:
        world.remember(f"note on {path}", path)
    assert W.NEIGHBOURS_PER_FILE * len(groups) > W.NEIGHBOURS_TOTAL  # the total cap must bite

    result = world.recall(*groups, limit=50)

    used = cochange_hits(result)
    assert len(used) == W.NEIGHBOURS_TOTAL, describe(result)
    per_file: dict[str, int] = {}
    for neighbour in used.values():
        per_file[owner[neighbour]] = per_file.get(owner[neighbour], 0) + 1
    assert max(per_file.values()) <= W.NEIGHBOURS_PER_FILE


def test_a_deleted_neighbour_is_skipped_for_the_next_strongest(world: World) -> None:
    neighbours = [f"src/core/n{k}.py" for k in range(1, 4)]
    graded_history(world, "src/core/main.py", neighbours, commits=5)
    notes = {path: world.remember(f"note on {path}", path) for path in neighbours}
    world.delete(neighbours[0])

    result = world.recall("src/core/main.py")

    assert set(cochange_hits(result)) == {notes[neighbours[1]], notes[neighbours[2]]}
    assert notes[neighbours[0]] not in ids(result)


def test_coincidental_neighbours_do_not_enter(world: World) -> None:
    # One shared commit out of many is an anecdote (support below COCHANGE_MIN_SUPPORT).
    world.history([["src/a.py", "src/b.py"]] + [["src/a.py"]] * 5)
    note = world.remember("b is generated", "src/b.py")

    result = world.recall("src/a.py")

    assert note not in ids(result), describe(result)


def test_a_memory_on_an_earlier_name_of_a_neighbour_enters_via_cochange(world: World) -> None:
    """A memory written on a neighbour's name before a rename is on the neighbour, as the file
    channel counts it: the receipt names the file by its name now."""
    world.history([["old.py", "app.py"]] * 2)
    world.rename("old.py", "new.py")
    world.commit("new.py", "app.py")
    on_old = world.remember("note written on the old name", "old.py")
    on_new = world.remember("note written on the new name", "new.py")
    direct = world.recall("new.py")
    assert {on_old, on_new} <= set(ids(direct)), describe(direct)

    result = world.recall("app.py")

    assert cochange_hits(result) == {on_old: "new.py", on_new: "new.py"}, describe(result)
    assert hit_of(result, on_old).receipt == hit_of(result, on_new).receipt


def test_a_moved_folders_files_bring_their_siblings_memories(world: World) -> None:
    """A whole folder moved: a file of it brings the memories its siblings had under the old
    folder, through co-change."""
    files = ["core/a.py", "core/b.py"]
    world.history([files] * 3)
    sibling = world.remember("b must stay import-free", "core/b.py")
    for path in files:
        world.rename(path, path.replace("core/", "src/"))

    result = world.recall("src/a.py")

    assert cochange_hits(result) == {sibling: "src/b.py"}, describe(result)


def test_a_reused_earlier_name_keeps_later_memories_to_the_file_there_now(world: World) -> None:
    """The dated rule of the file channel: a memory naming a neighbour's earlier name written
    after another file took that name is about that file, not the neighbour."""
    world.history([["old.py", "app.py"]] * 2)
    world.rename("old.py", "new.py")  # commit 2, at 02:00 of the history's first day
    world.commit("new.py", "app.py")
    world.commit("old.py", message="a new file takes the old name")  # commit 4, at 04:00
    before = world.remember("old: written before the rename", "old.py", created=_at(1))
    after = world.remember("old: written on the new old.py", "old.py", created=_at(5))

    result = world.recall("app.py", limit=10)

    found = cochange_hits(result)
    assert found.get(before) == "new.py", describe(result)
    assert found.get(after) != "new.py", describe(result)


def _at(hour: int) -> str:
    """A memory's creation time, ``hour`` hours into the test history's first day (its
    commits are an hour apart from its start)."""
    return f"2024-01-01T{hour:02d}:30:00+00:00"
