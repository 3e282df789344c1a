"""``tether import`` reads each line strictly and says what it could not take as given: a
byte-order mark at the start of the input is not part of the first line, an id in capitals
and a key given twice are refused naming what to change, a line whose memory file would be
over the size limit is refused alone (the other lines are written), and a file the
repository has never had is written as given with a note offering the closest names (old
history legitimately names files long gone, so it is not refused), found with a few git calls
for the whole import, never one per line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import git, run_tether

from recall.frontmatter import scalar
from recall.history_paths import PATHSPECS_PER_CALL
from recall.import_paths import HISTORY_CHECKED_MAX, SUGGESTED_PATHS
from recall.import_record import WIDEST_ID
from recall.importer import import_lines
from recall.locations import project_location
from recall.memfiles import MAX_FILE_BYTES, MemoryFolder
from recall.model import is_valid_id
from recall.store import MemoryStore

GOTCHA = {"category": "gotcha"}


def _lines(*records: dict[str, object]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _memory_files(repo: Path) -> list[Path]:
    return sorted((repo / ".tether" / "memories").glob("*.md"))


def test_a_bom_at_the_start_of_stdin_is_not_part_of_the_first_line(repo: Path) -> None:
    text = "\ufeff" + _lines({"summary": "saved by an editor", **GOTCHA})
    done = run_tether("import", "-", "--json", cwd=repo, stdin=text)
    assert done.code == 0, done.stdout + done.stderr
    [line] = [json.loads(row) for row in done.stdout.splitlines()]
    assert line["status"] == "created"


def test_a_bom_at_the_start_of_the_lines_given_to_the_library(repo: Path) -> None:
    store = MemoryStore(project_location(repo))
    try:
        text = "\ufeff" + _lines({"summary": "from a list", **GOTCHA})
        [result] = import_lines(store, text.split("\n"), lambda path: path, "me")
        assert result.status == "created", result.error
    finally:
        store.close()


def test_a_line_that_is_not_json_is_named_with_its_column(repo: Path) -> None:
    source = repo.parent / "broken.jsonl"
    good = _lines({"summary": "kept", **GOTCHA})
    source.write_text('{"summary": "cut short", "category" "gotcha"}\n' + good, "utf-8")
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 2, done
    assert f"{source}:1: bad JSON at column 37: Expecting ':' delimiter" in done.stderr
    assert "each line is one JSON object" in done.stderr
    assert len(_memory_files(repo)) == 1  # the good line is written all the same


def test_an_id_in_capitals_is_refused_asking_for_lowercase(repo: Path) -> None:
    source = repo.parent / "upper.jsonl"
    source.write_text(_lines({"summary": "upper id", "id": "ABCDEF12", **GOTCHA}))
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 2
    assert f"{source}:1: 'id' 'ABCDEF12' has capital letters" in done.stderr
    assert "use lowercase ('abcdef12')" in done.stderr
    assert "not 8 hex digits" not in done.stderr
    assert _memory_files(repo) == []


def test_a_link_in_capitals_is_refused_asking_for_lowercase(repo: Path) -> None:
    text = _lines({"summary": "upper link", "supersedes": "0A0B0C0D", **GOTCHA})
    done = run_tether("import", "-", "--json", cwd=repo, stdin=text)
    [line] = [json.loads(row) for row in done.stdout.splitlines()]
    assert line["status"] == "error"
    assert "'supersedes' '0A0B0C0D' has capital letters" in line["error"]
    assert "use lowercase ('0a0b0c0d')" in line["error"]


def test_a_key_given_twice_is_refused_naming_it(repo: Path) -> None:
    text = '{"summary": "a", "summary": "b", "category": "gotcha"}\n'
    text += '{"summary": "nested", "category": "gotcha", "meta": {"k": 1, "k": 2}}\n'
    done = run_tether("import", "-", cwd=repo, stdin=text)
    assert done.code == 2
    assert "-:1: key 'summary' is given twice on this line" in done.stderr
    assert "-:2: key 'k' is given twice on this line" in done.stderr
    assert "0 rejected" not in done.stdout and "2 rejected" in done.stdout
    assert _memory_files(repo) == []


def test_a_path_the_repository_never_had_is_written_with_a_note(repo: Path) -> None:
    (repo / "src" / "store.py").write_text("x = 1\n")
    (repo / "src" / "old.py").write_text("y = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    git(repo, "rm", "-q", "src/old.py")
    git(repo, "commit", "-q", "-m", "old.py goes")
    text = _lines(
        {"summary": "a typo", "files": ["src/stor.py", "src/app.py"], **GOTCHA},
        {"summary": "a file of old history", "files": ["src/old.py"], **GOTCHA},
        {"summary": "a folder", "files": ["src"], **GOTCHA},
    )
    done = run_tether("import", "-", "--json", cwd=repo, stdin=text)
    assert done.code == 0, done.stderr
    typo, old, folder = [json.loads(row) for row in done.stdout.splitlines()]
    assert typo["status"] == "created"
    assert typo["unknown_files"] == ["src/stor.py"]
    [note] = typo["notes"]
    assert "'src/stor.py' (did you mean src/store.py?)" in note
    assert note.startswith("files not in the repository nor in its history, written as given")
    assert "unknown_files" not in old and "notes" not in old
    assert "unknown_files" not in folder
    human = run_tether(
        "import", "-", cwd=repo, stdin=_lines({"summary": "b", "files": ["src/stor.py"], **GOTCHA})
    )
    assert human.code == 0
    assert "-:1: files not in the repository nor in its history" in human.stderr
    assert "did you mean src/store.py?" in human.stderr


def test_git_is_asked_as_often_for_three_hundred_lines_as_for_three(repo: Path) -> None:
    def git_calls(count: int, where: Path) -> int:
        records = [
            {"summary": f"line {n}", "files": [f"gone/file{n % 3}.py"], **GOTCHA}
            for n in range(count)
        ]
        trace = where.parent / f"trace-{count}"
        done = run_tether(
            "import",
            "-",
            "--json",
            cwd=where,
            stdin=_lines(*records),
            env={"GIT_TRACE": str(trace)},
        )
        results = [json.loads(row) for row in done.stdout.splitlines()]
        assert [r["unknown_files"] for r in results] == [
            [f"gone/file{n % 3}.py"] for n in range(count)
        ]
        return trace.read_text().count("built-in: git")

    few = git_calls(3, repo)
    other = repo.parent / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "commit", "-q", "--allow-empty", "-m", "empty")
    assert git_calls(300, other) == few


def test_the_limits_of_the_path_check_are_pinned() -> None:
    assert SUGGESTED_PATHS == 50
    assert HISTORY_CHECKED_MAX == 50
    assert PATHSPECS_PER_CALL == 500


def test_a_history_of_many_deleted_files_is_not_walked(repo: Path) -> None:
    count = HISTORY_CHECKED_MAX + 1
    records = [
        {"summary": f"old {n}", "files": [f"gone/old{n}.py"], **GOTCHA} for n in range(count)
    ]
    trace = repo.parent / "trace-history"
    done = run_tether(
        "import", "-", "--json", cwd=repo, stdin=_lines(*records), env={"GIT_TRACE": str(trace)}
    )
    results = [json.loads(row) for row in done.stdout.splitlines()]
    assert [r["status"] for r in results] == ["created"] * count  # written as given
    assert all("unknown_files" not in r for r in results)
    assert " log " not in trace.read_text()  # no walk of the whole history


def test_the_path_check_made_ahead_answers_as_the_one_made_in_place(repo: Path) -> None:
    from recall.import_paths import hints_ahead, unknown_hints

    (repo / "src" / "store.py").write_text("x = 1\n")
    paths = {"src/stor.py", "src/app.py", "gone/never.py"}
    ahead = hints_ahead(repo, paths)
    assert ahead.result() == unknown_hints(repo, paths)
    assert set(ahead.result()) == {"src/stor.py", "gone/never.py"}
    broken = hints_ahead(None, paths)  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # the failure made on the thread, raised where it is read
        broken.result()


def test_an_import_hands_its_results_over_before_it_commits(repo: Path) -> None:
    import sqlite3

    store = MemoryStore(project_location(repo))
    seen: list[tuple[int, int]] = []

    def chosen(results: list) -> None:  # type: ignore[type-arg]
        other = sqlite3.connect(store.location.index_path)
        try:
            committed = other.execute("SELECT count(*) FROM memories").fetchone()[0]
        finally:
            other.close()
        seen.append((len(results), committed))

    drafts = [
        (store.prepare_memory(summary=f"n {n}", category="context", files=["src/app.py"]), None)
        for n in range(5)
    ]
    drafts.append(drafts[0])  # a duplicate has a result too
    try:
        store.import_many(drafts, chosen=chosen)
        assert seen == [(6, 0)]
        assert store.conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 5
    finally:
        store.close()


def test_no_thread_for_the_path_check_made_ahead_loses_no_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread that cannot be started (a process limit) for the check made ahead: the import
    still writes every line, and the check is made after the commit instead."""
    from concurrent.futures import ThreadPoolExecutor

    from recall import import_paths

    class NoThreads(ThreadPoolExecutor):
        def submit(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def, override]
            raise RuntimeError("can't start new thread")

    monkeypatch.setattr(import_paths, "ThreadPoolExecutor", NoThreads)
    store = MemoryStore(project_location(repo))
    try:
        text = _lines(
            *({"summary": f"note {n}", "files": ["src/app.py"], **GOTCHA} for n in range(4)),
            {"summary": "a typo", "files": ["src/ap.py"], **GOTCHA},
        )
        results = import_lines(store, text.split("\n"), lambda path: path, "me")
    finally:
        store.close()
    assert [r.status for r in results] == ["created"] * 5
    assert len(_memory_files(repo)) == 5
    assert results[-1].unknown_files == ("src/ap.py",)


