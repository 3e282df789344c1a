"""A tuning variant of the ranking's constants is really ranked with them.

The engine keeps each set of touched files' file channel for its index state, so a variant
recalled after the shipped constants on the same files was served the shipped channel: its
file constants (origin, rarity, newest bonus) changed nothing. The quality benchmark now asks
for each variant's recall afresh.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench.quality import _variant
from bench.quality_session import Session, patched
from bench.replay import replay_records

PATH = "src/parse.c"


def _commit(idx: int, subject: str) -> dict[str, object]:
    day = f"2020-01-{idx + 1:02d}T12:00:00+00:00"
    return {
        "idx": idx,
        "sha": f"{idx + 1:040x}",
        "date": day,
        "ts": 1577880000 + idx * 86400,
        "subject": subject,
        "body": "",
        "files": [PATH],
        "renames": [],
        "deleted": [],
    }


def _file_signal(session: Session, memory_id: str, *, afresh: bool) -> float:
    hits = session.recall("", [PATH], afresh=afresh)
    return next(h.signals["file"] for h in hits if h.memory.id == memory_id)


def test_a_variant_of_a_file_constant_ranks_with_its_own_value(tmp_path: Path) -> None:
    commits = [_commit(0, "add the parser"), _commit(1, "parser: speed up"), _commit(2, "tidy")]
    repo = replay_records(commits, tmp_path / "repo")
    session = Session(repo, tmp_path / "home", fresh=True)
    try:
        session.import_commits(commits)
        session.at(2)
        origin = session.id_of_sha[str(commits[0]["sha"])]
        shipped = _file_signal(session, origin, afresh=True)
        with patched({"ORIGIN_BONUS": 0.5}):
            varied = _file_signal(session, origin, afresh=True)
        again = _file_signal(session, origin, afresh=True)
    finally:
        session.close()
    assert varied > shipped + 0.4  # the first memory on the file is its origin
    assert again == shipped


def test_a_variant_value_may_hold_commas() -> None:
    weights = 'w:CHANNEL_WEIGHTS={"file": 1.0, "words": 1.5},FUNCTION_WORDS=(),RRF_K=30'
    assert _variant(weights) == (
        "w",
        {"CHANNEL_WEIGHTS": {"file": 1.0, "words": 1.5}, "FUNCTION_WORDS": (), "RRF_K": 30},
    )
    assert _variant("shipped:") == ("shipped", {})
    with pytest.raises(argparse.ArgumentTypeError, match="'bar' is not a Python literal"):
        _variant("x:FOO=bar")
    with pytest.raises(argparse.ArgumentTypeError, match="expected CONST=VALUE"):
        _variant("x:FOO")
