"""The hint policy: the exact turn a memory goes quiet and returns, the budget, pinned memories
piercing it, self-serve silence, and the state shared through the index."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from recall.index import db
from recall.policy import hints
from recall.policy.hints import Candidate, HintLedger, Mark, Policy, SessionState, choose
from recall.policy.sessions import count_turn


def test_constants_pinned_to_the_spec() -> None:
    assert hints.QUIET_TURNS == 10
    assert hints.SESSION_BUDGET == 15
    assert Policy() == Policy(quiet_turns=10, budget=15)


def test_shown_again_in_its_own_turn_then_quiet_for_ten_turns() -> None:
    marks = {"a": Mark(turn=3)}
    for turn, expected in [(3, ("a",)), (4, ()), (13, ()), (14, ("a",))]:
        choice = choose(SessionState(turn=turn, marks=marks), [Candidate("a")])
        assert choice.shown == expected, turn
    same_turn = choose(SessionState(turn=3, marks=marks), [Candidate("a")])
    assert same_turn.new == ()  # re-showing in the same turn is not a new surfacing
    back = choose(SessionState(turn=14, marks=marks), [Candidate("a")])
    assert back.new == ("a",)


def test_budget_caps_new_hints_and_pinned_pierce_it() -> None:
    state = SessionState(turn=0, spent=14)
    choice = choose(state, [Candidate("a"), Candidate("b"), Candidate("p", pinned=True)])
    assert choice.shown == ("a", "p")
    assert choice.spent == 15  # the pinned one did not spend the budget
    over = choose(SessionState(turn=1, spent=15), [Candidate("c"), Candidate("q", pinned=True)])
    assert over.shown == ("q",)


def test_pinned_still_keep_their_quiet_period() -> None:
    state = SessionState(turn=5, marks={"p": Mark(turn=1)})
    assert choose(state, [Candidate("p", pinned=True)]).shown == ()


def test_self_serve_silences_everything() -> None:
    state = SessionState(turn=2, self_serve=True, marks={"a": Mark(turn=2)})
    assert choose(state, [Candidate("a"), Candidate("p", pinned=True)]).shown == ()


def test_dismissed_is_hidden_for_the_rest_of_its_turn() -> None:
    state = SessionState(turn=2, marks={"a": Mark(turn=2, dismissed=True)})
    assert choose(state, [Candidate("a")]).shown == ()
    assert choose(SessionState(turn=13, marks=state.marks), [Candidate("a")]).shown == ("a",)


@pytest.mark.parametrize(
    ("command", "from_hint", "expected"),
    [
        ("recall", False, True),
        ("show", False, True),
        ("remember", False, True),
        ("show", True, False),
        ("pin", False, False),
        ("supersede", False, False),
        ("markFollowed", False, False),
    ],
)
def test_which_commands_are_self_serve(command: str, from_hint: bool, expected: bool) -> None:
    assert hints.is_self_serve(command, from_hint=from_hint) is expected


def index(path: Path) -> sqlite3.Connection:
    """An index database with Tether's schema (the ``sessions`` table among it)."""
    conn, _ = db.open_checked(path)
    return conn


def test_ledger_state_is_shared_through_the_index(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    server = index(path)
    hook = index(path)  # the CLI, in another process
    ledger = HintLedger("s1", origin="lsp", policy=Policy(quiet_turns=2, budget=1))
    first = ledger.select(server, [Candidate("a"), Candidate("b")])
    assert first.shown == ("a",) and first.new == ("a",)
    assert ledger.select(server, [Candidate("a")]).new == ()  # same turn: no new surfacing

    other = HintLedger("s1", origin="hook", policy=Policy(quiet_turns=2, budget=1))
    assert other.state(hook).spent == 1
    for expected_turn in (1, 2, 3):
        assert other.next_turn(hook) == expected_turn
    assert count_turn(hook, "s1") == 4  # `tether recall --session s1` counts the same turns
    assert ledger.state(server).turn == 4
    assert ledger.select(server, [Candidate("a")]).shown == ()  # budget spent
    assert ledger.select(server, [Candidate("p", pinned=True)]).shown == ("p",)

    other.mark_self_serve(hook)
    assert ledger.mark_self_serve(server) is False  # already on
    assert ledger.select(server, [Candidate("p", pinned=True)]).shown == ()
    assert HintLedger("s2").select(server, [Candidate("a")]).shown == ("a",)  # sessions apart


def test_dismiss_in_the_ledger(tmp_path: Path) -> None:
    conn = index(tmp_path / "index.db")
    ledger = HintLedger("s", policy=Policy(quiet_turns=1))
    assert ledger.select(conn, [Candidate("a")]).shown == ("a",)
    ledger.dismiss(conn, "a")
    assert ledger.select(conn, [Candidate("a")]).shown == ()
    ledger.next_turn(conn)
    assert ledger.select(conn, [Candidate("a")]).shown == ()  # quiet for one turn
    ledger.next_turn(conn)
    assert ledger.select(conn, [Candidate("a")]).shown == ("a",)
