"""Each finding of ``tether doctor`` about a memory leads with its file and the line of the key
it is about: a hand-written file's name need not be its id (and an id alone does not say which
file to open), so the text and the JSON both name the file."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether


def test_a_dead_reference_of_a_hand_written_file_names_that_file_and_line(repo: Path) -> None:
    assert run_tether("init", cwd=repo).code == 0
    hand = repo / ".tether" / "memories" / "hand3.md"
    hand.write_text(
        "---\ncategory: gotcha\n# written by hand\nfiles: [src/a.pyy]\n---\nA typo by hand\n",
        encoding="utf-8",
    )
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1, done
    [finding] = [line for line in done.stdout.splitlines() if "every file it names" in line]
    assert finding.startswith(f"{hand}:4: ")
    found = json.loads(run_tether("doctor", "--json", cwd=repo).stdout)
    [entry] = [e for e in found if e["kind"] == "dead-reference"]
    assert entry["path"] == str(hand)
    assert entry["message"] == finding
