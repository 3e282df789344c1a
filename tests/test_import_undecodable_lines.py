"""``tether import`` reads a file as it reads standard input: a line holding a byte that is not
UTF-8 is refused alone, named by file and line number, and the other lines are imported,
whatever the locale's text encoding says of standard input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import run_tether

LINES = (
    b'{"summary": "good one", "category": "gotcha", "files": ["README.md"]}\n'
    b'{"summary": "caf\xe9", "category": "gotcha", "files": ["README.md"]}\n'
    b'{"summary": "good two", "category": "gotcha", "files": ["README.md"]}\n'
)
REFUSED = "summary is not valid UTF-8 text"


def _summaries(repo: Path) -> list[str]:
    done = run_tether("export", cwd=repo)
    assert done.code == 0, done.stderr
    return sorted(row["summary"] for row in done.json_lines())


def test_a_file_with_one_line_not_utf8_imports_the_others(repo: Path) -> None:
    source = repo.parent / "in.jsonl"
    source.write_bytes(LINES)
    done = run_tether("import", str(source), cwd=repo)
    assert done.code == 2, done.stderr
    assert f"{source}:2: {REFUSED}" in done.stderr
    assert "Imported 2 memories" in done.stdout
    assert _summaries(repo) == ["good one", "good two"]


def test_stdin_with_one_line_not_utf8_under_a_strict_locale(repo: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")
    done = subprocess.run(
        [sys.executable, "-m", "recall", "import", "-"],
        cwd=repo,
        input=LINES,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, stderr
    assert f"-:2: {REFUSED}" in stderr
    assert "Traceback" not in stderr
    assert _summaries(repo) == ["good one", "good two"]
