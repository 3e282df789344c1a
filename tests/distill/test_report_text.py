"""What ``tether distill`` shows of a commit's text and of its skips: a refused credential never
echoed, a summary another memory holds not written twice, the commit's words kept as written,
each skip giving its true reason."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

from .conftest import History

Cli = Callable[..., CliResult]

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.mark.parametrize("dry", [True, False])
def test_a_refused_credential_is_not_echoed_in_the_report_and_the_advice_can_be_followed(
    cli: Cli, history: History, dry: bool
) -> None:
    start = history.head()
    sha = history.commit(f"must rotate {TOKEN} weekly", "src/app.py")
    flags = ("--dry-run",) if dry else ()
    text = cli("distill", "--since", start, *flags)
    assert text.code == 1, text
    assert TOKEN not in text.stdout + text.stderr
    assert sha[:7] in text.stdout and "GitHub token" in text.stdout
    assert "--allow-secret" not in text.stdout or "tether remember" in text.stdout
    data = cli("distill", "--since", start, *flags, "--json")
    assert TOKEN not in data.stdout + data.stderr
    (skipped,) = data.json()["skipped"]
    assert TOKEN not in json.dumps(skipped)
    assert "tether remember" in skipped["reason"] and f"git show {sha[:7]}" in skipped["reason"]


def test_a_proposal_whose_summary_a_memory_already_has_is_skipped_naming_it(
    cli: Cli, history: History
) -> None:
    held = cli(
        "remember",
        "Never retry the upload on 409",
        "--category",
        "gotcha",
        "--file",
        "src/app.py",
        "--details",
        "The server already stored it.",
        "--json",
    )
    assert held.code == 0, held
    held_id = held.json()["id"]
    start = history.head()
    history.commit("Never retry the upload on 409", "src/app.py")
    result = cli("distill", "--since", start, "--json")
    assert result.code == 1, result
    report = result.json()
    assert report["written"] == []
    (skipped,) = report["skipped"]
    assert held_id in skipped["reason"] and "summary" in skipped["reason"]


def test_two_commits_of_one_summary_give_one_proposal_on_a_dry_run(
    cli: Cli, history: History
) -> None:
    start = history.head()
    history.commit("Never retry the upload on 409", "src/app.py")
    history.commit("Never retry the upload on 409\n\nIt must not run twice.", "src/util.py")
    report = cli("distill", "--since", start, "--dry-run", "--json").json()
    assert [o["summary"] for o in report["written"]] == ["Never retry the upload on 409"]
    assert "already has this summary" in report["skipped"][0]["reason"]


def test_curly_apostrophes_are_kept_as_the_commit_wrote_them(cli: Cli, history: History) -> None:
    start = history.head()
    history.commit(
        "Don\u2019t retry on 409\n\nThe server\u2019s answer is final, so never retry it.",
        "src/app.py",
    )
    report = cli("distill", "--since", start, "--json").json()
    (written,) = report["written"]
    assert written["summary"] == "Don\u2019t retry on 409"
    shown = cli("show", written["id"], "--json").json()
    assert shown["details"] == "The server\u2019s answer is final, so never retry it."


def test_a_feature_commit_with_only_a_decision_word_says_why_it_is_skipped(
    cli: Cli, history: History
) -> None:
    start = history.head()
    history.commit("feat!: drop python 3.8 support rather than patching", "src/app.py")
    report = cli("distill", "--since", start, "--json").json()
    (skipped,) = report["skipped"]
    assert skipped["reason"].startswith("a feature commit")
    assert "no durable knowledge" not in skipped["reason"]


def test_the_cap_of_a_since_run_is_not_called_a_session_cap(cli: Cli, history: History) -> None:
    start = history.head()
    for n in range(4):
        history.commit(f"Never call flush() from handler {n}", f"src/f{n}.py")
    report = cli("distill", "--since", start, "--json").json()
    assert len(report["written"]) == 3
    (skipped,) = report["skipped"]
    assert "per session" not in skipped["reason"]
    assert "distill_max" in skipped["reason"]


def _git_running_another_distill(folder: Path) -> dict[str, str]:
    """PATH with a ``git`` that, the first time it is asked for a log, runs a whole other
    ``tether distill`` first: a second run reading the same commits at the same moment."""
    real = next(
        Path(p) / "git"
        for p in os.environ["PATH"].split(os.pathsep)
        if (Path(p) / "git").is_file() and os.access(Path(p) / "git", os.X_OK)
    )
    once = folder / "ran"
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" log "*) if [ ! -e "{once}" ]; then : > "{once}"; '
        f'"{sys.executable}" -m recall distill --json > /dev/null 2>&1; fi;; esac\n'
        f'exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_a_run_that_lost_its_commits_to_another_says_so_in_its_json_notices(
    cli: Cli, history: History, tmp_path: Path
) -> None:
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    assert cli("distill", "--since", start).code == 0  # leaves a mark to read on from
    history.commit("Always close the upload handle", "src/util.py")
    folder = tmp_path / "bin"
    folder.mkdir()
    result = cli("distill", "--json", env=_git_running_another_distill(folder))
    assert (folder / "ran").exists()
    notices = result.json()["notices"]
    assert any("another Tether run" in n for n in notices), result
    assert "another Tether run" in result.stderr
