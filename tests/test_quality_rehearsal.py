"""The eval protocol rehearsed on pre-cut tasks: which tasks a store frozen early can answer."""

from __future__ import annotations

import argparse

import pytest

from bench.quality import _fractions
from bench.quality_rehearsal import rehearsal_cut, rehearsal_tasks


def _task(idx: int, relevant: list[int], split: str = "pre_cut") -> dict[str, object]:
    return {"task_sha": f"t{idx}", "task_idx": idx, "relevant_idx": relevant, "split": split}


def test_a_rehearsal_takes_pre_cut_tasks_after_its_cut_that_go_back_before_it() -> None:
    tasks = [
        _task(90, [10]),  # after the cut, relevant before: taken
        _task(70, [55]),  # after the cut, relevant before: taken
        _task(95, [85]),  # its only relevant commit is after the cut: a frozen store lacks it
        _task(50, [10]),  # before the cut: the store would hold memories newer than it
        _task(120, [20], split="eval"),  # eval tasks are never rehearsed
        _task(80, [75, 30]),  # one relevant commit before the cut is enough
    ]
    chosen = rehearsal_tasks(tasks, cut=60)
    assert [t["task_idx"] for t in chosen] == [70, 80, 90]


def test_the_task_at_the_cut_itself_is_rehearsed() -> None:
    assert [t["task_idx"] for t in rehearsal_tasks([_task(60, [59])], cut=60)] == [60]


def test_the_rehearsal_cut_is_a_fraction_of_the_real_one() -> None:
    assert rehearsal_cut({"cut_idx": 5194}, 0.8) == 4155
    with pytest.raises(ValueError, match="between 0 and 1"):
        rehearsal_cut({"cut_idx": 5194}, 1.0)


def test_the_fractions_option_names_what_is_wrong() -> None:
    assert _fractions("0.6,0.8") == [0.6, 0.8]
    with pytest.raises(argparse.ArgumentTypeError, match="between 0 and 1"):
        _fractions("0.6,1.2")
    with pytest.raises(argparse.ArgumentTypeError, match="expected numbers"):
        _fractions("0.6,most")


def test_the_two_tuning_protocols_are_not_asked_together(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench import quality

    with pytest.raises(SystemExit):
        quality.main(["--tune", "--rehearse", "0.8", "--history", "iproute2"])
    assert "--tune and --rehearse" in capsys.readouterr().err
