"""The files an agent names are checked as carefully as the CLI checks a person's: a memory
about a folder, one of git's own files or a typo is refused (naming the argument and the
closest file), a renamed file is written with a note, an anchor with a control character is
refused, a recall of a path no file answers to says so, and a memory too large to be read back
is refused naming the field and the limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, run_tether

from recall.memfiles import MAX_FILE_BYTES
from tests.mcp.harness import call, error, mcp_client

pytestmark = pytest.mark.asyncio


def memory_files(repo: Path) -> list[Path]:
    """The memory files of the project store."""
    return sorted((repo / ".tether" / "memories").glob("*.md"))


async def test_write_refuses_a_folder_gits_own_files_and_a_typo_naming_the_argument(
    repo: Path,
) -> None:
    async with mcp_client(repo) as client:
        write = {"summary": "close every cursor", "category": "gotcha"}
        message = await error(client, "memory_write", **write, files=["src/app.py", "src"])
        assert "files[1] 'src' is a folder; name the files it is about (src/app.py" in message
        message = await error(client, "memory_write", **write, files=[".git/config"])
        assert "files[0] '.git/config' is one of git's own files" in message
        message = await error(client, "memory_write", **write, files=["src/ap.py"])
        assert "files[0] 'src/ap.py' is not in the repository's files" in message
        assert "did you mean src/app.py?" in message
        assert "give allow_missing: true to name it anyway" in message
        assert "\n" not in message  # a tool error is one line
        message = await error(client, "memory_write", **write, files=[], anchors=["src::Pool"])
        assert "anchors[0] 'src' is a folder" in message
        message = await error(
            client, "memory_write", **write, files=[], anchors=["src/ap.py::Pool.close"]
        )
        assert "anchors[0] 'src/ap.py' is not in the repository's files" in message
        assert memory_files(repo) == []

        to_come = await call(
            client, "memory_write", **write, files=["src/pool.py"], allow_missing=True
        )
        assert to_come["written"] is True
        card = await call(client, "memory_get", id=to_come["id"])
        assert card["files"] == ["src/pool.py"]


async def test_supersede_checks_the_files_it_is_given(repo: Path) -> None:
    async with mcp_client(repo) as client:
        old = await call(
            client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"]
        )
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="pool v2", files=["src"]
        )
        assert "files[0] 'src' is a folder" in message
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="pool v2", files=["src/utl.py"]
        )
        assert "files[0] 'src/utl.py'" in message and "did you mean src/util.py?" in message
        assert len(memory_files(repo)) == 1


async def test_write_says_when_a_file_it_names_was_renamed(repo: Path) -> None:
    git(repo, "mv", "src/util.py", "src/helpers.py")
    git(repo, "commit", "-q", "-m", "util is helpers now")
    assert run_tether("init", cwd=repo).code == 0
    assert run_tether("index", cwd=repo).code == 0  # the renames as the index knows them
    async with mcp_client(repo) as client:
        done = await call(
            client,
            "memory_write",
            summary="helpers stay pure",
            category="decision",
            files=["src/util.py"],
        )
        [note] = done["file_notes"]
        assert note.startswith(
            "files[0] 'src/util.py' was renamed to src/helpers.py; the memory names src/util.py"
        )
        quiet = await call(
            client,
            "memory_write",
            summary="helpers are tested",
            category="decision",
            files=["src/helpers.py"],
        )
        assert "file_notes" not in quiet


@pytest.mark.parametrize("anchor", ["src/app.py::\x1b]0;T\x07main", "src/app.py::main\u202e"])
async def test_an_anchor_with_a_control_character_is_refused(repo: Path, anchor: str) -> None:
    async with mcp_client(repo) as client:
        message = await error(
            client,
            "memory_write",
            summary="main exits early",
            category="gotcha",
            files=[],
            anchors=["src/util.py::helper", anchor],
        )
        assert "anchors[1] must be one line of text without control characters" in message
        old = await call(
            client, "memory_write", summary="main", category="gotcha", files=["src/app.py"]
        )
        message = await error(
            client, "memory_supersede", old_id=old["id"], summary="main v2", anchors=[anchor]
        )
        assert "anchors[0] must be one line of text without control characters" in message
    assert len(memory_files(repo)) == 1


async def test_recall_says_which_paths_no_file_answers_to(repo: Path) -> None:
    async with mcp_client(repo) as client:
        await call(client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"])
        found = await call(client, "memory_recall", files=["src/ap.py", "src", "src/util.py"])
        assert found["notes"] == [
            "src/ap.py is not a file of this repository; did you mean src/app.py?",
            "path 'src' is a folder; recall takes the files touched (src/app.py, src/util.py)",
        ]
        fine = await call(client, "memory_recall", files=["src/app.py"])
        assert "notes" not in fine and fine["results"]


async def test_an_oversized_summary_or_details_is_refused_naming_it_and_the_limit(
    repo: Path,
) -> None:
    async with mcp_client(repo) as client:
        long = "a " * MAX_FILE_BYTES
        message = await error(
            client, "memory_write", summary=long, category="context", files=["src/app.py"]
        )
        assert message.startswith(f"memory_write: summary is {len(long):,} bytes")
        assert f"over the limit of {MAX_FILE_BYTES:,} bytes for a memory file" in message
        assert "nothing written: give the knowledge as one short line in summary" in message
        message = await error(
            client, "memory_write", summary="the log", category="context", files=[], details=long
        )
        assert f"details is {len(long):,} bytes" in message and "nothing written" in message
        assert f"{MAX_FILE_BYTES:,} bytes" in message
    assert memory_files(repo) == []


async def test_list_refuses_an_empty_file_instead_of_listing_everything(repo: Path) -> None:
    async with mcp_client(repo) as client:
        await call(client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"])
        for empty in ("", "  "):
            message = await error(client, "memory_list", file=empty)
            assert "file is empty; give a file or folder inside the repository" in message
            assert "leave file out to list every memory" in message
        assert (await call(client, "memory_list"))["total"] == 1


async def test_list_by_a_mistyped_file_notes_the_close_name(repo: Path) -> None:
    async with mcp_client(repo) as client:
        await call(client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"])
        typo = await call(client, "memory_list", file="src/ap.py")
        assert typo["total"] == 0
        assert typo["notes"] == [
            "src/ap.py is not a file of this repository; did you mean src/app.py?"
        ]
        found = await call(client, "memory_list", file="src/app.py")
        assert found["total"] == 1 and "notes" not in found


async def test_a_summary_another_memory_holds_differently_is_refused(repo: Path) -> None:
    async with mcp_client(repo) as client:
        first = await call(
            client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"]
        )
        message = await error(
            client, "memory_write", summary="Pool ", category="decision", files=["src/app.py"]
        )
        assert f"{first['id']} already has this summary, but its category is gotcha" in message
        assert f"memory_supersede with id '{first['id']}'" in message
        assert "tether supersede" not in message
        assert len(memory_files(repo)) == 1
        again = await call(
            client, "memory_write", summary="pool", category="gotcha", files=["src/app.py"]
        )
        assert again["id"] == first["id"]  # the same knowledge: named, not refused
        assert len(memory_files(repo)) == 1
