"""Every kind of writer on one store at once: the language server, the MCP server, two CLIs.

In a temp git repository with a store, for a bounded time:

- ``tether lsp`` (a real process over stdio, driven by the raw client in ``wire``) gets
  didChange messages on an open file and ``workspace/executeCommand`` ``tether.remember`` /
  ``tether.pin`` / ``tether.supersede`` (with a ``summary``, so they write directly) /
  ``tether.recall``;
- ``tether mcp`` (a real process, driven by the MCP SDK's own client) gets ``memory_write`` /
  ``memory_pin`` / ``memory_supersede`` / ``memory_recall``;
- two CLI writers (``cli_loop.py``, each its own process) loop ``tether remember`` / ``pin`` /
  ``supersede`` / ``recall`` as subprocesses.

Each writer records every write it was told succeeded and every error it got. Afterwards every
reported memory must be present exactly once as a file and once as an index row (read raw,
full-text tables included, then through a fresh ``MemoryStore``), pins and supersessions must
have stuck both ways, no writer may have seen an error or any text containing "locked", and
every process must end by itself with exit code 0 and no traceback. ``-s`` prints the figures;
``make soak`` runs a longer variant.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from recall import frontmatter
from recall.locations import project_location
from recall.store import MemoryStore
from tests.reliability.cli_loop import Log
from tests.reliability.server_writers import (
    TETHER,
    Clock,
    lsp_writer,
    open_and_start_mcp,
    server_messages,
)
from tests.reliability.wire import Wire

CLI_LOOP = Path(__file__).with_name("cli_loop.py")
DURATION_S = 5.0
"""How long the writers run together in ``make test``: long enough for every kind to write
several times on a loaded 2-core machine, short enough to keep the suite fast."""
SOAK_DURATION_S = 60.0
"""The ``make soak`` variant: a minute of the same load."""
FINISH_TIMEOUT_S = 180.0
"""A bound on a writer finishing its last call after the time is up."""
SEED = "seeded gotcha: src/app.py must stay importable without side effects"


def _seed(repo: Path) -> str:
    """Create the store with one gotcha on ``src/app.py`` (published when the file opens)."""
    store = MemoryStore(project_location(repo), notice=lambda _m: None)
    try:
        draft = store.prepare_memory(summary=SEED, category="gotcha", files=["src/app.py"])
        return store.remember(draft).id
    finally:
        store.close()


# -- the checks ------------------------------------------------------------------------------


def _index_rows(index: Path) -> dict[str, Counter[str]]:
    """How many rows each memory id has in every table that holds memories, read raw (no
    sync), keyed by table; full-text and file rows are joined to their memory by rowid."""
    with sqlite3.connect(index) as conn:
        ids = dict(conn.execute("SELECT rowid, id FROM memories"))
        rows = {"memories": Counter(ids.values())}
        for table in ("fts_words", "fts_trigram"):
            rows[table] = Counter(
                ids.get(r, f"orphan rowid {r}")
                for (r,) in conn.execute(f"SELECT rowid FROM {table}")
            )
        rows["memory_files"] = Counter(
            ids.get(r, f"orphan rowid {r}")
            for (r,) in conn.execute("SELECT memory_rowid FROM memory_files")
        )
    return rows


def check_store(repo: Path, reported: list[str], logs: list[Log]) -> None:
    """Every reported memory present exactly once as a file and as an index row (raw and
    through a fresh store), nothing unreported, every pin and supersession in place."""
    pinned = {i for log in logs for i in log.pinned}
    superseded = {old: new for log in logs for old, new in log.superseded}
    assert len(reported) == len(set(reported)), "an id was reported twice"

    file_ids: Counter[str] = Counter()
    fields: dict[str, dict[str, object]] = {}
    for path in (repo / ".tether" / "memories").glob("*.md"):
        parsed = frontmatter.parse(path.read_text(encoding="utf-8"), path)
        file_ids[str(parsed.fields["id"])] += 1
        fields[str(parsed.fields["id"])] = parsed.fields
    rows = _index_rows(repo / ".tether" / "index.db")
    assert set(file_ids) == set(reported), "unreported memories appeared, or reported ones lack"
    for table, counts in rows.items():
        assert set(counts) == set(reported), f"{table}: rows for {set(counts) ^ set(reported)}"
    for memory_id in reported:
        assert file_ids[memory_id] == 1, f"{memory_id}: {file_ids[memory_id]} files"
        for table in ("memories", "fts_words", "fts_trigram"):
            assert rows[table][memory_id] == 1, f"{memory_id}: {rows[table][memory_id]} {table}"
        files = fields[memory_id]["files"]
        assert isinstance(files, list)
        assert rows["memory_files"][memory_id] == len(files), memory_id
    for memory_id in pinned:
        assert fields[memory_id].get("pinned") is True, f"pin of {memory_id} lost in its file"
    for old, new in superseded.items():
        assert fields[old].get("status") == "superseded", old
        assert fields[old].get("superseded_by") == new, old
        assert fields[new].get("supersedes") == old, new

    notices: list[str] = []
    store = MemoryStore(project_location(repo), notice=notices.append)
    try:
        listed = {m.id: m for m in store.list(status="all")}
        assert store.problems() == []
    finally:
        store.close()
    assert sorted(listed) == sorted(reported)
    assert all(listed[i].pinned for i in pinned)
    for old, new in superseded.items():
        assert (listed[old].status, listed[old].superseded_by) == ("superseded", new)
        assert listed[new].supersedes == old
    assert notices == []


def _no_locked(where: str, texts: list[str]) -> None:
    for text in texts:
        assert "locked" not in text.lower(), f"{where}: {text[-2000:]}"


# -- the test --------------------------------------------------------------------------------


def _all_writers(repo: Path, tmp_path: Path, duration: float) -> None:
    seeded = _seed(repo)
    app = repo / "src" / "app.py"
    uri, text = app.as_uri(), app.read_text(encoding="utf-8")
    clock = Clock(duration)
    logs = {kind: Log() for kind in ("lsp", "mcp", "cli 1", "cli 2")}

    wire = Wire([*TETHER, "lsp"], repo, tmp_path / "lsp-stderr.txt")
    cli_procs: list[subprocess.Popen[bytes]] = []
    try:
        mcp_thread = open_and_start_mcp(wire, repo, tmp_path, uri, text, clock, logs["mcp"])

        clock.start()
        for n in (1, 2):
            cli_procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        str(CLI_LOOP),
                        str(repo),
                        f"cli{n}",
                        str(duration),
                        str(tmp_path / f"cli{n}.json"),
                    ],
                    stderr=subprocess.PIPE,
                    env=dict(os.environ),
                )
            )
        lsp_thread = threading.Thread(
            target=lsp_writer, args=(wire, uri, text, clock, logs["lsp"]), daemon=True
        )
        lsp_thread.start()
        lsp_thread.join(FINISH_TIMEOUT_S)
        mcp_thread.join(FINISH_TIMEOUT_S)
        assert not lsp_thread.is_alive() and not mcp_thread.is_alive(), "a writer hung"
        for n, proc in enumerate(cli_procs, start=1):
            _out, err = proc.communicate(timeout=FINISH_TIMEOUT_S)
            assert proc.returncode == 0, err.decode(errors="replace")
            assert not err, err.decode(errors="replace")
            logs[f"cli {n}"] = Log(**json.loads((tmp_path / f"cli{n}.json").read_text("utf-8")))
    finally:
        for proc in cli_procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        wire.close()

    for message in server_messages(wire):
        logs["lsp"].texts.append(str(message["params"].get("message", "")))
        if message["params"].get("type") == 1:  # shown to the user as an error
            logs["lsp"].errors.append(str(message["params"]))
    lsp_stderr = wire.stderr()
    mcp_stderr = (tmp_path / "mcp-stderr.txt").read_text(encoding="utf-8")
    mcp_code = tmp_path / "mcp-exit-code"

    print(f"\n[all writers] {duration:.0f} s, each kind's writes (memories + pins) and errors:")
    for kind, log in logs.items():
        print(
            f"  {kind:5}: writes attempted={log.attempts} succeeded="
            f"{len(log.created) + len(log.pinned)} (memories={len(log.created)}, of them "
            f"supersede successors={len(log.superseded)}; pins={len(log.pinned)}) "
            f"recalls={log.recalls} errors={len(log.errors)}"
        )
    reported = [seeded, *(i for log in logs.values() for i in log.created)]
    print(
        f"  memories reported={len(reported)} (1 seeded); LSP notices={len(logs['lsp'].texts)}; "
        f"stderr lines: lsp={len(lsp_stderr.splitlines())} mcp={len(mcp_stderr.splitlines())}"
    )

    for kind, log in logs.items():
        assert log.errors == [], f"{kind}: {log.errors[:3]}"
        _no_locked(kind, log.texts)
        assert log.created, f"{kind} never got a write in"
    assert wire.process.returncode == 0, lsp_stderr[-3000:]
    assert mcp_code.exists(), "the MCP server did not end by itself; the client killed it"
    assert mcp_code.read_text(encoding="utf-8") == "0", mcp_stderr[-3000:]
    for name, stderr in (("lsp", lsp_stderr), ("mcp", mcp_stderr)):
        assert "Traceback" not in stderr, f"{name}: {stderr[-3000:]}"
        _no_locked(f"{name} stderr", [stderr])
    check_store(repo, reported, list(logs.values()))
    print(
        f"  present exactly once as a file and as an index row: {len(reported)} of {len(reported)}"
    )


def test_lsp_mcp_and_cli_writers_at_once_lose_and_double_nothing(
    repo: Path, tmp_path: Path
) -> None:
    _all_writers(repo, tmp_path, DURATION_S)


@pytest.mark.soak
def test_all_writers_soak(repo: Path, tmp_path: Path) -> None:
    _all_writers(repo, tmp_path, SOAK_DURATION_S)
