"""``tether recall`` and ``tether inject`` as whole processes over a real repository.

``--batch FILE --json --no-record``: one JSON line per query line, in order, with ``results``
and ``elapsed_ms``; malformed lines answered with their line number; no counter touched.
A recorded recall counts one surfacing per hit. ``inject`` reads its prompt from stdin;
``--explain`` shows each channel's contribution and where the time went.
"""

from __future__ import annotations

import json
import os
import re
import select
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliResult, run_tether

from .world import World

RESULT_KEYS = {"id", "summary", "category", "scope", "score", "receipt", "signals"}


@pytest.fixture
def seeded(world: World) -> dict[str, str]:
    """Three memories on three committed files; returns {name: id}."""
    world.history([["src/a.py", "src/b.py", "src/c.py"]])
    made = {
        "a": world.remember("flush before close", "src/a.py"),
        "b": world.remember("retry with backoff", "src/b.py"),
        "c": world.remember("safeRename guards session writes against crashes", "src/c.py"),
    }
    world.close()  # the CLI is the only user of the index from here on
    return made


def tether(world: World, *args: str, stdin: str | None = None, **env: str) -> CliResult:
    """Run the real CLI in the world's repository."""
    return run_tether(*args, cwd=world.root, stdin=stdin, env=env or None)


def usage_rows(world: World) -> list[tuple[object, ...]]:
    """Every row of the project index's usage table, read by a fresh connection."""
    conn = sqlite3.connect(world.root / ".tether" / "index.db")
    try:
        return conn.execute("SELECT * FROM usage ORDER BY memory_id").fetchall()
    finally:
        conn.close()


def surfaced(world: World) -> dict[str, int]:
    """{memory id: surfaced count} from the usage table."""
    conn = sqlite3.connect(world.root / ".tether" / "index.db")
    try:
        return dict(conn.execute("SELECT memory_id, surfaced FROM usage WHERE surfaced > 0"))
    finally:
        conn.close()


def write_batch(world: World, lines: list[str]) -> Path:
    """A batch file of raw lines (each written as given, newline-terminated)."""
    path = world.root.parent / "queries.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_batch_answers_every_line_in_order_and_reports_malformed_ones(
    world: World, seeded: dict[str, str]
) -> None:
    lines = [
        json.dumps({"files": ["src/a.py"]}),
        json.dumps({"prompt": "does safeRename guard session writes?", "files": []}),
        "",
        "{not json",
        "[1, 2]",
        json.dumps({"files": "src/a.py"}),
        json.dumps({"prompt": 5}),
        json.dumps({"prompt": "retry?", "files": ["src/a.py", "src/b.py"], "limit": 1}),
        json.dumps({"files": ["../outside.py"]}),
        json.dumps({"prompt": "retry with backoff", "files": ["src/b.py"]}),
        json.dumps({}),
        json.dumps({"prompt": "retry", "promt": "with backoff"}),
        json.dumps({"prompt": "   ", "limit": 3}),
    ]
    batch = write_batch(world, lines)
    before = usage_rows(world)

    done = tether(world, "recall", "--batch", str(batch), "--json", "--no-record")

    assert done.code == 2, done  # some lines were malformed
    assert "Traceback" not in done.stderr
    out = done.json_lines()
    assert len(out) == len([line for line in lines if line.strip()])
    errors = {entry["line"]: entry["error"] for entry in out if "error" in entry}
    assert set(errors) == {4, 5, 6, 7, 9, 11, 12, 13}
    assert "JSON" in errors[4]
    assert "nothing to recall for" in errors[11] and "nothing to recall for" in errors[13]
    assert "unknown key 'promt'" in errors[12] and "did you mean 'prompt'?" in errors[12]
    answers = [entry for entry in out if "error" not in entry]
    assert [a["line"] for a in answers] == [1, 2, 8, 10]  # each answer names its line
    assert [a["results"][0]["id"] for a in answers] == [
        seeded["a"],
        seeded["c"],
        seeded["b"],
        seeded["b"],
    ]
    assert len(answers[2]["results"]) == 1  # the line's own limit
    for answer in answers:
        assert isinstance(answer["elapsed_ms"], float) and answer["elapsed_ms"] > 0
        for item in answer["results"]:
            assert set(item) >= RESULT_KEYS
            assert item["scope"] == "project"
            assert isinstance(item["signals"], dict) and item["signals"]
    assert answers[0]["results"][0]["receipt"] == "via file"
    assert "file" in answers[0]["results"][0]["signals"]
    assert usage_rows(world) == before  # --no-record touched no counter


