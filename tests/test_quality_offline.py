"""The offline reorder of dumped recall candidates: it reproduces the engine's order, scores
a feature against the keep rule, and names the dump line it cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import quality_offline as offline
from bench.quality_features import FEATURES

TASK_DATE = "2024-03-01T12:00:00+00:00"
TASK_TS = 1709294400  # TASK_DATE


def _commit(idx: int, days_before: float, subject: str) -> dict[str, object]:
    return {
        "idx": idx,
        "sha": f"{idx + 1:02d}" * 20,
        "date": "2023-01-01T00:00:00+00:00",
        "ts": TASK_TS - days_before * 86400,
        "subject": subject,
        "body": "",
        "files": ["src/a.c"],
        "renames": [],
        "deleted": [],
    }


def _history(root: Path) -> Path:
    """A history of four memories on one file, the last one a day before the task."""
    folder = root / "hist"
    folder.mkdir(parents=True)
    commits = [
        _commit(0, 400, "a: add the parser"),
        _commit(1, 300, "a: tidy the parser"),
        _commit(2, 200, "a: rename the parser"),
        _commit(3, 1, "a: cache the parsed table"),
    ]
    task = {
        "task_sha": "ff" * 20,
        "task_idx": 4,
        "date": TASK_DATE,
        "prompt": "a: fix the stale cached table",
        "touched": ["src/a.c"],
        "relevant": [commits[3]["sha"]],
        "relevant_idx": [3],
        "kind": "fixes",
        "resolved_by": "sha",
        "split": "pre_cut",
    }
    (folder / "commits.jsonl").write_text("".join(json.dumps(c) + "\n" for c in commits))
    (folder / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    return root


def _dump(path: Path, ids: list[str], scores: list[float], relevant: str) -> Path:
    row = {
        "history": "hist",
        "task": "ff" * 20,
        "candidates": [
            {"id": i, "relevant": i == relevant, "signals": {"file": s}}
            for i, s in zip(ids, scores, strict=True)
        ],
    }
    path.write_text(json.dumps(row) + "\n")
    return path


def test_the_engine_order_is_kept_and_a_feature_that_lifts_the_relevant_one_is_kept(
    tmp_path: Path,
) -> None:
    data = _history(tmp_path / "data")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3, 4)]
    dump = _dump(tmp_path / "dump.jsonl", ids, [0.300, 0.295, 0.290, 0.285], ids[3])

    tasks, histories = offline.read_dump([dump], data)

    assert offline.hit3(tasks) == {"hist": 0.0}  # the relevant memory ranks fourth
    extra = [FEATURES["fresh_memory"](histories[t.history], t) for t in tasks]
    assert extra[0][3] > 0.9 > 0.01 > extra[0][0]
    rows = offline.compare(tasks, extra, [0.001, 0.01])
    assert [(strength, moved, kept) for strength, _, moved, kept in rows] == [
        (0.001, 0.0, False),
        (0.01, 1.0, True),
    ]
    assert offline.leave_one_out(tasks, extra, [0.01]) == {}  # one history: nothing to choose on


def test_a_candidate_past_the_spread_scoring_above_one_before_it_keeps_its_place(
    tmp_path: Path,
) -> None:
    """Past the engine's spread over files, a candidate may score above one placed before it;
    the engine's order is the dump's, so the relevant one fourth stays fourth."""
    data = _history(tmp_path / "data")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3, 4)]
    dump = _dump(tmp_path / "dump.jsonl", ids, [0.300, 0.280, 0.270, 0.285], ids[3])
    tasks, _histories = offline.read_dump([dump], data)
    assert offline.hit3(tasks) == {"hist": 0.0}


def test_a_dump_line_naming_no_commit_of_the_history_is_named(tmp_path: Path) -> None:
    data = _history(tmp_path / "data")
    dump = _dump(tmp_path / "dump.jsonl", ["01010101", "deadbeef"], [0.3, 0.2], "deadbeef")

    with pytest.raises(SystemExit, match=r"dump\.jsonl:1: memory deadbeef is no commit of hist"):
        offline.read_dump([dump], data)


def test_every_feature_gives_one_value_per_candidate(tmp_path: Path) -> None:
    data = _history(tmp_path / "data")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3, 4)]
    dump = _dump(tmp_path / "dump.jsonl", ids, [0.300, 0.295, 0.290, 0.285], ids[3])
    tasks, histories = offline.read_dump([dump], data)

    for name, feature in FEATURES.items():
        values = feature(histories["hist"], tasks[0])
        assert len(values) == 4, name


def test_a_change_that_renamed_files_is_a_move(tmp_path: Path) -> None:
    data = _history(tmp_path / "data")
    lines = (data / "hist" / "commits.jsonl").read_text().splitlines()
    moved = json.loads(lines[2])
    moved["renames"] = [["src/old.c", "src/a.c"]]
    lines[2] = json.dumps(moved)
    (data / "hist" / "commits.jsonl").write_text("\n".join(lines) + "\n")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3, 4)]
    dump = _dump(tmp_path / "dump.jsonl", ids, [0.300, 0.295, 0.290, 0.285], ids[3])
    tasks, histories = offline.read_dump([dump], data)

    assert list(FEATURES["moves_files"](histories["hist"], tasks[0])) == [0.0, 0.0, 1.0, 0.0]


def _task(relevant_at: int | None, count: int, signals: dict[str, float], *, complete: bool):
    import numpy as np

    relevant = np.zeros(count, dtype=bool)
    if relevant_at is not None:
        relevant[relevant_at] = True
    return offline.Task(
        "hist",
        {},
        list(range(count)),
        [dict(signals) for _ in range(count)],
        np.zeros(count),
        relevant,
        complete,
    )


def test_reach_tells_a_deep_candidate_by_its_channel_from_a_memory_no_channel_found() -> None:
    assert offline.reach(_task(2, 60, {"file": 0.3}, complete=True)) == "top 3"
    assert offline.reach(_task(3, 60, {"file": 0.3}, complete=True)) == "4-50"
    assert offline.reach(_task(55, 60, {"file": 0.3}, complete=True)) == (
        "past 50, on a touched file"
    )
    assert offline.reach(_task(55, 60, {"cochange": 0.05}, complete=True)) == "past 50, co-change"
    assert offline.reach(_task(55, 60, {"words": 0.1}, complete=True)) == (
        "past 50, text or semantic only"
    )
    assert offline.reach(_task(None, 60, {"file": 0.3}, complete=True)) == "no channel found it"
    assert offline.reach(_task(None, 50, {"file": 0.3}, complete=False)) == (
        "past the dump's depth"
    )


def test_a_dump_line_says_whether_it_holds_every_candidate(tmp_path: Path) -> None:
    data = _history(tmp_path / "data")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3)]
    dump = _dump(tmp_path / "dump.jsonl", ids, [0.3, 0.2, 0.1], "deadbeef")
    row = json.loads(dump.read_text())
    (tmp_path / "complete.jsonl").write_text(json.dumps({**row, "complete": True}) + "\n")

    old, _ = offline.read_dump([dump], data)  # a line written before the field: not complete
    new, _ = offline.read_dump([tmp_path / "complete.jsonl"], data)

    assert [offline.reach(t) for t in (*old, *new)] == [
        "past the dump's depth",
        "no channel found it",
    ]


def test_a_dump_depth_below_one_is_refused_naming_the_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench import quality

    with pytest.raises(SystemExit):
        quality.main(["--tune", "--dump-depth", "0"])
    assert "--dump-depth 0: give at least 1 candidate per task" in capsys.readouterr().err


def test_identifiers_and_lead_words_of_subjects() -> None:
    from bench.quality_features import identifiers, subject_verb

    assert identifiers("devlink: always check strslashrsplit() return value") == {"strslashrsplit"}
    assert identifiers("core: fix icache_inv_user_range() in NMDeviceWifi") == {
        "icache_inv_user_range",
        "nmdevicewifi",
    }
    assert identifiers("ip: fix the route table") == set()
    assert subject_verb("tc: flower: Fix incorrect error msg") == "fix"


def test_a_series_shares_its_word_match_and_the_touched_files_words_are_ranked(
    tmp_path: Path,
) -> None:
    """The last two memories of the fixture are 100 and 199 days apart from their
    neighbours; moved a day apart, they are one series and share the better word score."""
    data = _history(tmp_path / "data")
    lines = (data / "hist" / "commits.jsonl").read_text().splitlines()
    near = json.loads(lines[2])
    near["ts"] = json.loads(lines[3])["ts"] - 86400
    lines[2] = json.dumps(near)
    (data / "hist" / "commits.jsonl").write_text("\n".join(lines) + "\n")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3, 4)]
    row = {
        "history": "hist",
        "task": "ff" * 20,
        "candidates": [
            {"id": i, "relevant": False, "signals": {"file": 0.3, "words": w}}
            for i, w in zip(ids, [0.0, 0.02, 0.01, 0.08], strict=True)
        ],
    }
    (tmp_path / "dump.jsonl").write_text(json.dumps(row) + "\n")
    tasks, histories = offline.read_dump([tmp_path / "dump.jsonl"], data)
    history, task = histories["hist"], tasks[0]

    assert list(FEATURES["series_words"](history, task)) == [0.0, 0.0, 0.08, 0.01]
    assert list(FEATURES["series_words_gap"](history, task)) == [0.0, 0.0, 0.07, 0.0]
    assert list(FEATURES["file_words_rank"](history, task)) == [0.0, 0.5, 0.25, 1.0]
    assert list(FEATURES["file_words_share"](history, task)) == [0.0, 0.25, 0.125, 1.0]


def test_a_memory_repaired_soon_after_on_its_file_counts_its_follow_up_fixes(
    tmp_path: Path,
) -> None:
    """The fixture's second memory is followed ten days later by a repair on its file; the
    repair names the lexer, not the parser its summary names."""
    import math

    data = _history(tmp_path / "data")
    lines = (data / "hist" / "commits.jsonl").read_text().splitlines()
    fix = json.loads(lines[2])
    fix["ts"] = json.loads(lines[1])["ts"] + 10 * 86400
    fix["subject"] = "a: fix the lexer"
    lines[2] = json.dumps(fix)
    (data / "hist" / "commits.jsonl").write_text("\n".join(lines) + "\n")
    ids = [f"{n:02d}" * 4 for n in (1, 2, 3, 4)]
    dump = _dump(tmp_path / "dump.jsonl", ids, [0.300, 0.295, 0.290, 0.285], ids[3])
    tasks, histories = offline.read_dump([dump], data)

    assert list(FEATURES["fixed_after"](histories["hist"], tasks[0])) == [0, math.log(2), 0, 0]
    assert list(FEATURES["fixed_after_same_words"](histories["hist"], tasks[0])) == [0, 0, 0, 0]


def test_the_gathering_ceiling_counts_misses_a_memory_off_the_files_could_reach(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Of two tasks whose relevant memory no channel found, only the one whose third
    candidate scores under the best score off the touched files could be lifted."""
    import numpy as np

    low = _task(None, 60, {"file": 0.3}, complete=True)
    low.base = np.full(60, 0.2)
    high = _task(None, 60, {"file": 0.3}, complete=True)
    high.base = np.full(60, 0.5)
    off = _task(0, 60, {"words": 0.1}, complete=True)
    off.base = np.full(60, 0.25)

    offline.print_gathering_ceiling([low, high, off])

    assert "hist                2    1  (best off the files 0.250)" in capsys.readouterr().out


def test_a_commit_subject_or_body_with_a_control_byte_is_imported_without_it() -> None:
    from bench.quality_session import memory_line
    from recall.text_checks import check_details, check_summary

    line = json.loads(
        memory_line(
            {
                "subject": "ifcfg-rh: parse\x8d the key",
                "body": "a\x1b[0m body\tand\r\nlines",
                "files": ["src/a.c"],
                "date": TASK_DATE,
                "sha": "ab" * 20,
            }
        )
    )

    assert check_summary(line["summary"]) == "ifcfg-rh: parse  the key"
    assert check_details(line["details"]) == "a [0m body\tand\r\nlines"
