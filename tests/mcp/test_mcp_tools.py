"""The memory tools over stdio: listed with their arguments, each one working end to end, and
every bad argument answered with a tool error that says what to do."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from conftest import make_repo, run_tether

from mcp_server.tools import TOOL_NAMES
from recall.folder_watch import RACY_NS
from recall.locations import project_location
from recall.policy.usage import counters
from recall.store import MemoryStore
from tests.mcp.harness import call, error, mcp_client

pytestmark = pytest.mark.asyncio

GOTCHA = "login KeyError user_id: sessions from the old SSO lack user_id, fall back to sub"
DETAILS = "The old SSO issued tokens without user_id; read claims['sub'] when it is missing."
REQUIRED = {
    "memory_recall": [],
    "memory_get": ["id"],
    "memory_write": ["summary", "category", "files"],
    "memory_supersede": ["old_id", "summary"],
    "memory_pin": ["id"],
    "memory_archive": ["id"],
    "memory_list": [],
}


def index_rows(repo: Path, query: str) -> list[tuple[object, ...]]:
    """Rows of the project index, read by a connection of the test's own."""
    conn = sqlite3.connect(repo / ".tether" / "index.db")
    try:
        return [tuple(row) for row in conn.execute(query)]
    finally:
        conn.close()


async def test_tools_are_listed_with_descriptions_and_required_arguments(repo: Path) -> None:
    async with mcp_client(repo) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert sorted(listed) == sorted(TOOL_NAMES)
    for name, tool in listed.items():
        assert sorted(tool.input_schema.get("required", [])) == sorted(REQUIRED[name]), name
        assert tool.description and len(tool.description) > 80, name
        for argument, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{name}.{argument} has no description"
    category = listed["memory_write"].input_schema["properties"]["category"]
    assert category["enum"] == ["pref", "decision", "gotcha", "context", "rejected"]
    assert listed["memory_recall"].annotations.read_only_hint is True
    assert listed["memory_write"].annotations.destructive_hint is False


async def test_write_recall_get_count_as_the_cli_counts(repo: Path) -> None:
    async with mcp_client(repo) as client:
        written = await call(
            client,
            "memory_write",
            summary=GOTCHA,
            category="gotcha",
            files=["src/app.py"],
            details=DETAILS,
        )
        memory_id = written["id"]
        assert written["written"] is True and written["scope"] == "project"
        assert Path(written["path"]) == repo / ".tether" / "memories" / f"{memory_id}.md"
        again = await call(
            client,
            "memory_write",
            summary=GOTCHA,
            category="gotcha",
            files=["src/app.py"],
            details=DETAILS,
        )
        assert again["written"] is False
        assert (again["duplicate_of"], again["duplicate_status"]) == (memory_id, "active")
        assert "files_not_on_it" not in again and "note" not in again
        wider = await call(
            client,
            "memory_write",
            summary=GOTCHA,
            category="gotcha",
            files=["src/app.py", "docs/guide.md"],
            details=DETAILS,
        )
        assert wider["written"] is False and wider["duplicate_of"] == memory_id
        assert wider["files_not_on_it"] == ["docs/guide.md"]
        assert "docs/guide.md" in wider["note"] and written["path"] in wider["note"]
        marked = await call(
            client,
            "memory_write",
            summary=GOTCHA,
            category="gotcha",
            files=["src/app.py"],
            details=DETAILS,
            pin=True,
            guard=True,
        )
        assert marked["written"] is False and marked["marks_not_on_it"] == ["pinned", "guard"]
        assert f"`tether pin {memory_id}`" in marked["note"]

        for _ in range(2):
            recalled = await call(
                client,
                "memory_recall",
                prompt="Why does login raise a KeyError for user_id?",
                files=[str(repo / "src" / "app.py")],  # absolute paths inside the repo work
            )
        top = recalled["results"][0]
        assert top["id"] == memory_id
        assert top["summary"] == GOTCHA and "details" not in top
        assert top["receipt"].startswith("via file")
        assert top["score"] > 0

        card = await call(client, "memory_get", id=memory_id[:5])  # a unique prefix works
        assert card["id"] == memory_id
        assert card["details"] == DETAILS
        assert card["source"] == "agent"
        assert card["files"] == ["src/app.py"]
        assert card["usage"]["surfaced"] == 2 and card["usage"]["acted"] == 1

    # one session for the server's lifetime, one turn per recall
    assert index_rows(repo, "SELECT turns, origin FROM sessions") == [(2, "mcp")]
    store = MemoryStore(project_location(repo), notice=lambda message: None)
    try:
        usage = counters(store.conn, memory_id)
    finally:
        store.close()
    assert (usage["surfaced"], usage["acted"]) == (2, 1)