def test_no_record_leaves_usage_untouched_and_a_recorded_recall_counts_each_hit_once(
    world: World, seeded: dict[str, str]
) -> None:
    args = ("recall", "--file", "src/a.py", "--file", "src/b.py", "--json")
    quiet = tether(world, *args, "--no-record")
    assert quiet.code == 0, quiet
    assert usage_rows(world) == []

    first = tether(world, *args)
    hits = [item["id"] for item in first.json()["results"]]
    assert sorted(hits) == sorted([seeded["a"], seeded["b"]])
    assert surfaced(world) == dict.fromkeys(hits, 1)

    tether(world, *args)
    after_two = usage_rows(world)
    assert surfaced(world) == dict.fromkeys(hits, 2)
    tether(world, *args, "--no-record")
    assert usage_rows(world) == after_two


def test_a_recorded_batch_counts_each_querys_hits(world: World, seeded: dict[str, str]) -> None:
    batch = write_batch(world, [json.dumps({"files": ["src/a.py"]})] * 2)

    done = tether(world, "recall", "--batch", str(batch), "--json")

    assert done.code == 0, done
    assert surfaced(world) == {seeded["a"]: 2}


def test_inject_reads_the_prompt_from_stdin(world: World, seeded: dict[str, str]) -> None:
    prompt = "does safeRename guard session writes?"

    piped = tether(world, "inject", "--no-record", stdin=prompt)
    given = tether(world, "inject", prompt, "--no-record")
    silent = tether(world, "inject", "--no-record", stdin="")

    assert piped.code == 0, piped
    assert f"] {seeded['c']} — safeRename guards session writes" in piped.stdout
    assert piped.stdout == given.stdout
    assert silent.code == 0 and silent.stdout == ""


def test_inject_with_a_file_and_stdin_prompt_records_only_what_it_injects(
    world: World, seeded: dict[str, str]
) -> None:
    done = tether(world, "inject", "--file", "src/a.py", "--json", stdin="what about retries?")

    assert done.code == 0, done
    payload = done.json()
    injected = [item["id"] for item in payload["results"]]
    assert injected[0] == seeded["a"]
    assert payload["text"].count("\n") == len(injected) + 4  # header, fence, fence, footer
    assert surfaced(world) == dict.fromkeys(injected, 1)


def test_explain_shows_each_channels_contribution(world: World, seeded: dict[str, str]) -> None:
    prompt = "does safeRename guard session writes?"

    piped = tether(world, "recall", prompt, "--file", "src/c.py", "--explain", COLUMNS="400")
    machine = tether(world, "recall", prompt, "--file", "src/c.py", "--explain", "--json")

    assert piped.code == 0, piped
    rows = [row.split("\t") for row in piped.stdout.splitlines()]
    (line,) = [row[6] for row in rows if row[1] == seeded["c"]]  # rank, id, ..., score, signals
    contributions = dict(re.findall(r"(\w+) ([+-]\d+\.\d{4})", line))
    for channel in ("file", "file_rank", "words", "words_rank", "semantic", "semantic_rank"):
        assert channel in contributions, line
    assert float(contributions["file"]) > 0
    (timing,) = [row for row in piped.stderr.splitlines() if row.startswith("time: ")]
    for phase in ("prepare", "cochange", "file", "text", "semantic", "adjust"):
        assert re.search(rf"\b{phase} \d+\.\d ms", timing), timing
    data = machine.json()
    assert {"prepare", "cochange", "file", "text", "semantic", "adjust"} <= set(data["timings_ms"])
    top = data["results"][0]
    assert top["id"] == seeded["c"]
    assert {"file", "words", "semantic"} <= set(top["signals"])


# -- hostile input to the CLI ------------------------------------------------------------------


def test_batch_reports_a_non_integer_limit_as_a_malformed_line(
    world: World, seeded: dict[str, str]
) -> None:
    batch = write_batch(
        world,
        [
            json.dumps({"files": ["src/a.py"], "limit": "three"}),
            json.dumps({"files": ["src/a.py"], "limit": None}),
            json.dumps({"files": ["src/a.py"]}),
        ],
    )

    done = tether(world, "recall", "--batch", str(batch), "--json", "--no-record")

    assert "Traceback" not in done.stderr, done.stderr
    out = done.json_lines()
    assert [entry.get("line") for entry in out[:2]] == [1, 2]
    assert out[2]["results"][0]["id"] == seeded["a"]
    assert done.code == 2


