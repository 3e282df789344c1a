"""What may surface at all, and how the project and global scopes merge.

Superseded, archived and deleted memories never surface, whatever channel would find them,
and neither does a memory that an active memory names in its ``supersedes`` link. The same
knowledge (same content hash) in the project and the global store collapses into one hit:
the higher score wins, and the project copy wins a tie.
"""

from __future__ import annotations

from recall.model import STATUSES

from .world import World, describe, hit_of, ids

PROMPT = "why does the session flush lose writes on close?"


def test_only_active_unreplaced_memories_surface(world: World) -> None:
    world.history([["src/store.py", "src/other.py"]])
    summary = "session flush loses writes on close"
    active = world.remember(f"{summary}: hold the lock", "src/store.py")
    old = world.remember(f"{summary}: sleep first", "src/store.py")
    archived = world.remember(f"{summary}: retry forever", "src/store.py")
    deleted = world.remember(f"{summary}: ignore it", "src/store.py")
    orphan = world.remember(f"{summary}: use a temp file", "src/store.py")
    store = world.project
    draft = store.prepare_memory(
        summary=f"{summary}: fsync the folder", category="gotcha", files=["src/store.py"]
    )
    replacement = store.supersede(old, draft)[0].id
    store.set_status(archived, "archived", allowed_from=STATUSES)
    store.set_status(deleted, "deleted", allowed_from=STATUSES)
    # A replacement linked by hand (an import, a merge): the old one is still marked active.
    linker = world.remember(f"{summary}: rename into place", "src/store.py", supersedes=orphan)
    assert store.get(orphan).status == "active"

    result = world.recall("src/store.py", "src/other.py", prompt=PROMPT, limit=50)

    assert set(ids(result)) == {active, replacement, linker}, describe(result)


def test_superseding_hands_the_file_to_the_replacement(world: World) -> None:
    world.history([["src/store.py"]])
    old = world.remember("flush with a sleep first", "src/store.py")
    draft = world.project.prepare_memory(
        summary="flush under the store lock", category="gotcha", files=["src/store.py"]
    )
    new = world.project.supersede(old, draft)[0].id

    result = world.recall("src/store.py", prompt="flush with a sleep first")

    assert ids(result) == [new], describe(result)
    assert "file" in hit_of(result, new).signals


def test_project_and_global_duplicates_collapse_and_project_wins_the_tie(world: World) -> None:
    world.history([["src/app.py", "src/lib.py"]])
    summary = "app: use bun, not npm, for installs"
    project = world.remember(summary, "src/app.py", scope="project")
    copy = world.remember(summary, "src/app.py", scope="global")
    only_global = world.remember("lib: prefer tabs", "src/lib.py", scope="global")
    assert project != copy

    # the global store is ranked first, so "first seen wins" would pick the global copy
    both = world.recall("src/app.py", "src/lib.py", scopes=("global", "project"))
    global_alone = world.recall("src/app.py", scopes=("global",))

    assert hit_of(global_alone, copy).score == hit_of(both, project).score  # a true tie
    assert sorted(ids(both)) == sorted([project, only_global]), describe(both)
    assert hit_of(both, project).scope == "project"
    assert hit_of(both, only_global).scope == "global"


def test_a_higher_scoring_global_copy_wins_over_the_project_one(world: World) -> None:
    world.history([["src/app.py"]])
    summary = "app: use bun, not npm, for installs"
    world.remember(summary, "src/app.py", scope="project")
    pinned_copy = world.remember(summary, "src/app.py", scope="global", pinned=True)

    result = world.recall("src/app.py", scopes=("project", "global"))

    assert ids(result) == [pinned_copy], describe(result)
    assert result.hits[0].scope == "global"
    assert "pinned" in result.hits[0].receipt


def test_scopes_not_asked_for_are_not_searched(world: World) -> None:
    world.history([["src/app.py"]])
    world.remember("global note", "src/app.py", scope="global")
    local = world.remember("project note", "src/app.py")

    result = world.recall("src/app.py", scopes=("project",))

    assert ids(result) == [local]