async def test_supersede_pin_unpin_and_archive(repo: Path) -> None:
    async with mcp_client(repo) as client:
        old = await call(
            client,
            "memory_write",
            summary="retry the upload twice",
            category="decision",
            files=["src/app.py", "src/util.py"],
            pin=True,
        )
        new = await call(
            client,
            "memory_supersede",
            old_id=old["id"],
            summary="retry the upload three times with backoff",
        )
        assert new["written"] is True
        assert (new["supersedes"], new["old_status"]) == (old["id"], "superseded")
        before = await call(client, "memory_get", id=old["id"])
        assert (before["status"], before["superseded_by"]) == ("superseded", new["id"])
        after = await call(client, "memory_get", id=new["id"])
        assert after["supersedes"] == old["id"]
        assert after["category"] == "decision"  # carried over
        assert after["files"] == ["src/app.py", "src/util.py"]
        assert after["pinned"] is True
        recalled = await call(client, "memory_recall", files=["src/util.py"])
        assert [r["id"] for r in recalled["results"]] == [new["id"]]  # the old one left recall

        unpinned = await call(client, "memory_pin", id=new["id"], pinned=False)
        assert (unpinned["pinned"], unpinned["changed"]) == (False, True)
        again = await call(client, "memory_pin", id=new["id"], pinned=False)
        assert (again["pinned"], again["changed"]) == (False, False)
        pinned = await call(client, "memory_pin", id=new["id"])
        assert (pinned["pinned"], pinned["changed"]) == (True, True)

        archived = await call(client, "memory_archive", id=new["id"])
        assert (archived["status"], archived["changed"]) == ("archived", True)
        assert archived["left_superseded"] == old["id"]  # out of recall, nothing in its place
        assert f"`tether restore {old['id']}` brings" in archived["note"]
        assert (await call(client, "memory_archive", id=new["id"]))["changed"] is False
        assert (await call(client, "memory_recall", files=["src/util.py"]))["results"] == []
        message = await error(client, "memory_archive", id=old["id"])
        assert "superseded" in message and "only active" in message
        plain = await call(
            client, "memory_write", summary="pool of two", category="context", files=[]
        )
        later = await call(client, "memory_supersede", old_id=plain["id"], summary="pool of 3")
        message = await error(client, "memory_pin", id=plain["id"])  # as `tether pin` refuses
        assert f"superseded by {later['id']}" in message
        assert f"`tether restore {plain['id']}`" in message

    shown = run_tether("show", new["id"], "--json", cwd=repo).json()
    assert (shown["status"], shown["pinned"], shown["supersedes"]) == ("archived", True, old["id"])
    assert shown["usage"]["acted"] >= 2  # pin and unpin were actions


async def test_list_by_file_folder_category_and_limit(repo: Path) -> None:
    async with mcp_client(repo) as client:
        ids = {}
        for summary, category, path in (
            ("app start must load the session first", "gotcha", "src/app.py"),
            ("helpers stay free of I/O", "pref", "src/util.py"),
            ("the guide is written for operators", "context", "docs/guide.md"),
        ):
            ids[path] = (
                await call(client, "memory_write", summary=summary, category=category, files=[path])
            )["id"]
        app = await call(client, "memory_list", file="src/app.py")
        assert [m["id"] for m in app["memories"]] == [ids["src/app.py"]]
        assert app["memories"][0]["summary"] == "app start must load the session first"
        folder = await call(client, "memory_list", file="src")
        assert sorted(m["id"] for m in folder["memories"]) == sorted(
            [ids["src/app.py"], ids["src/util.py"]]
        )
        assert (folder["total"], folder["truncated"]) == (2, False)
        one = await call(client, "memory_list", file="src", limit=1)
        assert (len(one["memories"]), one["total"], one["truncated"]) == (1, 2, True)
        prefs = await call(client, "memory_list", category="pref")
        assert [m["id"] for m in prefs["memories"]] == [ids["src/util.py"]]
        everything = await call(client, "memory_list", scope="project")
        assert everything["total"] == 3