def test_batch_reports_a_line_that_is_not_utf8(world: World, seeded: dict[str, str]) -> None:
    batch = world.root.parent / "queries.jsonl"
    batch.write_bytes(
        b'{"files": ["src/a.py"]}\n{"prompt": "caf\xe9 \xff"}\n{"files": ["src/b.py"]}\n'
    )

    done = tether(world, "recall", "--batch", str(batch), "--json", "--no-record")

    assert "Traceback" not in done.stderr, done.stderr
    out = done.json_lines()
    assert len(out) == 3
    assert out[1].get("line") == 2
    assert out[0]["results"][0]["id"] == seeded["a"]
    assert out[2]["results"][0]["id"] == seeded["b"]


def test_a_batch_line_says_what_a_single_recall_says_of_its_files(
    world: World, seeded: dict[str, str]
) -> None:
    """A folder or a typo among a line's files is said in its ``notes``, as ``recall -f`` says
    it on stderr; a byte-order mark before the first line is an editor's, not bad JSON."""
    batch = world.root.parent / "queries.jsonl"
    lines = [{"files": ["src/a.py"]}, {"files": ["src"]}, {"files": ["src/typo.py"]}]
    batch.write_bytes(b"\xef\xbb\xbf" + "\n".join(map(json.dumps, lines)).encode() + b"\n")

    done = tether(world, "recall", "--batch", str(batch), "--json", "--no-record")

    out = done.json_lines()
    assert done.code == 0, out
    assert out[0]["results"][0]["id"] == seeded["a"] and "notes" not in out[0]
    assert "path 'src' is a folder" in out[1]["notes"][0]
    assert "src/typo.py is not a file of this repository" in out[2]["notes"][0]


def test_inject_survives_invalid_utf8_bytes_in_its_argument(
    world: World, seeded: dict[str, str]
) -> None:
    prompt = os.fsdecode(b"why does safe_\xffrename fail?")  # what the shell passes through

    done = tether(world, "inject", prompt, "--file", "src/a.py", "--no-record")

    assert "Traceback" not in done.stderr, done.stderr
    assert done.code == 0
    assert seeded["a"] in done.stdout


def _answer(batch: subprocess.Popen[str], line: str) -> dict[str, object]:
    """Send one query line to a running ``--batch -`` and read its answer line (a minute at
    most, so an answer held back in a buffer fails the test instead of hanging it)."""
    assert batch.stdin is not None and batch.stdout is not None
    batch.stdin.write(line + "\n")
    batch.stdin.flush()
    ready, _, _ = select.select([batch.stdout], [], [], 60)
    assert ready, "the batch did not answer the line it was sent"
    return json.loads(batch.stdout.readline())


def test_a_running_batch_follows_a_genome_refreshed_by_another_process(world: World) -> None:
    world.history([["src/a.py"], ["src/c.py"]])
    own = world.remember("a.py keeps its buffers aligned", "src/a.py")
    gotcha = world.remember("c.py must be closed before a.py is flushed", "src/c.py")
    world.close()
    assert tether(world, "index").code == 0
    line = json.dumps({"files": ["src/a.py"]})
    batch = subprocess.Popen(
        [sys.executable, "-m", "recall", "recall", "--batch", "-", "--json", "--no-record"],
        cwd=world.root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    try:
        before = _answer(batch, line)
        assert [hit["id"] for hit in before["results"]] == [own]  # no co-change yet

        world.history([["src/a.py", "src/c.py"]] * 6)
        assert tether(world, "index").code == 0  # another process refreshes the genome

        after = {hit["id"]: hit for hit in _answer(batch, line)["results"]}
    finally:
        batch.stdin.close()
        batch.wait(timeout=60)
    assert batch.returncode == 0
    assert after[gotcha]["receipt"].startswith("via co-change with src/c.py")


def test_batch_refuses_a_line_giving_a_key_twice(world: World, seeded: dict[str, str]) -> None:
    batch = write_batch(
        world,
        [
            '{"prompt": "flush", "prompt": "retry"}',
            '{"files": ["src/a.py"], "limit": 1, "limit": 2}',
            json.dumps({"files": ["src/a.py"]}),
        ],
    )

    done = tether(world, "recall", "--batch", str(batch), "--json", "--no-record")

    out = done.json_lines()
    assert out[0] == {
        "line": 1,
        "error": "key 'prompt' is given twice on this line; keep the one you mean",
    }
    assert out[1]["line"] == 2 and "key 'limit' is given twice" in out[1]["error"]
    assert out[2]["results"][0]["id"] == seeded["a"]
    assert done.code == 2
