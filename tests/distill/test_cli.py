"""``tether distill``, ``tether pending`` and ``tether purge --auto-distilled`` as a person runs
them: the real CLI in a subprocess, a real repository, the memory files read back."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git

from recall.cli.cmd_distill import confirm
from recall.settings import user_config_path

from .conftest import History

Cli = Callable[..., CliResult]


def distill_json(cli: Cli, *args: str) -> dict:
    """``tether distill ARGS --json``, parsed (exit 0 or 1 both carry a report)."""
    result = cli("distill", *args, "--json")
    assert result.code in (0, 1), result
    return result.json()


def recalled(cli: Cli, path: str) -> list[str]:
    """Ids recall gives for an edit of ``path`` (counters untouched)."""
    result = cli("recall", "--file", path, "--json", "--no-record")
    return [item["id"] for item in result.json()["results"]]


def injected(cli: Cli, path: str) -> str:
    """The text injected for an edit of ``path``."""
    return cli("inject", "--file", path, "--json", "--no-record").json()["text"]


@pytest.fixture
def proposed(history: History, cli: Cli) -> dict[str, str]:
    """Two pending memories distilled from two commits: summary -> id."""
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    history.commit("Pick zstd because it decodes faster", "src/util.py")
    report = distill_json(cli, "--since", start)
    return {item["summary"]: item["id"] for item in report["written"]}


def test_pending_is_listed_but_never_recalled_injected_or_listed_as_active(
    cli: Cli, proposed: dict[str, str]
) -> None:
    flush = proposed["Never call flush() from the signal handler"]
    listed = cli("pending", "--json")
    assert listed.code == 0
    assert sorted(m["id"] for m in listed.json()) == sorted(proposed.values())
    assert all(m["status"] == "pending" for m in listed.json())
    assert recalled(cli, "src/app.py") == []
    assert flush not in injected(cli, "src/app.py")
    assert cli("list", "--json").code == 1  # no active memories
    assert cli("search", "flush", "--json").code == 1
    assert cli("doctor", "--json").code == 0  # pending ones are not diagnosed either
    piped = cli("pending").stdout.splitlines()  # one record per line when not on a terminal
    assert sorted(line.split("\t")[0] for line in piped) == sorted(proposed.values())
    assert all(line.split("\t")[-1] == "pending" for line in piped)


def test_confirm_makes_it_recalled(cli: Cli, history: History, proposed: dict[str, str]) -> None:
    flush = proposed["Never call flush() from the signal handler"]
    result = cli("pending", "confirm", flush)
    assert result.code == 0 and f"Confirmed {flush}" in result.stdout
    assert history.fields(flush)["status"] == "active"
    assert history.fields(flush)["source"] == "auto-distilled"  # still listed and purgeable
    assert recalled(cli, "src/app.py") == [flush]
    remaining = cli("pending", "--json").json()
    assert [m["id"] for m in remaining] == [proposed["Pick zstd because it decodes faster"]]


def test_drop_deletes_and_redistill_does_not_bring_it_back(
    cli: Cli, history: History, proposed: dict[str, str]
) -> None:
    zstd = proposed["Pick zstd because it decodes faster"]
    result = cli("pending", "drop", zstd, "--json")
    assert result.code == 0
    assert result.json()["drop"] == [{"id": zstd, "scope": "project", "status": "deleted"}]
    assert history.fields(zstd)["status"] == "deleted"
    assert zstd not in [m["id"] for m in cli("pending", "--json").json()]
    assert recalled(cli, "src/util.py") == []
    first_commit = git_first_parent(history)
    again = distill_json(cli, "--since", first_commit)
    assert again["written"] == []
    purged = cli("purge", "--yes")  # the person's own deletions go; the dropped proposal stays
    assert "1 dropped auto-distill proposal kept" in purged.stderr
    assert history.fields(zstd)["status"] == "deleted"
    assert distill_json(cli, "--since", first_commit)["written"] == []


def git_first_parent(history: History) -> str:
    """The commit before the two the fixture made."""
    return git(history.root, "rev-parse", "HEAD~2").strip()


def test_review_of_unknown_or_non_pending_ids_is_reported_per_id(
    cli: Cli, proposed: dict[str, str]
) -> None:
    flush = proposed["Never call flush() from the signal handler"]
    zstd = proposed["Pick zstd because it decodes faster"]
    assert cli("pending", "confirm", flush).code == 0
    result = cli("pending", "confirm", flush, "ffffffff", zstd)
    assert result.code == 2  # the worst of: already active (bad input), unknown (not found)
    assert f"memory {flush} is active, not pending" in result.stderr
    assert "no memory 'ffffffff' found; `tether pending` shows ids" in result.stderr
    assert f"Confirmed {zstd}" in result.stdout  # the good one was not lost to the bad ones
    assert cli("pending", "drop").code == 2


def test_dropping_a_proposal_twice_says_how_to_bring_it_back(
    cli: Cli, proposed: dict[str, str]
) -> None:
    zstd = proposed["Pick zstd because it decodes faster"]
    assert cli("pending", "drop", zstd).code == 0
    again = cli("pending", "drop", zstd)
    assert again.code == 2
    assert f"memory {zstd} is deleted, not pending: it was dropped already" in again.stderr
    assert f"`tether restore {zstd}` brings it back to pending review" in again.stderr
    assert cli("restore", zstd).code == 0  # the advice works
    assert cli("pending", "confirm", zstd).code == 0


def test_purge_auto_distilled_lists_asks_and_removes_them_all(
    cli: Cli, history: History, proposed: dict[str, str]
) -> None:
    flush = proposed["Never call flush() from the signal handler"]
    zstd = proposed["Pick zstd because it decodes faster"]
    cli("pending", "confirm", flush)
    mine = cli("remember", "Keep the lock short", "-c", "gotcha", "--json").json()["id"]
    refused = cli("purge", "--auto-distilled")  # no terminal to ask in
    assert refused.code == 2
    assert flush in refused.stderr and zstd in refused.stderr and "--yes" in refused.stderr
    assert f"{flush}.md" in history.memory_files()
    done = cli("purge", "--auto-distilled", "--yes", "--json")
    assert done.code == 0
    assert sorted(done.json()["purged"]) == sorted([flush, zstd])
    assert history.memory_files() == {f"{mine}.md"}
    assert cli("purge", "--auto-distilled", "--yes").code == 1  # nothing left


def write_config(history: History, text: str) -> None:
    """Write ``.tether/config.toml`` of the repository."""
    path = history.root / ".tether" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_user_config(text: str) -> None:
    """Write the user's own ``config.toml`` in the Tether home (the only place a distill
    command is read from)."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def command_script(tmp_path: Path, body: str) -> str:
    """A tiny Python script as a distill command, as the TOML list that runs it."""
    script = tmp_path / "distiller.py"
    script.write_text(body, encoding="utf-8")
    return json.dumps([sys.executable, str(script)])


