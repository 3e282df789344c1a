"""A range wider than distill reads in one run: the oldest are read, the run says how many
newer ones wait and how to read them, and only what was read is marked read."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from conftest import CliResult, git

from recall.distill import read_commits
from recall.distill_words import MAX_COMMITS

from .conftest import History

Cli = Callable[..., CliResult]


def _many_commits(history: History, count: int, branch: str = "main") -> list[str]:
    """Add ``count`` commits on top of HEAD to ``branch`` in one ``git fast-import``; return
    their ids."""
    head = history.head()
    stream = []
    for number in range(1, count + 1):
        message = f"Never call flush() before open(), {branch} case {number}\n".encode()
        body = f"x = {number}\n".encode()
        stream.append(
            b"commit refs/heads/%s\nmark :%d\ncommitter A <a@example.com> %d +0000\n"
            % (branch.encode(), number, 1_600_000_000 + number)
            + b"data %d\n%s\n" % (len(message), message)
            + (b"from %s\n" % head.encode() if number == 1 else b"from :%d\n" % (number - 1))
            + b"M 644 inline src/%s%d.py\ndata %d\n%s\n"
            % (branch.encode(), number, len(body), body)
        )
    subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=history.root,
        input=b"".join(stream),
        check=True,
    )
    if branch == "main":
        git(history.root, "reset", "-q", "--hard", "main")
    return git(history.root, "rev-list", "--reverse", f"{head}..{branch}").split()


def test_a_wide_since_range_says_what_it_left_and_a_plain_run_reads_it(
    cli: Cli, history: History
) -> None:
    shas = _many_commits(history, MAX_COMMITS + 5)
    first = cli("distill", "--since", "HEAD~204", "--json")
    assert first.json()["commits"] == MAX_COMMITS
    assert first.json()["unread"] == 4
    assert "4 newer commits were left unread" in first.stderr
    last_read = shas[MAX_COMMITS]  # HEAD~204 is shas[0]: the range starts after it
    assert f"--since {last_read[:10]}" in first.stderr
    rest = cli("distill", "--json")
    assert rest.json()["commits"] == 4, rest
    assert rest.json()["unread"] == 0
    assert "left unread" not in rest.stderr
    assert cli("distill", "--json").json()["commits"] == 0


def test_the_oldest_commits_of_a_range_are_read_first(history: History) -> None:
    start = history.head()
    shas = _many_commits(history, MAX_COMMITS + 2)
    commits = read_commits(history.root, since_commit=start)
    assert [c.sha for c in commits] == shas[:MAX_COMMITS]
    assert commits.unread == 2


def test_a_side_branch_cut_short_is_read_once(cli: Cli, history: History) -> None:
    start = history.head()
    side = _many_commits(history, 60, branch="side")
    main = _many_commits(history, 150)
    git(history.root, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    listed = git(history.root, "rev-list", "--no-merges", "--topo-order", "--reverse", "HEAD")
    in_range = listed.split()[listed.split().index(start) + 1 :]
    assert in_range == main + side  # so the oldest 200 of the range end inside the side branch
    first = cli("distill", "--since", start, "--json")
    rest = cli("distill", "--json")
    firsts, rests = first.json()["commits"], rest.json()["commits"]
    assert (firsts, rests) == (50, 160), (first, rest)
    assert first.json()["unread"] == 160
    assert cli("distill", "--json").json()["commits"] == 0
