"""Renames through chains and directory moves: a memory naming ``src/nm-manager.c`` is on the
file a fix touches as ``src/core/nm-manager.c``, whatever number of renames lie between, and
the receipt names the path the memory was written for.
"""

from __future__ import annotations

from .world import World, describe, hit_of


def test_a_directory_moved_over_several_commits_keeps_its_memories(world: World) -> None:
    files = ["src/nm-manager.c", "src/nm-device.c", "src/nm-policy.c"]
    world.history([files, ["README"]])
    manager = world.remember("manager: never block the main loop", "src/nm-manager.c")
    device = world.remember("device: unrealize before dispose", "src/nm-device.c")
    policy = world.remember("policy: default route follows the best device", "src/nm-policy.c")
    # the move of src/ to src/core/ lands one file per commit, with other work in between
    world.rename("src/nm-manager.c", "src/core/nm-manager.c")
    world.commit("README", message="docs")
    world.rename("src/nm-device.c", "src/core/nm-device.c")
    world.rename("src/nm-policy.c", "src/core/nm-policy.c")
    # and later one of them moves again: a chain of two renames
    world.rename("src/core/nm-manager.c", "src/core/manager/nm-manager.c")

    result = world.recall("src/core/manager/nm-manager.c")
    assert hit_of(result, manager).receipt.startswith("via file (renamed from src/nm-manager.c)")
    assert result.hits[0].memory.id == manager, describe(result)

    result = world.recall("src/core/nm-device.c", "src/core/nm-policy.c")
    for memory_id, old in ((device, "src/nm-device.c"), (policy, "src/nm-policy.c")):
        assert hit_of(result, memory_id).receipt.startswith(f"via file (renamed from {old})")


def test_a_memory_written_between_two_renames_names_its_own_path(world: World) -> None:
    world.history([["lib/util.c"]])
    first = world.remember("util: the buffer is not terminated", "lib/util.c")
    world.rename("lib/util.c", "shared/util.c")
    middle = world.remember("util: callers free the result", "shared/util.c")
    world.rename("shared/util.c", "shared/base/util.c")

    result = world.recall("shared/base/util.c")
    assert hit_of(result, first).receipt.startswith("via file (renamed from lib/util.c)")
    assert hit_of(result, middle).receipt.startswith("via file (renamed from shared/util.c)")