async def test_bad_arguments_are_tool_errors_that_say_what_to_do(repo: Path) -> None:
    secret = "AKIA" + "IOSFODNN7EXAMPLQ"
    async with mcp_client(repo) as client:
        written = await call(
            client, "memory_write", summary="keep it", category="gotcha", files=["src/app.py"]
        )
        for tool in ("memory_get", "memory_pin", "memory_archive"):
            message = await error(client, tool, id="feedf00d")
            assert "no memory 'feedf00d'" in message and "memory_list" in message
        message = await error(client, "memory_supersede", old_id="feedf00d", summary="new text")
        assert "no memory 'feedf00d'" in message
        message = await error(client, "memory_get", id="  ")
        assert "id is empty" in message
        message = await error(client, "memory_recal", query="flush")
        assert message.startswith("memory_recal: unknown tool (did you mean memory_recall?)")
        assert all(name in message for name in TOOL_NAMES)

        message = await error(client, "memory_write", summary="x", category="trap", files=[])
        assert "category 'trap' is not one of pref, decision, gotcha, context, rejected" in message
        message = await error(client, "memory_list", category="trap")
        assert "category 'trap'" in message
        message = await error(client, "memory_list", status="gone")
        assert "status 'gone'" in message
        message = await error(
            client, "memory_write", summary="x", category="gotcha", files=[], scope="team"
        )
        assert "scope 'team' is not one of project, global" in message

        message = await error(client, "memory_write", summary="  ", category="gotcha", files=[])
        assert "summary is empty" in message
        message = await error(
            client, "memory_write", summary="one\ntwo", category="gotcha", files=[]
        )
        assert "summary must be one line; put the rest in details" in message

        message = await error(
            client, "memory_write", summary="x", category="gotcha", files=["src/app.py", "../out"]
        )
        assert "files[1] '../out' resolves outside the repository" in message
        message = await error(client, "memory_recall", files=["/etc/passwd"])
        assert "files[0] '/etc/passwd'" in message and "outside the repository" in message

        message = await error(
            client,
            "memory_write",
            summary="deploy key",
            category="context",
            files=[],
            details=f"aws_access_key_id = {secret}",
        )
        assert "refusing to write what looks like a credential" in message
        assert "AWS access key id" in message and "in details" in message
        assert secret not in message  # masked, never echoed back
        message = await error(client, "memory_supersede", old_id=written["id"], summary=secret)
        assert "credential" in message and "in summary" in message

        message = await error(client, "memory_recall")
        assert "give a prompt, files, or both" in message
        message = await error(client, "memory_recall", prompt="anything", limit=0)
        assert "limit 0 is out of range; give 1 to 20" in message
        message = await error(client, "memory_write", summary="x", category="gotcha")
        assert "files" in message and "required" in message.lower()  # the SDK's schema check

        # nothing bad was written, and the server still answers
        listed = await call(client, "memory_list", status="all")
        assert [m["id"] for m in listed["memories"]] == [written["id"]]


