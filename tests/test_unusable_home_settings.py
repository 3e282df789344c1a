"""A ``TETHER_HOME`` that cannot be used (a folder inside the repository, a file, a relative
path) leaves the user's own settings unread, since they live there: a command that reads
settings without the user-wide store (a write to the project's store choosing its embedder, a
reindex, a distill) says so once on stderr, naming the variable, its value, why and what to do,
with its exit code unchanged; a command that already says the user-wide store is left out says
nothing more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_repo, run_tether

KINDS = ("inside", "file", "relative")
SETTINGS_LEFT_OUT = "your own settings (kept in TETHER_HOME) are not read"


def _value(kind: str, repo: Path, tmp_path: Path) -> str:
    if kind == "inside":
        return str(repo / "notes" / "tether")
    if kind == "file":
        taken = tmp_path / "home-file"
        taken.write_text("mine\n", encoding="utf-8")
        return str(taken)
    return "relhome"


def _said(stderr: str, value: str) -> list[str]:
    """The lines of ``stderr`` naming ``TETHER_HOME`` with ``value``."""
    return [line for line in stderr.splitlines() if f"TETHER_HOME={value!r}" in line]


COMMANDS = {
    "remember": ["remember", "flush the pool", "-c", "gotcha", "-f", "src/app.py"],
    "remember --json": ["--json", "remember", "close the pool", "-c", "gotcha", "-f", "src/app.py"],
    "reindex": ["reindex"],
    "reindex --json": ["--json", "reindex"],
    "distill": ["distill", "--dry-run"],
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("words", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_command_reading_settings_says_once_that_they_are_not_read(
    repo: Path, tmp_path: Path, kind: str, words: list[str]
) -> None:
    usable = run_tether(*words, cwd=make_repo(tmp_path / "twin"))  # the same, its home usable
    value = _value(kind, repo, tmp_path)
    done = run_tether(*words, cwd=repo, env={"TETHER_HOME": value})
    assert done.code == usable.code, (usable, done)
    said = _said(done.stderr, value)
    assert len(said) == 1, done.stderr
    assert SETTINGS_LEFT_OUT in said[0], said
    if "--json" in words:
        json.loads(done.stdout)  # stdout stays the command's JSON
    assert not (repo / "notes").exists() and not (repo / "relhome").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_a_command_that_says_the_user_wide_store_is_left_out_says_nothing_more(
    repo: Path, tmp_path: Path, kind: str
) -> None:
    assert run_tether(*COMMANDS["remember"], cwd=repo).code == 0
    value = _value(kind, repo, tmp_path)
    for words in (["recall", "flush", "-f", "src/app.py"], ["doctor"], ["session", "start"]):
        done = run_tether(*words, cwd=repo, env={"TETHER_HOME": value})
        assert done.code == 0, (words, done)
        said = _said(done.stderr, value)
        assert len(said) == 1 and SETTINGS_LEFT_OUT not in said[0], (words, said)
