"""The learned ranker: one weight per signal, fitted deterministically, off unless chosen.

Its weights file is read and checked; turned on, each signal's contribution is multiplied by
its weight (the score is still the sum of the signals shown) and the receipt still names the
channels that carried the hit; the fit gives the same weights for the same dump and weighs
up a signal that tells relevant candidates apart.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from recall.errors import BadInput
from recall.ranking import fit_learned, learned
from recall.ranking import weights as W

from .world import World, hit_of


def test_the_shipped_weights_file_is_readable_and_names_learned_signals_only() -> None:
    weights = learned.read_weights(learned.WEIGHTS_FILE)

    assert set(weights) == set(fit_learned.LEARNED)
    assert all(value >= 0 for value in weights.values())


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "cannot read"),
        ('{"weights": [1, 2]}', "no 'weights' object"),
        ('{"weights": {"file": -1}}', "'file' must be a number >= 0"),
        ('{"weights": {"file": "high"}}', "'file' must be a number >= 0"),
    ],
)
def test_a_bad_weights_file_is_named_with_what_is_wrong(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "weights.json"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(BadInput, match=says) as raised:
        learned.read_weights(path)
    assert str(path) in str(raised.value)


def test_the_learned_ranker_is_off() -> None:
    # leave-one-history-out: weights fitted on three histories lowered the fourth's pre-cut
    # hit@3 (iproute2 -0.020, rdma-core -0.036); the hand-set scales rank
    assert W.LEARNED_RANKER is False


def test_off_every_signal_keeps_its_hand_set_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(W, "LEARNED_RANKER", False)

    assert all(learned.weight(name) == 1.0 for name in (*fit_learned.LEARNED, "pinned"))
    assert learned.reach({"recency": 0.04, "module": 0.025}) == pytest.approx(0.065)


def test_on_each_signal_is_weighed_and_the_receipt_is_unchanged(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.history([["net/retry.c", "net/other.c"]])
    wanted = world.remember("retry with exponential backoff", "net/retry.c")
    world.remember("other note about queues", "net/other.c")
    monkeypatch.setattr(W, "LEARNED_RANKER", False)
    before = hit_of(world.recall("net/retry.c", prompt="backoff"), wanted)

    shipped = learned.read_weights(learned.WEIGHTS_FILE)
    monkeypatch.setattr(W, "LEARNED_RANKER", True)
    after = hit_of(world.recall("net/retry.c", prompt="backoff"), wanted)

    assert after.receipt == before.receipt
    assert set(after.signals) == {name for name in before.signals if shipped.get(name, 1.0)}
    for name, value in after.signals.items():
        assert value == pytest.approx(before.signals[name] * shipped.get(name, 1.0))
    assert after.score == pytest.approx(sum(after.signals.values()))
    assert learned.reach({"pinned": 0.1}) == pytest.approx(0.1)  # no pins to learn from


def dump_line(history: str, task: int, candidates: list[tuple[bool, dict[str, float]]]) -> str:
    """One line as ``bench.quality --tune --dump`` writes it."""
    return json.dumps(
        {
            "history": history,
            "task": f"t{task}",
            "candidates": [
                {"id": f"m{n}", "relevant": good, "signals": signals}
                for n, (good, signals) in enumerate(candidates)
            ],
        }
    )


def synthetic_dump(path: Path) -> Path:
    """Tasks of three histories where recency, not the file magnitude, tells the relevant
    candidate apart: the hand-set order puts it second or third, behind a bigger file hit."""
    lines = []
    for history in ("h1", "h2", "h3"):
        for task in range(12):
            stale = 0.01 + 0.001 * (task % 3)
            lines.append(
                dump_line(
                    history,
                    task,
                    [
                        (False, {"file": 0.30, "recency": stale}),
                        (False, {"file": 0.29, "recency": stale}),
                        (False, {"file": 0.29, "recency": stale / 2}),
                        (True, {"file": 0.28, "recency": 0.04}),
                        (False, {"file": 0.25}),
                    ],
                )
            )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_fit_weighs_up_the_signal_that_tells_relevant_apart_and_is_deterministic(
    tmp_path: Path,
) -> None:
    tasks = fit_learned.read_dump([synthetic_dump(tmp_path / "dump.jsonl")])

    first = fit_learned.fit(tasks, 50.0, 0.1)
    again = fit_learned.fit(fit_learned.read_dump([tmp_path / "dump.jsonl"]), 50.0, 0.1)

    assert first == again
    assert first["recency"] > 1.0
    assert fit_learned.hit3(tasks, None) == 0.0
    assert fit_learned.hit3(tasks, first) == 1.0
    assert all(math.isfinite(value) and value >= 0 for value in first.values())


def test_the_script_reports_leave_one_history_out_and_writes_the_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = synthetic_dump(tmp_path / "dump.jsonl")
    out = tmp_path / "weights.json"

    assert fit_learned.main([str(dump), "--write", "--out", str(out)]) == 0

    printed = capsys.readouterr().out
    assert "| h1 | 12 | 0.000 | 1.000 |" in printed
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [row["history"] for row in written["leave_one_history_out"]] == ["h1", "h2", "h3"]
    assert learned.read_weights(out) == written["weights"]


def test_a_line_that_is_not_a_dump_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text(dump_line("h1", 0, [(True, {"file": 0.3})]) + "\n[1]\n", encoding="utf-8")

    with pytest.raises(SystemExit, match=r"dump.jsonl:2: not a line of bench.quality --dump"):
        fit_learned.read_dump([path])
