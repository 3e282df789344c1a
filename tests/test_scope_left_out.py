"""A memory named by id with a --scope that leaves its store out is said to be in the other
store, not said to exist nowhere."""

from __future__ import annotations

from collections.abc import Callable

from conftest import CliResult


def test_a_project_memory_named_with_scope_global_is_said_to_be_in_the_project_store(
    cli: Callable[..., CliResult],
) -> None:
    made = cli("remember", "close the pool", "-c", "gotcha", "-f", "src/app.py", "--json")
    memory_id = made.json()["id"]
    done = cli("cleanup", "--scope", "global", "--delete", memory_id)
    assert done.code != 0
    assert f"memory {memory_id} is in the project store, and --scope global leaves it out" in (
        done.stderr
    )
    assert "no memory" not in done.stderr
    assert cli("cleanup", "--scope", "project", "--delete", memory_id).code == 0