def test_a_configured_command_replaces_the_heuristic(
    cli: Cli, history: History, tmp_path: Path
) -> None:
    command = command_script(
        tmp_path,
        "import json, sys\n"
        "commit = json.load(sys.stdin)\n"
        "subject = commit['message'].splitlines()[0]\n"
        "out = [] if 'quiet' in subject else [{\n"
        "    'category': 'decision', 'summary': 'Asked: ' + subject,\n"
        "    'details': 'allowed ' + ','.join(commit['categories']),\n"
        "}]\n"
        "print(json.dumps({'memories': out}))\n",
    )
    write_user_config(f"distill_command = {command}\n")
    start = history.head()
    history.commit("Tidy the parser", "src/app.py")  # no keyword: only the command sees value
    history.commit("quiet commit", "src/util.py")  # the command says: nothing here
    report = distill_json(cli, "--since", start)
    assert report["notices"] == []
    (written,) = report["written"]
    memory = cli("show", written["id"], "--json").json()
    assert memory["summary"] == "Asked: Tidy the parser"
    assert memory["details"].strip() == "allowed gotcha,decision"
    assert memory["files"] == ["src/app.py"]
    assert memory["status"] == "pending" and memory["source"] == "auto-distilled"
    assert report["skipped"][0]["reason"] == "no durable knowledge found in its message"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("import sys\nsys.stderr.write('boom\\n')\nsys.exit(3)\n", "exited with status 3: boom"),
        ("print('not json')\n", "printed no JSON"),
        (
            'print(\'[{"category": "gotcha", "summary": "x", "files": ["etc/x"]}]\')\n',
            "'etc/x' is not a file the commit changed",
        ),
    ],
)
def test_a_failing_command_falls_back_to_the_heuristic_and_says_so(
    cli: Cli, history: History, tmp_path: Path, body: str, said: str
) -> None:
    write_user_config(f"distill_command = {command_script(tmp_path, body)}\n")
    start = history.head()
    first = history.commit("Never call flush() from the signal handler", "src/app.py")
    history.commit("Always close the upload handle", "src/util.py")
    result = cli("distill", "--since", start, "--json")
    assert result.code == 0
    report = result.json()
    (notice,) = report["notices"]
    assert f"failed on commit {first[:10]}" in notice and said in notice
    assert "using the built-in heuristic" in notice
    assert notice in result.stderr  # said to the person too, not only in the JSON
    assert [w["summary"] for w in report["written"]] == [
        "Never call flush() from the signal handler",
        "Always close the upload handle",
    ]


