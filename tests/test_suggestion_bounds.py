"""Closest names are looked for at a bounded cost: for the first few gone anchors and missing
files of one memory (or of one command's paths), the rest said to have none and why, and each
lookup compares only a short list of the candidates with difflib, however many a file
defines. A hand-written memory naming thousands of gone anchors or files froze ``show``, the
editor's hover and ``doctor`` for minutes."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, make_repo

from recall import closest_names
from recall.closest_names import COMPARED_NAMES, SUGGESTED_PER_MEMORY, close_names, shortlist

Cli = Callable[..., CliResult]

ANCHORS = SUGGESTED_PER_MEMORY + 3
"""Gone anchors of the memory below: three past the bound."""

BIG_PY = "".join(f"def fn_{n:02d}():\n    return {n}\n\n" for n in range(ANCHORS))
CAPPED = f"(no suggestion: over {SUGGESTED_PER_MEMORY} gone anchors in this memory)"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/big.py": BIG_PY, "src/app.py": "x = 1\n"})


def _write_memory(repo: Path, memory_id: str, front: str) -> None:
    (repo / ".tether" / "memories" / f"{memory_id}.md").write_text(
        f"---\nid: {memory_id}\ncategory: gotcha\n{front}---\nwritten by hand\n", encoding="utf-8"
    )


@pytest.fixture
def gone_anchors(cli: Cli, repo: Path) -> str:
    """A memory anchored to ``fm_NN`` in a file defining ``fn_NN``: every anchor gone, each
    one letter from a name its file defines."""
    assert cli("init").code == 0
    anchors = "".join(f"  - src/big.py::fm_{n:02d}\n" for n in range(ANCHORS))
    _write_memory(repo, "aaaa0001", f"files: [src/big.py]\nanchors:\n{anchors}")
    assert cli("index").code == 0
    return "aaaa0001"


def test_show_suggests_names_for_the_first_gone_anchors_only(cli: Cli, gone_anchors: str) -> None:
    shown = cli("show", gone_anchors, "--json")
    assert shown.code == 0, shown.stderr
    suggested = shown.json()["anchor_suggestions"]
    first = [f"src/big.py::fm_{n:02d}" for n in range(SUGGESTED_PER_MEMORY)]
    assert list(suggested) == first
    assert all(names[0] == f"fn_{n:02d}" for n, names in enumerate(suggested.values()))
    text = cli("show", gone_anchors).stdout
    for n in range(ANCHORS):
        line = next(ln for ln in text.splitlines() if f"::fm_{n:02d}:" in ln)
        if n < SUGGESTED_PER_MEMORY:
            assert f"did you mean fn_{n:02d}" in line and CAPPED not in line
        else:
            assert line.startswith(f"symbol src/big.py::fm_{n:02d}: gone {CAPPED}"), line
            assert "did you mean" not in line


def test_doctor_says_which_gone_anchors_got_no_suggestion(cli: Cli, gone_anchors: str) -> None:
    doctor = cli("doctor", "--json")
    anchors = [f for f in doctor.json() if f.get("kind") == "anchor"]
    assert len(anchors) == ANCHORS
    assert sum("anchor_suggestions" in f for f in anchors) == SUGGESTED_PER_MEMORY
    assert sum(CAPPED in f["message"] for f in anchors) == ANCHORS - SUGGESTED_PER_MEMORY


def test_doctor_suggests_names_for_the_first_missing_files_only(cli: Cli, repo: Path) -> None:
    assert cli("init").code == 0
    typos = [f"src/app{c}.py" for c in "abcdefghijklmnop"[: SUGGESTED_PER_MEMORY + 2]]
    _write_memory(repo, "aaaa0002", f"files: [{', '.join(typos)}]\n")
    doctor = cli("doctor")
    line = next(ln for ln in doctor.stdout.splitlines() if "aaaa0002" in ln)
    assert "did you mean src/app.py?" in line
    assert line.endswith(f"; 2 more with no suggestion (over {SUGGESTED_PER_MEMORY} gone files)")


def test_remember_suggests_names_for_the_first_unknown_paths_only(cli: Cli) -> None:
    typos = [f"src/app{c}.py" for c in "abcdefghijklmnop"[: SUGGESTED_PER_MEMORY + 2]]
    done = cli("remember", "typos", "-c", "gotcha", *(a for t in typos for a in ("-f", t)))
    assert done.code != 0
    said = {t: next(ln for ln in done.stderr.splitlines() if repr(t) in ln) for t in typos}
    capped = f"; no suggestion: over {SUGGESTED_PER_MEMORY} missing paths"
    for n, typo in enumerate(typos):
        if n < SUGGESTED_PER_MEMORY:
            assert said[typo].endswith("did you mean src/app.py?"), said[typo]
        else:
            assert said[typo].endswith(capped), said[typo]


def test_a_lookup_among_many_names_compares_a_short_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared: list[str] = []
    real = difflib.SequenceMatcher.set_seq1

    def counted(self: difflib.SequenceMatcher, a: str) -> None:
        if a:  # a new matcher starts with set_seq1("")
            compared.append(a)
        real(self, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted)
    names = [f"fn_{n:05d}" for n in range(30_000)] + ["load_session"]
    assert close_names("load_sesion", names)[0] == "load_session"
    found = close_names("fn_123456", names)
    assert 0 < len(compared) <= 2 * COMPARED_NAMES
    monkeypatch.undo()
    best = max(difflib.SequenceMatcher(None, n, "fn_123456").ratio() for n in names)
    assert difflib.SequenceMatcher(None, found[0], "fn_123456").ratio() == best  # no worse


def test_a_short_list_leaves_out_only_what_difflib_would_not_offer() -> None:
    names = ["ab", "abc", "abcdefgh", "a" * 40, "xyz"]
    kept = shortlist("abcd", names)
    assert kept == [
        n
        for n in names
        if difflib.SequenceMatcher(None, n, "abcd").real_quick_ratio()
        >= closest_names.SIMILARITY_CUTOFF
    ]
    assert "a" * 40 not in kept
