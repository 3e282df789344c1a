"""Memory files written by hand on Windows (or checked out with ``core.autocrlf``): their lines
end in CRLF. They read like any other file, with no carriage return left in the text, and a
field Tether rewrites is written with CRLF too, so the file keeps one kind of line ending."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

from recall import frontmatter

CRLF_FILE = (
    b"---\r\ncategory: gotcha\r\nfiles:\r\n  - src/app.py\r\n---\r\n"
    b"win summary\r\n\r\nfirst detail\r\nsecond detail\r\n"
)


def _written(repo: Path, cli: Callable[..., CliResult]) -> tuple[Path, str]:
    assert cli("init").code == 0
    path = repo / ".tether" / "memories" / "win2.md"
    path.write_bytes(CRLF_FILE)
    [listed] = cli("list", "--json").json()
    return path, listed["id"]


def test_details_of_a_crlf_file_read_without_carriage_returns(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    path, memory_id = _written(repo, cli)
    shown = cli("show", memory_id, "--json")
    assert shown.code == 0, shown.stderr
    assert shown.json()["summary"] == "win summary"
    assert shown.json()["details"] == "first detail\nsecond detail"
    assert path.read_bytes() == CRLF_FILE  # reading never rewrites the file


def test_pin_in_a_crlf_file_writes_a_crlf_line(repo: Path, cli: Callable[..., CliResult]) -> None:
    path, memory_id = _written(repo, cli)
    assert cli("pin", memory_id).code == 0
    text = path.read_bytes()
    assert b"pinned: true\r\n" in text
    assert text.count(b"\n") == text.count(b"\r\n")  # no bare LF among the CRLF lines
    assert cli("unpin", memory_id).code == 0
    text = path.read_bytes()
    assert b"pinned: false\r\n" in text
    assert text.count(b"\n") == text.count(b"\r\n")


def test_update_replaces_a_list_in_a_crlf_file_with_crlf_lines() -> None:
    text = CRLF_FILE.decode()
    new = frontmatter.update(text, "m.md", {"files": ["a.py", "b.py"], "author": "Ann"})
    assert "files:\r\n  - a.py\r\n  - b.py\r\n" in new
    assert "author: Ann\r\n---\r\n" in new
    assert new.count("\n") == new.count("\r\n")
    assert new.endswith("---\r\nwin summary\r\n\r\nfirst detail\r\nsecond detail\r\n")


def test_an_lf_file_stays_lf_when_a_field_is_rewritten() -> None:
    text = CRLF_FILE.decode().replace("\r\n", "\n")
    new = frontmatter.update(text, "m.md", {"pinned": True})
    assert "\r" not in new
    assert "pinned: true\n---\n" in new