async def test_wrong_argument_types_and_unknown_arguments_are_refused(repo: Path) -> None:
    """Strict schemas: nothing is coerced ("yes" is not true), nothing unknown is dropped, and
    each mistake is one line naming the argument, without a validator's dump or link."""
    async with mcp_client(repo) as client:
        written = await call(
            client, "memory_write", summary="keep it", category="gotcha", files=["src/app.py"]
        )
        cases = [
            ("memory_recall", {"limit": "five"}, "argument 'limit' must be an integer"),
            ("memory_recall", {"files": "src/app.py"}, "argument 'files' must be a list"),
            ("memory_recall", {"files": [3]}, "argument 'files' (at files[0]) must be a string"),
            ("memory_pin", {"id": written["id"], "pinned": "yes"}, "'pinned' must be true or"),
            ("memory_pin", {"id": written["id"], "pinned": 1}, "'pinned' must be true or false"),
            ("memory_get", {"id": 12345678}, "argument 'id' must be a string, not an integer"),
            ("memory_get", {}, "argument 'id' is required"),
        ]
        for tool, arguments, expected in cases:
            message = await error(client, tool, **arguments)
            assert message == f"{tool}: {message.split(': ', 1)[1]}"
            assert expected in message, (tool, arguments, message)
            assert "\n" not in message and "http" not in message
        message = await error(
            client, "memory_write", summary="x", category="gotcha", files=[], bogus=1
        )
        assert message.startswith("memory_write: unknown argument 'bogus'; the arguments are")
        assert "summary, category, files" in message
        message = await error(client, "memory_recall", files=["src/app.py"], limit="2")
        assert "argument 'limit' must be an integer, not a string" in message
        # a list sent as JSON text is read as the SDK reads it (some clients send lists so)
        recalled = await call(client, "memory_recall", files='["src/app.py"]', limit=2)
        assert [m["id"] for m in recalled["results"]] == [written["id"]]
        shown = await call(client, "memory_get", id=written["id"])
        assert shown["pinned"] is False  # nothing refused above changed anything
        listed = (await client.list_tools()).tools
        assert all(tool.input_schema["additionalProperties"] is False for tool in listed)


async def test_only_tools_are_advertised(repo: Path) -> None:
    async with mcp_client(repo) as client:
        capabilities = client.server_capabilities
        assert capabilities.tools is not None
        assert capabilities.prompts is None and capabilities.resources is None
        with pytest.raises(Exception, match=r"[Mm]ethod not found"):
            await client.list_prompts()


async def test_other_writers_are_seen_both_ways(repo: Path) -> None:
    async with mcp_client(repo) as client:
        mine = await call(
            client,
            "memory_write",
            summary="MCP wrote this",
            category="gotcha",
            files=["src/app.py"],
        )
        listed = run_tether("list", "--json", "--file", "src/app.py", cwd=repo)
        assert [m["id"] for m in listed.json()] == [mine["id"]]
        done = run_tether(
            "remember", "the CLI wrote this", "-c", "pref", "-f", "src/app.py", "--json", cwd=repo
        )
        theirs = done.json()["id"]
        seen = await call(client, "memory_list", file="src/app.py")
        assert sorted(m["id"] for m in seen["memories"]) == sorted([mine["id"], theirs])


async def test_a_memory_file_rewritten_in_place_is_seen(repo: Path) -> None:
    """An edit that changes neither the folder's times nor the file's size (an agent's editing
    tool writing in place), once the folder's times are trusted again: the inotify watch sees
    it where the folder's times cannot."""
    async with mcp_client(repo) as client:
        mine = await call(
            client,
            "memory_write",
            summary="cache keyed by tenant",
            category="gotcha",
            files=["src/app.py"],
        )
        await asyncio.sleep(RACY_NS / 1e9 + 0.2)
        await call(client, "memory_get", id=mine["id"])  # the folder's times now trusted
        path = next((repo / ".tether" / "memories").glob("*.md"))
        text = path.read_text(encoding="utf-8")
        with path.open("r+", encoding="utf-8") as handle:
            handle.write(text.replace("keyed by tenant", "KEYED BY TENANT"))
        got = await call(client, "memory_get", id=mine["id"])
        assert got["summary"] == "cache KEYED BY TENANT"


