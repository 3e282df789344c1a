"""``tether supersede`` of a memory that is not active says the way out: the replacement of a
superseded memory, or the command that brings a deleted or archived one back."""

from __future__ import annotations

from collections.abc import Callable

from conftest import CliResult

Cli = Callable[..., CliResult]


def _remember(cli: Cli, summary: str) -> str:
    done = cli("remember", summary, "-c", "gotcha", "-f", "src/app.py", "--json")
    assert done.code == 0, done.stderr
    return str(done.json()["id"])


def test_a_superseded_memory_points_at_its_replacement(cli: Cli) -> None:
    old = _remember(cli, "close the pool")
    new = cli("supersede", old, "close the pool before exit", "--json")
    assert new.code == 0, new.stderr
    replacement = new.json()["id"]
    refused = cli("supersede", old, "close the pool twice")
    assert refused.code == 2
    assert f"memory {old} is superseded by {replacement}" in refused.stderr
    assert f"supersede its replacement (`tether supersede {replacement} TEXT`)" in refused.stderr
    assert f"`tether restore {old}` brings it back, then supersede it" in refused.stderr


def test_a_deleted_or_archived_memory_says_how_to_bring_it_back(cli: Cli) -> None:
    for verb in ("delete", "archive"):
        memory = _remember(cli, f"a memory to {verb}")
        assert cli(verb, memory).code == 0
        refused = cli("supersede", memory, f"a memory {verb}d and replaced")
        assert refused.code == 2
        assert f"only active memories can be superseded: `tether restore {memory}`" in (
            refused.stderr
        )


def test_an_old_memory_of_a_chain_points_at_the_one_replacing_it_now(cli: Cli) -> None:
    first = _remember(cli, "chain A")
    second = cli("supersede", first, "chain B", "--json").json()["id"]
    third = cli("supersede", second, "chain C", "--json").json()["id"]
    refused = cli("supersede", first, "chain D")
    assert refused.code == 2
    assert f"memory {first} is superseded by {second}" in refused.stderr
    assert f"supersede the memory replacing it now, {third} (`tether supersede {third} TEXT`)" in (
        refused.stderr
    )
    assert cli("supersede", third, "chain D").code == 0  # the advice works