def test_a_missing_command_falls_back_too(cli: Cli, history: History) -> None:
    write_user_config('distill_command = "no-such-distiller --fast"\n')
    start = history.head()
    history.commit("Never call flush() from the signal handler")
    report = distill_json(cli, "--since", start)
    assert "could not be started" in report["notices"][0]
    assert len(report["written"]) == 1


def test_settings_cap_and_categories_apply(cli: Cli, history: History) -> None:
    write_config(history, 'distill_max = 1\ndistill_categories = ["decision"]\n')
    start = history.head()
    history.commit("Never call flush() from the signal handler", "src/app.py")
    history.commit("Pick zstd because it decodes faster", "src/util.py")
    history.commit("Chose rsync rather than scp", "README.md")
    report = distill_json(cli, "--since", start)
    assert [w["summary"] for w in report["written"]] == ["Pick zstd because it decodes faster"]
    reasons = [s["reason"] for s in report["skipped"]]
    assert reasons == [
        "category gotcha is not allowed",
        "over the cap of 1 memory per run (the distill_max setting)",
    ]


def test_a_bad_setting_is_reported_and_the_default_kept(cli: Cli, history: History) -> None:
    write_config(history, 'distill_categories = ["nope"]\n')
    start = history.head()
    history.commit("Never call flush() from the signal handler")
    result = cli("distill", "--since", start, "--json")
    assert result.code == 0
    assert "distill_categories" in result.stderr and "nope" in result.stderr


def test_distill_without_a_range_or_session_is_a_usage_error(cli: Cli) -> None:
    result = cli("distill")
    assert result.code == 2
    assert "--since COMMIT" in result.stderr
    assert cli("distill", "--since", "no-such-ref").code == 2
    assert cli("distill", "--since", "HEAD", "--session", "s1").code == 2


def test_distill_uses_the_last_session_by_default(cli: Cli, history: History) -> None:
    cli("remember", "seed", "-c", "context")
    started = cli("recall", "seed", "--session", "s1", env={"TETHER_NOW": "2021-01-01T00:00:00Z"})
    assert started.code in (0, 1)  # a turn of session s1 counted, whatever it recalled
    history.commit("Never call flush() from the signal handler", date="2022-01-01T00:00:00Z")
    result = cli("distill")
    assert result.code == 0, result
    assert "commits of session s1" in result.stdout
    assert "wrote 1 pending" in result.stdout


def run_on_terminal(cwd: Path, args: list[str], keys: bytes, after: bytes) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal, type ``keys`` once ``after`` was printed; return the
    exit code and everything it printed."""
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "recall", *args],
        cwd=cwd,
        stdin=child,
        stdout=child,
        stderr=child,
        close_fds=True,
    )
    os.close(child)
    seen = b""
    typed = False
    try:
        while True:
            ready, _, _ = select.select([main], [], [], 60)
            if not ready:
                break  # silent for a minute: stuck; the assertions below say what was seen
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed: the process ended
                break
            if not chunk:
                break
            seen += chunk
            if not typed and after in seen:
                os.write(main, keys)
                typed = True
    finally:
        os.close(main)
    return process.wait(timeout=60), seen.decode("utf-8", "replace")


def test_end_of_input_at_the_purge_question_is_a_no(
    history: History, proposed: dict[str, str]
) -> None:
    before = history.memory_files()
    code, printed = run_on_terminal(
        history.root, ["purge", "--auto-distilled"], keys=b"\x04", after=b"[y/N]"
    )
    assert "Traceback" not in printed and "EOFError" not in printed
    assert "Nothing removed." in printed
    assert code == 1
    assert history.memory_files() == before


def test_the_purge_question_counts_one_memory_file_in_the_singular(
    history: History, cli: Cli
) -> None:
    written = cli("remember", "a note to purge", "-c", "context", "-f", "README.md", "--json")
    memory_id = written.json()["id"]
    assert cli("delete", memory_id).code == 0
    code, printed = run_on_terminal(history.root, ["purge"], keys=b"n\n", after=b"[y/N]")
    assert "Remove this memory file for good? [y/N]" in printed
    assert "Nothing removed." in printed and code == 1


def test_a_since_that_is_no_commit_says_what_to_give(history: History, cli: Cli) -> None:
    for ref, said in (
        ("no-such-ref", "is not a commit of this repository"),
        ("-x", "is not a commit"),
    ):
        refused = cli("distill", f"--since={ref}")
        assert refused.code == 2, refused
        assert f"--since {ref!r} {said}; give the commit, branch or tag to read after" in (
            refused.stderr
        )


def test_only_y_or_yes_confirms(monkeypatch: pytest.MonkeyPatch) -> None:
    for typed, meant in (("y\n", True), (" YES \n", True), ("n\n", False), ("\n", False)):
        monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
        assert confirm("? ") is meant
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # Ctrl-D: no line at all
    assert confirm("? ") is False
