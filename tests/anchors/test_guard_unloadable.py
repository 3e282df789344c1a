"""A guarded memory whose file the store cannot load (a merge conflict in it, a file over the
size limit) keeps guarding: the pre-edit hook asks before an edit of a file it names, says the
memory file cannot be read and why, and logs it. The real hook command, a real repository and
a real merge."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import git, make_repo

from recall.hooks import LOG_NAME
from recall.locations import project_location


def _payload(repo: Path, path: str, event: str = "PreToolUse") -> str:
    return json.dumps(
        {
            "session_id": "3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b",
            "cwd": str(repo),
            "hook_event_name": event,
            "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / path), "old_string": "N = 3", "new_string": "N"},
            "tool_use_id": "toolu_1",
        }
    )


def _pre_edit(cli: Any, repo: Path, path: str, env: dict[str, str] | None = None) -> str:
    done = cli("hook", "pre-edit", stdin=_payload(repo, path), env=env)
    assert done.code == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def _reason(out: str) -> str:
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    return str(decision["permissionDecisionReason"])


def _guarded(cli: Any, repo: Path, *extra: str) -> tuple[str, Path]:
    done = cli(
        "remember", "retries stay at three", "-c", "decision", "-f", "retry.py", "--guard",
        "--json", *extra,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    memory_id = str(done.json()["id"])
    return memory_id, project_location(repo).memories_dir / f"{memory_id}.md"


def test_a_guard_whose_file_a_merge_left_in_conflict_still_asks(tmp_path: Path, cli: Any) -> None:
    repo = make_repo(tmp_path / "repo", {"retry.py": "N = 3\n", "other.py": "M = 1\n"})
    memory_id, file = _guarded(cli, repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memory")
    assert memory_id in _reason(_pre_edit(cli, repo, "retry.py"))  # guarded, read as ever

    text = file.read_text(encoding="utf-8")
    git(repo, "checkout", "-qb", "other")
    file.write_text(text.replace("retries stay at three\n", "retries stay at three, always\n"))
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    file.write_text(text.replace("retries stay at three\n", "retries stay at exactly three\n"))
    git(repo, "commit", "-qam", "main")
    merge = subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True)
    assert merge.returncode != 0 and "<<<<<<<" in file.read_text(encoding="utf-8")

    reason = _reason(_pre_edit(cli, repo, "retry.py"))
    rel = f".tether/memories/{memory_id}.md"
    assert f"the memory file {rel} cannot be read (line 13: unresolved merge conflict" in reason
    assert "as the last commit has it" in reason
    assert f'"retries stay at exactly three" [{memory_id}] covers retry.py' in reason
    assert _pre_edit(cli, repo, "other.py") == ""  # a file it does not name asks nothing
    log = (project_location(repo).base / LOG_NAME).read_text(encoding="utf-8")
    assert f"{rel}:13: unresolved merge conflict" in log
    assert f"its guard [{memory_id}] on retry.py" in log


def test_a_guard_whose_file_is_over_the_size_limit_still_asks(tmp_path: Path, cli: Any) -> None:
    repo = make_repo(tmp_path / "repo", {"retry.py": "N = 3\n", "other.py": "M = 1\n"})
    memory_id, _ = _guarded(cli, repo, "--details", "why three: " + "x" * 3000)
    small = {"TETHER_MAX_MEMORY_BYTES": "1024"}

    reason = _reason(_pre_edit(cli, repo, "retry.py", small))
    rel = f".tether/memories/{memory_id}.md"
    assert f"the memory file {rel} cannot be read (line 1: is " in reason
    assert "over the limit of 1,024 bytes" in reason
    assert "as far as the file can be read" in reason  # never committed: read as written
    assert f'"retries stay at three" [{memory_id}] covers retry.py' in reason
    assert _pre_edit(cli, repo, "other.py", small) == ""
