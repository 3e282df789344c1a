"""``tether search --status`` finds memories out of recall, as ``tether list --status`` lists
them; a query made only of symbols (an emoji) finds the memories that hold it."""

from __future__ import annotations

from test_cli import Cli, add, ok


def test_search_finds_archived_superseded_and_deleted_memories_by_status(cli: Cli) -> None:
    kept = add(cli, "Pool drains slowly when kept", "-f", "src/app.py")
    archived = add(cli, "Pool drains slowly when archived", "-f", "src/app.py")
    deleted = add(cli, "Pool drains slowly when deleted", "-f", "src/app.py")
    old = add(cli, "Pool drains slowly when replaced", "-f", "src/app.py")
    ok(cli("archive", archived))
    ok(cli("delete", deleted))
    new = ok(cli("supersede", old, "Pool drains fast now", "--json")).json()["id"]

    def found(*args: str) -> set[str]:
        result = cli("search", "drains slowly", *args, "--json")
        assert result.code in (0, 1), result
        return {m["id"] for m in result.json()}

    assert found() == {kept} == found("--status", "active")
    assert found("--status", "archived") == {archived}
    assert found("--status", "deleted") == {deleted}
    assert found("--status", "superseded") == {old}
    assert found("--status", "all") == {kept, archived, deleted, old}
    assert new not in found("--status", "all")  # "fast now": not the words asked for
    listed = [
        line.split("\t")
        for line in ok(cli("search", "drains", "--status", "all")).stdout.splitlines()
    ]
    assert {fields[0]: fields[-1] for fields in listed}[deleted] == "deleted"


def test_search_refuses_an_unknown_status(cli: Cli) -> None:
    result = cli("search", "pool", "--status", "gone")
    assert result.code == 2
    assert "--status" in result.stderr and "all" in result.stderr


def test_a_query_of_one_emoji_finds_the_memories_holding_it(cli: Cli) -> None:
    rocket = add(cli, "Release 🚀 only from main", "-f", "src/app.py")
    add(cli, "Release notes go in the changelog", "-f", "src/app.py")
    sparkle = add(cli, "v2 ✨ shines", "-f", "src/app.py")
    assert [m["id"] for m in ok(cli("search", "🚀", "--json")).json()] == [rocket]
    assert [m["id"] for m in ok(cli("search", "✨", "--json")).json()] == [sparkle]
    assert [m["id"] for m in ok(cli("search", "v2 ✨", "--json")).json()] == [sparkle]
    assert cli("search", "🎉", "--json").code == 1


def test_an_ascii_symbol_alone_is_no_search(cli: Cli) -> None:
    """As punctuation alone: in notes about code, `=` or a backquote would match most."""
    add(cli, "Use a = b + c in the pool", "-f", "src/app.py")
    add(cli, "Run `make` before the release", "-f", "src/app.py")
    for query in ("=", "`", "+"):
        assert cli("search", query, "--json").code == 1, query