async def test_outside_a_repository_the_global_store_still_works(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    async with mcp_client(plain) as client:
        message = await error(
            client, "memory_write", summary="x", category="pref", files=[]
        )  # the default scope is the project, and there is none here
        assert "not inside a git repository" in message and "scope 'global'" in message
        written = await call(
            client,
            "memory_write",
            summary="prefer ripgrep over grep for code search",
            category="pref",
            files=[],
            scope="global",
        )
        assert written["scope"] == "global"
        found = await call(client, "memory_recall", prompt="how should I search the code?")
        assert [r["id"] for r in found["results"]] == [written["id"]]
        assert found["results"][0]["scope"] == "global"
        listed = await call(client, "memory_list", file="src/app.py")
        assert listed["memories"] == []
        [note] = listed["notes"]  # not an empty answer that looks like "no memory there"
        assert "not inside a git repository" in note and "global store's memories only" in note


async def test_the_project_is_minus_c_then_claude_project_dir_then_cwd(tmp_path: Path) -> None:
    named = make_repo(tmp_path / "named")
    chosen = make_repo(tmp_path / "chosen")
    variable = {"CLAUDE_PROJECT_DIR": str(named)}
    async with mcp_client(tmp_path, env=variable) as client:
        by_variable = await call(
            client, "memory_write", summary="named by the agent", category="context", files=[]
        )
    assert Path(by_variable["path"]).parent == named / ".tether" / "memories"
    async with mcp_client(tmp_path, "-C", str(chosen), env=variable) as client:
        by_option = await call(
            client,
            "memory_write",
            summary="chosen with -C",
            category="context",
            files=["src/app.py"],
        )
    assert Path(by_option["path"]).parent == chosen / ".tether" / "memories"


async def test_write_anchors_a_memory_to_symbols(repo: Path) -> None:
    async with mcp_client(repo) as client:
        written = await call(
            client,
            "memory_write",
            summary="helper must stay pure: the cache keys on its result",
            category="gotcha",
            files=[],
            anchors=["src/util.py::helper", "src/util.py::missing"],
        )
        assert written["written"] is True
        [note] = written["anchor_notes"]
        assert "src/util.py::missing kept without a body hash" in note
        card = await call(client, "memory_get", id=written["id"])
        assert card["anchors"] == ["src/util.py::helper", "src/util.py::missing"]
        assert card["files"] == ["src/util.py"]  # the anchored file joins the files
        message = await error(
            client, "memory_write", summary="x y z", category="gotcha", files=[], anchors=["helper"]
        )
        assert "anchors[0] 'helper' is not a symbol anchor" in message
    shown = run_tether("show", written["id"], "--json", cwd=repo).json()
    states = {s["symbol"]: s["state"] for s in shown["anchor_states"]}
    assert states == {"src/util.py::helper": "current", "src/util.py::missing": "gone"}


async def test_a_guard_that_would_cover_nothing_is_a_tool_error(repo: Path) -> None:
    async with mcp_client(repo) as client:
        message = await error(
            client,
            "memory_write",
            summary="repo-wide guarded decision: never touch anything",
            category="decision",
            files=[],
            guard=True,
        )
    assert message.startswith("memory_write: a guard covers the files and symbols")
    assert "drop guard: true" in message
    assert not list((repo / ".tether" / "memories").glob("*.md"))


async def test_supersede_keeps_the_guard(repo: Path) -> None:
    async with mcp_client(repo) as client:
        old = await call(
            client,
            "memory_write",
            summary="app start order is fixed: config, then db",
            category="decision",
            files=["src/app.py"],
            guard=True,
        )
        new = await call(
            client, "memory_supersede", old_id=old["id"], summary="start order: config, db, cache"
        )
        assert "guard_note" not in new
        # an agent cannot lift a guard: not to a category that takes none, not by leaving the
        # guarded file out, not by taking the memory out of recall
        as_pref = await error(
            client,
            "memory_supersede",
            old_id=new["id"],
            summary="we like config first",
            category="pref",
        )
        assert f"memory {new['id']} is guarded and a pref takes no guard" in as_pref
        assert f"`tether unguard {new['id']}`" in as_pref
        elsewhere = await error(
            client,
            "memory_supersede",
            old_id=new["id"],
            summary="start order lives in util now",
            files=["src/util.py"],
        )
        assert "the new files leave out src/app.py, which it guards" in elsewhere
        archived = await error(client, "memory_archive", id=new["id"])
        assert f"memory {new['id']} is guarded: an agent cannot take it out of recall" in archived

    shown = run_tether("show", new["id"], "--json", cwd=repo).json()
    assert (shown["guard"], shown["status"]) == (True, "active")  # unguard is a person's


async def test_supersede_carries_the_anchors_and_drops_the_pin_when_told(repo: Path) -> None:
    async with mcp_client(repo) as client:
        old = await call(
            client,
            "memory_write",
            summary="helper must stay pure",
            category="decision",
            files=[],
            anchors=["src/util.py::helper"],
            pin=True,
        )
        kept = await call(client, "memory_supersede", old_id=old["id"], summary="helper is pure")
        got = await call(client, "memory_get", id=kept["id"])
        assert got["pinned"] is True
        assert got["anchors"] == ["src/util.py::helper"]
        dropped = await call(
            client,
            "memory_supersede",
            old_id=kept["id"],
            summary="helper may log",
            pin=False,
            anchors=[],
        )
        got = await call(client, "memory_get", id=dropped["id"])
        assert (got["pinned"], got["anchors"]) == (False, [])


async def test_a_guard_on_a_pref_is_refused_in_the_tool_s_own_terms(repo: Path) -> None:
    async with mcp_client(repo) as client:
        message = await error(
            client, "memory_write", summary="tabs here", category="pref", files=[], guard=True
        )
    assert "a guard protects a decision or gotcha, not a pref; drop guard: true" in message
    assert "--guard" not in message


async def test_paths_are_relative_to_the_repository_root_wherever_the_server_runs(
    repo: Path,
) -> None:
    """The tools say their paths are relative to the repository root: a server started in a
    subfolder (an agent's project set to it) stores and recalls them so."""
    async with mcp_client(repo / "src") as client:
        written = await call(
            client,
            "memory_write",
            summary="app boots twice",
            category="gotcha",
            files=["src/app.py"],
        )
        got = await call(client, "memory_get", id=written["id"])
        assert got["files"] == ["src/app.py"]
        found = await call(client, "memory_recall", files=["src/app.py"])
        assert written["id"] in [hit["id"] for hit in found["results"]]


async def test_an_id_that_cannot_be_one_and_a_path_the_system_refuses_are_tool_errors(
    repo: Path,
) -> None:
    async with mcp_client(repo) as client:
        short = await error(client, "memory_get", id="71b")
        assert (
            "id '71b' is not a memory id: give its 8 hex digits, or at least the first 4" in short
        )
        long = await error(client, "memory_get", id="a" * 60_000)
        assert "is not a memory id" in long and "reindex" not in long
        await call(client, "memory_write", summary="a note", category="context", files=[])
        refused = await error(client, "memory_list", file="x" * 300 + ".py")
        assert refused.startswith("memory_list: file 'xxx")  # named, and what it can be
        assert "is longer than a file's path can be (303 bytes, a name of 303" in refused


async def test_a_memory_file_broken_by_hand_is_said_by_every_tool_that_reads(repo: Path) -> None:
    """As the CLI names it on stderr: the answer says which memory files were skipped and
    why, and ``memory_get`` says why that memory cannot be read."""
    async with mcp_client(repo) as client:
        written = await call(
            client,
            "memory_write",
            summary="app boots twice",
            category="gotcha",
            files=["src/app.py"],
        )
        path = Path(written["path"])
        path.write_text(path.read_text().replace("category: gotcha", "category: [gotcha"))
        listed = await call(client, "memory_list")
        assert listed["total"] == 0
        [skipped] = listed["skipped"]
        assert (skipped["path"], skipped["line"]) == (str(path), 4)
        assert skipped["message"].startswith("bad YAML")
        recalled = await call(client, "memory_recall", files=["src/app.py"])
        assert recalled["results"] == [] and recalled["skipped"] == [skipped]
        got = await error(client, "memory_get", id=written["id"])
        assert f"memory '{written['id']}' cannot be loaded: {path}:4: bad YAML" in got
        path.write_text(path.read_text().replace("category: [gotcha", "category: gotcha"))
        assert "skipped" not in await call(client, "memory_list")


async def test_a_path_too_long_for_any_file_names_its_argument(repo: Path) -> None:
    async with mcp_client(repo) as client:
        listed = await error(client, "memory_list", file="a/" * 100_000)
        written = await error(
            client,
            "memory_write",
            summary="a long name",
            category="gotcha",
            files=["c" * 300],
            allow_missing=True,
        )
    assert "is longer than a file's path can be" in listed and len(listed) < 400
    assert written.startswith("memory_write: files[0] ") and len(written) < 400
