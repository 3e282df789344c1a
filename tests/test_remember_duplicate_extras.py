"""Writing knowledge a memory already holds, with an anchor, a pin or a guard that memory
lacks: nothing is written, and the writer is told each thing that was not recorded and how to
add it (it used to say only "Already known … nothing written", and the anchor, pin and guard
were dropped without a word)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import make_repo, run_tether

GOTCHA = "never block the event loop in helpers"


def _remember(repo: Path, *extra: str) -> dict[str, object]:
    done = run_tether(
        "remember", GOTCHA, "-c", "gotcha", "-f", "src/util.py", *extra, "--json", cwd=repo
    )
    assert done.code == 0, done
    return json.loads(done.stdout)


def test_a_duplicate_names_the_anchor_pin_and_guard_it_did_not_record(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    first = _remember(repo)
    again = _remember(repo, "--anchor", "src/util.py::helper", "--pin", "--guard")
    assert again["duplicate_of"] == first["id"]
    assert again["anchors_not_on_it"] == ["src/util.py::helper"]
    assert again["marks_not_on_it"] == ["pinned", "guard"]
    assert "files_not_on_it" not in again
    shown = json.loads(run_tether("show", str(first["id"]), "--json", cwd=repo).stdout)
    assert (shown["pinned"], shown["guard"], shown["anchors"]) == (False, False, [])

    human = run_tether(
        "remember",
        GOTCHA,
        "-c",
        "gotcha",
        "-f",
        "src/util.py",
        "--anchor",
        "src/util.py::helper",
        "--pin",
        "--guard",
        cwd=repo,
    )
    assert human.code == 0, human
    text = " ".join(human.stdout.split())
    assert f"same knowledge as {first['id']}" in text
    assert "is not anchored to src/util.py::helper" in text
    assert "is not pinned or guarded" in text
    assert "under `anchors:`" in text
    assert f"`tether pin {first['id']}`" in text and f"`tether guard {first['id']}`" in text


def test_a_duplicate_with_nothing_more_says_only_that_it_is_known(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    first = _remember(repo, "--anchor", "src/util.py::helper", "--pin")
    again = _remember(repo, "--anchor", "src/util.py::helper", "--pin")
    assert again["duplicate_of"] == first["id"]
    assert not {"anchors_not_on_it", "marks_not_on_it", "files_not_on_it"} & set(again)
    human = run_tether("remember", GOTCHA, "-c", "gotcha", "-f", "src/util.py", cwd=repo)
    assert "nothing written" in human.stdout and "not anchored" not in human.stdout


def test_a_superseded_duplicate_says_to_restore_it_first(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    first = _remember(repo)
    replaced = run_tether("supersede", str(first["id"]), "the loop may block in tests", cwd=repo)
    assert replaced.code == 0, replaced
    again = _remember(repo, "--pin")
    assert again["duplicate_status"] == "superseded"
    note = str(again["note"])  # the CLI's --json says it as the MCP tool and the editor do
    assert note.index(f"`tether restore {first['id']}`") < note.index(f"`tether pin {first['id']}`")


def test_an_imported_duplicate_names_what_it_did_not_record(tmp_path: Path) -> None:
    """The same for `tether import`: a line duplicating a memory of the store, or one of the
    same import, with a pin, a guard or an anchor that memory lacks."""
    repo = make_repo(tmp_path / "repo")
    first = _remember(repo)
    line = {"summary": GOTCHA, "category": "gotcha", "files": ["src/util.py"]}
    lines = [
        {**line, "pinned": True, "anchors": ["src/util.py::helper"]},
        {**line, "summary": "helpers take no locks", "pinned": True},
        {**line, "summary": "helpers take no locks", "guard": True},
    ]
    done = run_tether(
        "import", "-", "--json", cwd=repo, stdin="\n".join(json.dumps(x) for x in lines)
    )
    assert done.code == 0, done
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert out[0]["duplicate_of"] == first["id"]
    assert out[0]["anchors_not_on_it"] == ["src/util.py::helper"]
    assert out[0]["marks_not_on_it"] == ["pinned"]
    assert out[1]["status"] == "created" and "marks_not_on_it" not in out[1]
    assert out[2]["duplicate_of"] == out[1]["id"] and out[2]["marks_not_on_it"] == ["guard"]
    human = run_tether("import", "-", cwd=repo, stdin="\n".join(json.dumps(x) for x in lines))
    said = " ".join(human.stderr.split())
    assert "is not anchored to src/util.py::helper" in said and "is not pinned" in said
