"""A ``TETHER_HOME`` that cannot be the user-wide store's folder (a folder inside the repository,
a file, a relative path), by the one rule every surface follows: a read serves the project's
memories, said once on stderr (naming the variable, its value, why and what to do); a write to
the user-wide store is refused, exit 2, nothing written anywhere; a write to the project's store
goes on; with no repository either there is nothing to serve, exit 2. The agent hooks answer
from the project's memories and never block the agent over it (exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_tether

KINDS = ("inside", "file", "relative")
SUMMARY = "flush the pool before exit"
LEFT_OUT = "only this repository's memories are read"


def _value(kind: str, repo: Path, tmp_path: Path) -> str:
    """A ``TETHER_HOME`` of ``kind`` for ``repo``."""
    if kind == "inside":
        return str(repo / "notes" / "tether")
    if kind == "file":
        taken = tmp_path / "home-file"
        taken.write_text("mine\n", encoding="utf-8")
        return str(taken)
    return "relhome"


def _env(value: str, tmp_path: Path) -> dict[str, str]:
    # the user data folder too: a surface that fell back to it would show there
    return {"TETHER_HOME": value, "XDG_DATA_HOME": str(tmp_path / "user-data")}


def _said(stderr: str, value: str) -> list[str]:
    """The lines of ``stderr`` naming ``TETHER_HOME`` with ``value``."""
    return [line for line in stderr.splitlines() if f"TETHER_HOME={value!r}" in line]


def _remember(repo: Path, *extra: str) -> str:
    done = run_tether("--json", "remember", SUMMARY, "-c", "gotcha", "-f", "src/app.py", *extra,
                      cwd=repo)  # fmt: skip
    assert done.code == 0, done
    return str(done.json()["id"])


def _untouched(repo: Path, tmp_path: Path, value: str) -> None:
    """Nothing was made where the home points, nor in the user data folder."""
    assert not (repo / "notes").exists()
    assert not (repo / "relhome").exists() and not (repo / "src" / "relhome").exists()
    assert not (tmp_path / "user-data").exists()
    if Path(value).is_file():
        assert Path(value).read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("kind", KINDS)
def test_a_read_serves_the_projects_memories_and_says_why_once(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    memory = _remember(repo)
    value = _value(kind, repo, tmp_path)
    env = _env(value, tmp_path)
    for command in (
        ["list"],
        ["search", "flush"],
        ["recall", "flush the pool", "-f", "src/app.py"],
        ["show", memory],
        ["inject", "flush the pool"],
    ):
        done = run_tether(*command, cwd=repo / "src", env=env)
        assert done.code == 0, (command, done)
        assert SUMMARY in done.stdout, (command, done)
        said = _said(done.stderr, value)
        assert len(said) == 1, (command, done.stderr)
        assert "your user-wide memories are not available" in said[0] and LEFT_OUT in said[0]
    doctor = run_tether("doctor", cwd=repo, env=env)
    assert doctor.code == 0, doctor
    assert len(_said(doctor.stderr, value)) == 1, doctor.stderr
    listed = run_tether("--json", "list", cwd=repo, env=env)
    assert listed.code == 0, listed
    assert [entry["id"] for entry in listed.json()] == [memory]  # stdout stays JSON
    injected = run_tether("--json", "inject", "flush the pool", cwd=repo, env=env)
    assert injected.code == 0, injected
    notes = injected.json()["notes"]  # its notes say it as stderr does
    assert any(f"TETHER_HOME={value!r}" in note and LEFT_OUT in note for note in notes), notes
    _untouched(repo, tmp_path, value)


@pytest.mark.parametrize("kind", KINDS)
def test_a_write_to_the_user_wide_store_is_refused_and_nothing_is_written(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    _remember(repo)
    value = _value(kind, repo, tmp_path)
    env = _env(value, tmp_path)
    memories = repo / ".tether" / "memories"
    before = {path.name: path.read_bytes() for path in memories.iterdir()}
    lines = tmp_path / "lines.jsonl"
    records = [
        {"summary": "the pool has ten connections", "category": "context", "files": ["src/app.py"]},
        {"summary": "tabs, not spaces", "category": "pref", "scope": "global"},
    ]
    lines.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for command in (
        ["remember", "tabs, not spaces", "-c", "pref", "--global"],
        ["import", str(lines), "--global"],
    ):
        done = run_tether(*command, cwd=repo, env=env)
        assert done.code == 2, (command, done)
        assert f"TETHER_HOME={value!r}" in done.stderr, done.stderr
        assert "nothing was written" in done.stderr, done.stderr
    mixed = run_tether("import", str(lines), cwd=repo, env=env)  # one project line, one global
    assert mixed.code == 2, mixed
    assert f"{lines}: nothing was imported: 1 line of it has scope 'global'" in mixed.stderr
    assert f"TETHER_HOME={value!r}" in mixed.stderr and "--scope project" in mixed.stderr
    as_json = run_tether("--json", "remember", "tabs", "-c", "pref", "--global", cwd=repo, env=env)
    assert as_json.code == 2 and as_json.stdout == "", as_json
    assert f"TETHER_HOME={value!r}" in json.loads(as_json.stderr)["error"]
    assert {path.name: path.read_bytes() for path in memories.iterdir()} == before
    _untouched(repo, tmp_path, value)
    project = run_tether("import", str(lines), "--scope", "project", cwd=repo, env=env)
    assert project.code == 0, project  # into the project's store, as asked: it goes on
    assert len(list(memories.glob("*.md"))) == len(before) + 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_write_to_the_projects_store_goes_on(repo: Path, tmp_path: Path, kind: str) -> None:
    value = _value(kind, repo, tmp_path)
    done = run_tether(
        "remember", SUMMARY, "-c", "gotcha", "-f", "src/app.py", cwd=repo,
        env=_env(value, tmp_path),
    )  # fmt: skip
    assert done.code == 0, done
    assert len(list((repo / ".tether" / "memories").glob("*.md"))) == 1
    _untouched(repo, tmp_path, value)


@pytest.mark.parametrize("kind", ["file", "relative"])  # outside it, a folder "inside" is a folder
def test_outside_any_repository_there_is_nothing_to_serve(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    value = _value(kind, repo, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = _env(value, tmp_path)
    for command in (["list"], ["search", "flush"], ["recall", "flush the pool"]):
        done = run_tether(*command, cwd=elsewhere, env=env)
        assert done.code == 2, (command, done)
        assert f"{elsewhere} is not inside a git repository" in done.stderr, done.stderr
        assert f"TETHER_HOME={value!r}" in done.stderr
    as_json = run_tether("--json", "list", cwd=elsewhere, env=env)
    assert as_json.code == 2 and as_json.stdout == "", as_json
    assert f"TETHER_HOME={value!r}" in json.loads(as_json.stderr)["error"]
    assert list(elsewhere.iterdir()) == []
    _untouched(repo, tmp_path, value)


@pytest.mark.parametrize("kind", KINDS)
def test_the_hooks_answer_from_the_project_and_never_block(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    _remember(repo, "--guard")
    value = _value(kind, repo, tmp_path)
    env = _env(value, tmp_path)
    session = {"session_id": f"s-{kind}", "cwd": str(repo)}
    start = run_tether("hook", "session-start", cwd=repo, env=env,
                       stdin=json.dumps({**session, "source": "startup"}))  # fmt: skip
    assert start.code == 0, start
    prompt = run_tether("hook", "prompt", cwd=repo, env=env,
                        stdin=json.dumps({**session, "prompt": "flush the pool"}))  # fmt: skip
    assert prompt.code == 0, prompt  # exit 2 would block the agent's prompt
    assert SUMMARY in json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"]
    said = _said(prompt.stderr, value)
    assert len(said) == 1 and "this hook leaves the global store out" in said[0], prompt.stderr
    edit = {"file_path": str(repo / "src/app.py"), "old_string": "a", "new_string": "b"}
    record = {**session, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit}
    guarded = run_tether("hook", "pre-edit", cwd=repo, env=env, stdin=json.dumps(record))
    assert guarded.code == 0, guarded
    assert json.loads(guarded.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    _untouched(repo, tmp_path, value)
