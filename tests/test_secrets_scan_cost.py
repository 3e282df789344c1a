"""The credential scan's work grows with the length of a text, not with its square.

A memory file holding 64 KB of ``AKIA`` (or of ``eyJ``, or thousands of assignments on one line)
made the scan give every match the rest of its line to read again, so the hooks, which index a
changed memory file before they answer, ran past the agent's timeout and no guard ever asked.
The work is counted where it can be (the characters the placeholder check reads); where it is
done inside a regex, the rewritten pattern is held to the one it replaces on generated texts,
and a text is scanned that the square of its length could not be within any test run.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from conftest import git, run_tether
from detect_secrets.filters import heuristic
from detect_secrets.plugins.jwt import JwtTokenDetector
from hypothesis import given, settings
from hypothesis import strategies as st

from recall import hooks, secret_rules, secrets_scan
from recall.secret_places import REPLACED_PATTERNS, LinePlaces
from tests.test_hooks import edit_input

AWS_KEY = "AKIA" + "IOSFODNN7ABCDEFG"  # made up; joined so no scanner trips on this file

LONG_LINES = {
    "a run of AKIA": "AKIA" * 16_000,
    "a run of AKIA ending as AWS's example key": "AKIA" * 16_000 + "EXAMPLE",
    "access key ids run together": "".join(f"AKIA{n:016d}" for n in range(3_200)),
    "a run of ghp_": "ghp_" * 16_000,
    "GitHub tokens run together": "".join(f"ghp_{n:036d}" for n in range(1_600)),
    "a key then 64 KB of full stops": AWS_KEY + "." * 65_000,
    "ghp_ then 64 KB of x": "ghp_" + "x" * 65_000,
}


@pytest.fixture
def placeholder_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each value the scan gives its placeholder check."""
    reads: list[int] = []
    real = secrets_scan._scanner()

    def counted(value: str) -> bool:
        reads.append(len(value))
        return real.placeholder(value)

    counting = dataclasses.replace(real, placeholder=counted)
    monkeypatch.setattr(secrets_scan, "_scanner", lambda: counting)
    return reads


@pytest.mark.parametrize("text", LONG_LINES.values(), ids=list(LONG_LINES))
def test_a_long_line_is_read_by_the_placeholder_check_a_bounded_number_of_times(
    text: str, placeholder_reads: list[int]
) -> None:
    found = secrets_scan.scan(text)
    assert found  # a 64 KB token of a vendor's shape is masked, never judged a placeholder
    assert sum(placeholder_reads) <= 2 * len(text)


def test_a_short_placeholder_is_still_one_and_a_long_token_never() -> None:
    assert secret_rules.is_placeholder("ghp_" + "x" * 36)
    assert secret_rules.is_placeholder("AKIA" + "IOSFODNN7EXAMPLE")
    assert not secret_rules.is_placeholder("ghp_" + "x" * secret_rules.PLACEHOLDER_MAX_CHARS)


def test_a_value_naming_a_credential_word_by_word_is_read_in_one_pass() -> None:
    # the word rule read the rest of the value again after each word it held: minutes for this
    assert secret_rules.looks_like_a_secret_value("password_" * 32_000 + "9", quoted=False)
    assert secret_rules.is_placeholder("my_secret_token")
    assert secret_rules.is_placeholder("db-password")
    assert not secret_rules.is_placeholder("db_secret_token9")


def test_thousands_of_assignments_on_one_line_are_each_found() -> None:
    # 10,400 assignments: each value was looked up, its name and an id searched for, from the
    # start of the line (minutes for this line); now the line is read once for each of them
    line = "".join(f'password="Abc{n:06d}xyz" ' for n in range(10_400))
    found = secrets_scan.scan(line)
    assert len(found) == 10_400
    assert found[-1].excerpt.startswith("password = ")


def test_a_long_run_of_eyj_is_scanned_and_holds_no_token() -> None:
    # detect-secrets' own JWT pattern tried each "eyJ" to the run's end: minutes for this
    assert secrets_scan.scan("eyJ" * 100_000) == []
    assert secrets_scan.scan("eyJ" * 100_000 + ".") == []


JWT_PIECES = st.lists(
    st.sampled_from(["eyJ", "eyJ", "e", "y", "J", ".", "a", "=", "-", " ", "/", "+", "9", "@"]),
    max_size=16,
).map("".join)


@given(JWT_PIECES)
@settings(max_examples=400, deadline=None)
def test_the_replaced_jwt_pattern_finds_what_detect_secrets_own_finds(text: str) -> None:
    (own,) = JwtTokenDetector.denylist
    assert REPLACED_PATTERNS["JwtTokenDetector"].findall(text) == own.findall(text)


FORWARD_NAME = re.compile(r"([A-Za-z_][\w.-]*)[\"'\]]*[ \t]*(?::=|=>|[:=])[ \t]*[\"'`]?$")
"""The name before a value as the scan matched it before: searched from the line's start."""

NAME_PIECES = st.lists(st.sampled_from(list("ab1_.-\"']: \t=>:`x9é(")), max_size=14).map("".join)


@given(NAME_PIECES)
@settings(max_examples=400, deadline=None)
def test_the_name_before_a_value_is_the_one_a_forward_search_finds(before: str) -> None:
    found = FORWARD_NAME.search(before)
    line = before + "value"
    assert LinePlaces(line).assigned_name(len(before)) == (found.group(1) if found else None)


ID_PIECES = st.lists(
    st.sampled_from(["_id", "_ids", "id", "myid", "userid", "s", "=", " ", "a", "1", "_", "I"]),
    max_size=10,
).map("".join)


@given(ID_PIECES, st.sampled_from(["Secret99", "a", "_id", "s="]))
@settings(max_examples=400, deadline=None)
def test_an_id_before_a_value_is_told_as_detect_secrets_tells_it(text: str, secret: str) -> None:
    line = text + " " + secret
    places = LinePlaces(line)
    expected = heuristic.is_likely_id_string(secret, line)
    assert places.after_an_id(secret, heuristic._get_id_detector_regex()) == expected


def test_a_guard_on_a_file_holding_64_kb_of_akia_still_asks(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "src" / "app.py").write_text("print('app')\n", encoding="utf-8")
    assert run_tether("init", cwd=repo).code == 0
    (repo / ".tether" / "memories" / "dddd0001.md").write_text(
        "---\nid: dddd0001\ncategory: decision\nfiles: [src/app.py]\nguard: true\n---\n"
        "app must not change\n\n" + "AKIA" * 16_000 + "\n",
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a memory written by hand")
    asked = json.loads(hooks.run("pre-edit", json.dumps(edit_input(repo, "src/app.py"))))
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert "AKIA" * 8 not in json.dumps(asked)  # masked
