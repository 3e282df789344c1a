"""``tether stats`` and ``tether recall`` on a narrow terminal: every id, number and score is
printed whole, on one line, never cut to an ellipsis or folded over two lines."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import pty_run
from test_cli import Cli, ok

ANSI = re.compile(r"\x1b\[[0-9;]*m")
PAIR = re.compile(r"([a-z-]+) (\d+|\d+%|—)(?=\s|$)")


def shown_lines(*args: str, cwd: Path, columns: int) -> list[str]:
    """What the command printed on a terminal ``columns`` wide, one line per item, no styling."""
    code, shown, _ = pty_run(*args, cwd=cwd, env={"NO_COLOR": "1"}, columns=columns)
    assert code in (0, 1)
    return [ANSI.sub("", line).rstrip() for line in shown.splitlines()]


def seed(cli: Cli) -> list[str]:
    """Four memories on src/app.py, each shown once by a recall, the first acted on."""
    ids = [
        ok(
            cli("remember", f"app note {n} on the pool", "-c", "gotcha", "-f", "src/app.py")
        ).stdout.split()[1]
        for n in range(4)
    ]
    ok(cli("recall", "-f", "src/app.py"))
    ok(cli("show", ids[0]))
    return ids


def test_stats_on_a_narrow_terminal_shows_every_number_of_every_category(
    cli: Cli, repo: Path
) -> None:
    seed(cli)
    data = ok(cli("stats", "--json")).json()
    for columns in (40, 60):
        lines = shown_lines("stats", cwd=repo, columns=columns)
        assert all(len(line) <= columns for line in lines), lines
        assert "…" not in "".join(lines)
        for entry in [*data["categories"], data["total"]]:
            at = lines.index(entry["category"])  # the category whole, on its own line
            block = []
            for line in lines[at + 1 :]:
                if not line.startswith("  "):
                    break
                block.append(line)
            pairs = dict(PAIR.findall(" ".join(block)))
            rate = entry["follow_through"]
            assert pairs == {
                "memories": str(entry["memories"]),
                "surfaced": str(entry["surfaced"]),
                "acted": str(entry["acted"]),
                "follow-through": "—" if rate is None else f"{rate:.0%}",
                "archived": str(entry["archived"]),
                "superseded": str(entry["superseded"]),
            }


def test_stats_on_a_standard_terminal_is_still_the_table(cli: Cli, repo: Path) -> None:
    seed(cli)
    lines = shown_lines("stats", cwd=repo, columns=80)
    assert any("follow-through" in line and "superseded" in line for line in lines)
    assert "gotcha" not in lines  # the category is a row of the table, not a heading


def test_recall_on_a_narrow_terminal_keeps_each_id_and_score_on_one_line(
    cli: Cli, repo: Path
) -> None:
    seed(cli)
    hits = ok(cli("recall", "-f", "src/app.py", "--no-record", "--json")).json()["results"]
    assert len(hits) == 4
    lines = shown_lines("recall", "-f", "src/app.py", "--no-record", cwd=repo, columns=40)
    assert all(len(line) <= 40 for line in lines), lines
    for rank, hit in enumerate(hits, start=1):
        head = next(line for line in lines if hit["id"] in line)
        assert head.split() == [str(rank), hit["id"], "gotcha", "score", f"{hit['score']:.3f}"]
        at = lines.index(head)
        assert lines[at + 1].strip() == hit["summary"]
        assert lines[at + 2].strip() == f"why: {hit['receipt']}"
    wide = shown_lines("recall", "-f", "src/app.py", "--no-record", cwd=repo, columns=120)
    assert any("┏" in line for line in wide)  # a wide terminal still gets the table


def test_recall_on_a_narrow_terminal_folds_a_long_summary_and_loses_none_of_it(
    cli: Cli, repo: Path
) -> None:
    summary = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu END"
    ok(cli("remember", summary, "-c", "gotcha", "-f", "src/app.py"))
    lines = shown_lines("recall", "-f", "src/app.py", "--no-record", cwd=repo, columns=40)
    at = next(n for n, line in enumerate(lines) if "score" in line)
    body = []
    for line in lines[at + 1 :]:
        if line.strip().startswith("why:"):
            break
        body.append(line.strip())
    assert "".join(body).replace(" ", "") == summary.replace(" ", "")


def test_recall_explain_on_a_narrow_terminal_keeps_each_signal_whole(cli: Cli, repo: Path) -> None:
    seed(cli)
    args = ("recall", "-f", "src/app.py", "pool", "--no-record", "--explain")
    hits = ok(cli(*args[:-1], "--json")).json()["results"]
    lines = shown_lines(*args, cwd=repo, columns=50)
    assert all(len(line) <= 50 for line in lines), lines
    for hit in hits:
        at = next(n for n, line in enumerate(lines) if line.startswith(f"{hit['id']}: "))
        block = [lines[at][len(hit["id"]) + 2 :]]
        for line in lines[at + 1 :]:
            if not line.startswith(" " * (len(hit["id"]) + 2)):
                break
            block.append(line.strip())
        shown = dict(re.findall(r"(\w+) ([+-]\d+\.\d{4})", " ".join(block)))
        assert shown == {k: f"{v:+.4f}" for k, v in hit["signals"].items()}, block
    assert any(line.startswith("time: ") for line in lines)
