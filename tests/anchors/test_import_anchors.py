"""Symbol anchors given on an imported line are recorded as ``remember`` records them: the
memory is about their files (recall, ``list --file``), and a new memory's anchors get the body
hash their definitions have now, so that a change to their code shows; a line with an id (a
memory coming back from an export) keeps its anchors as they were written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, make_repo

from recall import frontmatter
from recall.records import memory_from_parsed

STORE_PY = "def load(path):\n    return 1\n\n\ndef helper():\n    return 42\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/store.py": STORE_PY})


def written(repo: Path, memory_id: str):
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    return memory_from_parsed(
        frontmatter.parse(path.read_text(), str(path)), str(path), fallback_created=""
    )


def import_lines(cli: Callable[..., CliResult], *records: dict) -> CliResult:
    stdin = "".join(json.dumps(record) + "\n" for record in records)
    return cli("import", "-", "--json", stdin=stdin)


def test_an_anchored_line_without_files_is_on_its_file_and_its_code_is_watched(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    line = {"summary": "helper must answer 42", "category": "gotcha"}
    done = import_lines(cli, {**line, "anchors": ["src/store.py::helper"]})
    assert done.code == 0, done.stderr
    [result] = done.json_lines()
    memory = written(repo, result["id"])
    assert memory.files == ("src/store.py",)
    [anchor] = memory.anchors
    assert anchor.body is not None  # the definition's hash now, as remember records it
    recalled = cli("recall", "-f", "src/store.py", "--json", "--no-record").json()
    assert [hit["id"] for hit in recalled["results"]] == [result["id"]]
    listed = cli("list", "--file", "src/store.py", "--json").json()
    assert [m["id"] for m in listed] == [result["id"]]
    (repo / "src/store.py").write_text(STORE_PY.replace("return 42", "return 43"))
    [state] = cli("show", result["id"], "--json").json()["anchor_states"]
    assert (state["state"], state["changed"]) == ("changed", True)


def test_a_name_the_file_does_not_define_is_kept_and_said_on_its_line(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    done = import_lines(
        cli,
        {"summary": "first", "category": "context", "files": ["src/store.py"]},
        {"summary": "helper is slow", "category": "gotcha", "anchors": ["src/store.py::helpr"]},
    )
    assert done.code == 0, done.stderr
    first, second = done.json_lines()
    assert first.get("notes") is None
    [note] = second["notes"]
    assert "src/store.py::helpr kept without a body hash" in note
    assert "did you mean helper?" in note
    memory = written(repo, second["id"])
    assert (memory.files, [a.name for a in memory.anchors]) == (("src/store.py",), ["helpr"])
    assert memory.anchors[0].body is None
    text = cli(
        "import",
        "-",
        stdin=json.dumps({"summary": "b", "category": "gotcha", "anchors": ["src/store.py::lod"]})
        + "\n",
    )
    assert "-:1: anchor src/store.py::lod kept without a body hash" in text.stderr


def test_a_line_with_an_id_keeps_its_anchors_as_written(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    line = {"id": "1234abcd", "summary": "load is lazy", "category": "decision"}
    done = import_lines(cli, {**line, "anchors": ["src/store.py::load"]})
    assert done.code == 0, done.stderr
    memory = written(repo, "1234abcd")
    assert [(a.text, a.body) for a in memory.anchors] == [("src/store.py::load", None)]
    assert memory.files == ("src/store.py",)


def test_anchor_paths_are_stored_as_files_are(repo: Path, cli: Callable[..., CliResult]) -> None:
    done = import_lines(
        cli,
        {
            "summary": "load reads the path",
            "category": "gotcha",
            "files": ["./src/store.py"],
            "anchors": ["./src/store.py::load"],
        },
    )
    assert done.code == 0, done.stderr
    memory = written(repo, done.json_lines()[0]["id"])
    assert memory.files == ("src/store.py",)
    assert [a.text for a in memory.anchors] == ["src/store.py::load"]


def test_a_large_import_drafted_in_a_second_process_records_them_alike(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    from recall import importer

    notes = [
        {"summary": f"note {n}", "category": "context", "files": ["src/store.py"]}
        for n in range(importer.DRAFT_ELSEWHERE_FROM)
    ]
    anchored = {"summary": "helper must answer 42", "category": "gotcha"}
    done = import_lines(cli, *notes, {**anchored, "anchors": ["src/store.py::helper"]})
    assert done.code == 0, done.stderr
    memory = written(repo, done.json_lines()[-1]["id"])
    assert memory.files == ("src/store.py",)
    assert memory.anchors[0].body is not None
