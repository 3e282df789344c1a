"""What matters for an edit wins a tie: with equal file evidence, a gotcha or a decision comes
before context notes, and a memory acted on before one never acted on.

The issue's case, through the real CLI: thirty context notes imported at once on a file, then
one gotcha written on it; ``tether recall -f`` that file must show the gotcha at the top, not
thirty notes that share the file's earliest moment (none of them is its origin).
"""

from __future__ import annotations

import json

from recall.ranking import channels as ch
from recall.ranking import weights as W
from recall.ranking.ties import tie_key

from .test_cli_recall import tether
from .world import World

PATH = "src/parser.py"


def _thirty_notes_and_a_gotcha(world: World) -> tuple[list[str], str]:
    world.history([[PATH]])
    world.close()
    notes = "\n".join(
        json.dumps(
            {
                "summary": f"context note {n} about the parser",
                "category": "context",
                "files": [PATH],
            }
        )
        for n in range(30)
    )
    done = tether(world, "import", "-", "--json", stdin=notes)
    assert done.code == 0, done.stderr
    context = [json.loads(line)["id"] for line in done.stdout.splitlines()]
    done = tether(
        world, "remember", "-c", "gotcha", "never parse one buffer twice", "-f", PATH, "--json"
    )
    assert done.code == 0, done.stderr
    return context, done.json()["id"]


def _recalled(world: World, *args: str) -> list[dict[str, object]]:
    done = tether(world, "recall", "-f", PATH, "--json", "--no-record", *args)
    assert done.code == 0, done.stderr
    return done.json()["results"]


def test_a_new_gotcha_comes_before_thirty_context_notes_on_its_file(world: World) -> None:
    context, gotcha = _thirty_notes_and_a_gotcha(world)
    results = _recalled(world)
    assert results[0]["id"] == gotcha, [(r["id"], r["category"], r["score"]) for r in results]
    assert {r["id"] for r in results[1:]} <= set(context)


def test_a_note_acted_on_comes_before_the_notes_never_acted_on(world: World) -> None:
    context, _gotcha = _thirty_notes_and_a_gotcha(world)
    last = context[-1]  # indexed last: without the action it ranks behind the other notes
    assert tether(world, "show", last, "--json").code == 0  # reading its details is acting
    ranked = [r["id"] for r in _recalled(world, "--limit", "40")]
    assert ranked.index(last) < min(ranked.index(other) for other in context[:-1])


def test_equal_file_evidence_ranks_review_kinds_first_then_by_row() -> None:
    scored = {
        1: (0.3, 0.3, "", 1.0),
        2: (0.3, 0.3, "", 1.0),
        3: (0.3, 0.3, "", 1.0),
        4: (0.5, 0.5, "", 1.0),
    }
    ties = {
        rowid: tie_key(kind, "2026-05-01T12:00:00+00:00")
        for rowid, kind in ((1, "context"), (2, "decision"), (3, "gotcha"), (4, "context"))
    }
    ranked = ch.ranked(scored, ties)
    # evidence first (4), then the review kinds in row order, then the context note
    assert sorted(ranked, key=lambda rowid: ranked[rowid].rank) == [4, 2, 3, 1]


def test_review_kinds_and_the_origin_tie_rule_are_pinned() -> None:
    assert {"gotcha", "decision", "rejected"} == set(W.REVIEW_KINDS)
    assert W.ORIGIN_MAX_TIED == 20
