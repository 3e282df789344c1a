"""A configured command in place of the heuristic (the user's own setting, never a
repository's): one commit as JSON on stdin, memories as JSON on stdout."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recall.distill.commits import Commit
from recall.distill.heuristic import Proposal
from recall.distill_words import COMMAND_TIMEOUT
from recall.model import CATEGORIES


class CommandFailed(Exception):
    """The configured distill command could not be run or gave an unusable answer."""


def command_input(commit: Commit, categories: Sequence[str]) -> str:
    """The JSON a configured command reads on stdin for one commit."""
    return json.dumps(
        {
            "commit": commit.sha,
            "author": commit.author,
            "message": commit.message,
            "files": list(commit.files),
            "categories": list(categories),
        },
        ensure_ascii=False,
    )


def _proposal_from(item: Any, index: int, commit: Commit) -> Proposal:
    where = f"memory {index + 1}"
    if not isinstance(item, dict):
        raise CommandFailed(f"{where} is not a JSON object")
    category, summary = item.get("category"), item.get("summary")
    if category not in CATEGORIES:
        raise CommandFailed(f"{where}: category must be one of {', '.join(CATEGORIES)}")
    if not isinstance(summary, str) or not summary.strip() or "\n" in summary.strip():
        raise CommandFailed(f"{where}: summary must be one non-empty line of text")
    details = item.get("details") or ""
    if not isinstance(details, str):
        raise CommandFailed(f"{where}: details must be text")
    files = item.get("files", list(commit.files))
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise CommandFailed(f"{where}: files must be a list of paths")
    strangers = [f for f in files if f not in commit.files]
    if strangers:
        raise CommandFailed(f"{where}: {strangers[0]!r} is not a file the commit changed")
    return Proposal(category, summary.strip(), details.strip(), tuple(files), commit)


def from_command(
    argv: Sequence[str], commit: Commit, categories: Sequence[str], cwd: Path
) -> list[Proposal]:
    """Ask the configured command about one commit.

    It reads :func:`command_input` on stdin and prints a JSON list of memories (or an object
    whose ``memories`` key holds one), each with ``category``, ``summary`` and optionally
    ``details`` and ``files`` (a subset of the commit's files; all of them when absent). An
    empty list means "nothing durable here". Anything else raises :class:`CommandFailed`.
    """
    try:
        done = subprocess.run(
            list(argv),
            input=command_input(commit, categories),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=COMMAND_TIMEOUT,
            cwd=cwd,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CommandFailed(f"timed out after {COMMAND_TIMEOUT:g} s") from None
    except OSError as error:
        raise CommandFailed(f"could not be started ({error})") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or [""])[0]
        raise CommandFailed(
            f"exited with status {done.returncode}" + (f": {first}" if first else "")
        )
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise CommandFailed(f"printed no JSON ({error})") from None
    if isinstance(answer, dict) and isinstance(answer.get("memories"), list):
        answer = answer["memories"]
    if not isinstance(answer, list):
        raise CommandFailed('printed JSON that is neither a list nor {"memories": [...]}')
    return [_proposal_from(item, index, commit) for index, item in enumerate(answer)]
