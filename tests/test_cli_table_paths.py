"""A path too long for its table column on a terminal is wrapped, never cut short: two files of
one deep folder must not show as the same row."""

from __future__ import annotations

from pathlib import Path

from conftest import git, pty_run

DEEP = "src/payments/gateway/adapters/legacy/soap/generated"
FILES = [f"{DEEP}/invoice_client_v{n}.py" for n in (1, 2, 3)]


def _changed_together(repo: Path) -> None:
    """The three files committed together twice, so each is a co-change neighbour of the others."""
    for content in ("x = 1\n", "x = 2\n"):
        for path in FILES:
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(content)
        git(repo, "add", ".")
        git(repo, "commit", "-qm", f"write all: {content.strip()}")


def _unwrapped(out: str) -> str:
    """The table's file column joined back: each cell's text, its lines run together."""
    cells = [line.split("│")[1].strip() for line in out.splitlines() if line.count("│") >= 3]
    return "".join(cells)


def test_neighbours_on_an_80_column_terminal_wraps_a_long_path(repo: Path) -> None:
    _changed_together(repo)
    code, out, err = pty_run(
        "neighbours", FILES[0], cwd=repo, env={"TERM": "dumb", "NO_COLOR": "1"}, columns=80
    )
    assert code == 0, err
    out = out.replace("\r\n", "\n")
    assert "…" not in out
    assert len(max(FILES, key=len)) + 30 > 80  # the file column cannot hold a path on one line
    column = _unwrapped(out)
    assert FILES[1] in column and FILES[2] in column, out