def test_an_import_into_a_repository_never_indexed_says_what_to_run_next(repo: Path) -> None:
    first = run_tether("import", "-", cwd=repo, stdin=_lines({"summary": "one", **GOTCHA}))
    assert first.code == 0, first.stderr
    assert "Next: `tether index` reads the repository's history once" in first.stdout
    as_json = run_tether(
        "import", "-", "--json", cwd=repo, stdin=_lines({"summary": "two", **GOTCHA})
    )
    assert "Next:" not in as_json.stdout  # JSON lines only, for scripts
    assert run_tether("index", cwd=repo).code == 0
    again = run_tether("import", "-", cwd=repo, stdin=_lines({"summary": "three", **GOTCHA}))
    assert again.code == 0, again.stderr
    assert "Next:" not in again.stdout


def _oversized_import() -> str:
    """Three lines, the second's details far over the size limit of a memory file."""
    return _lines(
        {"summary": "first of three", "files": [], "details": "short", **GOTCHA},
        {"summary": "second of three", "files": [], "details": "x" * 70_000, **GOTCHA},
        {"summary": "third of three", "files": [], "details": "short", **GOTCHA},
    )


def test_an_oversized_line_is_refused_with_its_line_and_the_rest_imported(repo: Path) -> None:
    source = repo.parent / "big.jsonl"
    source.write_text(_oversized_import())
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 2, done.stderr
    assert f"{source}:2: details is 70,000 bytes" in done.stderr
    assert f"over the limit of {MAX_FILE_BYTES:,} bytes for a memory file" in done.stderr
    assert "several memories" in done.stderr
    assert "would be written" not in done.stderr and "skipped" not in done.stderr
    assert "2 memories" in done.stdout and "1 rejected" in done.stdout
    written = {path.read_text().split("---\n")[2].splitlines()[0] for path in _memory_files(repo)}
    assert written == {"first of three", "third of three"}


def test_an_oversized_line_has_its_own_outcome_in_json(repo: Path) -> None:
    done = run_tether("--json", "import", "-", cwd=repo, stdin=_oversized_import())
    assert done.code == 2, done.stderr
    rows = [json.loads(row) for row in done.stdout.splitlines()]
    assert [(row["line"], row["status"]) for row in rows] == [
        (1, "created"),
        (2, "error"),
        (3, "created"),
    ]
    assert "details is 70,000 bytes" in rows[1]["error"]


def test_an_oversized_line_drafted_in_a_forked_process_is_refused_alone(
    repo: Path, forks: list[int]
) -> None:
    records = [{"summary": f"note {n}", "details": "short", **GOTCHA} for n in range(300)]
    records[289]["details"] = "x" * 70_000  # past the first chunk, which is drafted here
    store = MemoryStore(project_location(repo))
    try:
        lines = _lines(*records).splitlines()
        results = import_lines(store, lines, lambda path: path, "me", draft_elsewhere_from=1)
    finally:
        store.close()
    assert forks, "the drafting was not forked"
    assert [r.line for r in results if r.status != "created"] == [290]
    assert "details is 70,000 bytes" in (results[289].error or "")
    assert len(_memory_files(repo)) == 299


def test_a_line_is_sized_with_the_widest_id_it_can_be_given() -> None:
    widest = len(scalar(WIDEST_ID))
    assert is_valid_id(WIDEST_ID)
    for memory_id in ("ffffffff", "12345678", "1e345678", "0a0b0c0d", "deadbeef"):
        assert len(scalar(memory_id)) <= widest


def test_the_bound_that_spares_most_lines_a_rendering_holds_for_the_widest_head() -> None:
    """``HEAD_BYTES`` covers every fixed key of a file's head at its widest, and a file the
    bound calls under the limit never renders over it, whatever its characters."""
    from recall.import_record import HEAD_BYTES, _surely_fits
    from recall.model import Memory
    from recall.records import render_memory

    assert HEAD_BYTES == 1024
    widest = Memory(
        id=WIDEST_ID,
        category="decision",
        summary="",
        details="",
        pinned=True,
        guard=True,
        status="superseded",
        supersedes=WIDEST_ID,
        superseded_by=WIDEST_ID,
        created="2026-12-05T11:08:58+00:00",
        source="agent",
    )
    assert len(render_memory(widest).encode("utf-8")) < HEAD_BYTES // 2
    limit = 2000  # about half the drafts below are bounded under it, half rendered
    odd = "\U0010ffff\x85\u2028\t\"'"  # the characters YAML writes widest
    bounded = 0
    for n in range(1, 200):
        draft = widest.with_changes(
            summary=odd[: n % 7] * (n // 7),
            details="é" * n,
            files=(odd * (n % 9),),
            author=odd * (n % 5),
        )
        if _surely_fits(draft, limit):
            bounded += 1
            assert len(render_memory(draft).encode("utf-8")) <= limit
    assert 50 < bounded < 150


def test_remember_still_refuses_oversized_details(repo: Path) -> None:
    done = run_tether("remember", "too long", "-c", "gotcha", "--details", "y" * 70_000, cwd=repo)
    assert done.code == 2
    assert "details is 70,000 bytes" in done.stderr and "nothing written" in done.stderr
    assert _memory_files(repo) == []


@pytest.mark.parametrize("drafted", ["here", "in a second process"])
def test_an_import_undone_by_hand_leaves_no_memory_behind(repo: Path, drafted: str) -> None:
    """The imported files taken away again (deleted, a ``git clean``): the folder is as it
    was before the import, and the index must see that, not serve memories whose files are
    gone, nor call the lines already known when they are imported again."""
    assert run_tether("init", cwd=repo).code == 0
    assert run_tether("list", cwd=repo).code == 1  # the empty folder, as indexed
    count = 3 if drafted == "here" else 1100  # past the line count that forks the drafting
    source = repo.parent / "undone.jsonl"
    source.write_text(_lines(*({"summary": f"note {n}", **GOTCHA} for n in range(count))))
    assert run_tether("import", str(source), cwd=repo).code == 0
    assert len(_memory_files(repo)) == count
    for path in _memory_files(repo):  # before any other command has looked at the folder
        path.unlink()
    gone = run_tether("list", "--json", cwd=repo)
    assert gone.code == 1 and json.loads(gone.stdout) == []
    again = run_tether("import", str(source), "--json", cwd=repo)
    assert again.code == 0, again.stderr
    assert {json.loads(line)["status"] for line in again.stdout.splitlines()} == {"created"}
    assert len(_memory_files(repo)) == count


def test_the_folder_an_import_wrote_is_confirmed_as_indexed_without_a_rescan(repo: Path) -> None:
    from recall.index.sync import Fingerprint, stored_fingerprint

    assert run_tether("init", cwd=repo).code == 0
    source = repo.parent / "kept.jsonl"
    source.write_text(_lines(*({"summary": f"note {n}", **GOTCHA} for n in range(5))))
    assert run_tether("import", str(source), cwd=repo).code == 0
    location = project_location(repo)
    conn = sqlite3.connect(location.index_path)  # read as the import left it: no sync
    try:
        as_stored = stored_fingerprint(conn)
    finally:
        conn.close()
    folder_now, _names = Fingerprint.of_folder(MemoryFolder(location.memories_dir))
    assert as_stored == folder_now  # the next sync confirms it and reads no row
