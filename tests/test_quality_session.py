"""The quality benchmark's session recalls as ``tether recall`` does, through the same code:
a rename of the CLI's helpers must not leave the benchmark unable to run."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo

from bench.quality_session import Session


def test_a_session_imports_commits_and_recalls_them_for_their_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"net/link.c": "int a;\n", "README": "x\n"})
    sha = git(repo, "rev-parse", "HEAD").strip()
    session = Session(repo, tmp_path / "home", fresh=True)
    commit = {
        "sha": sha,
        "subject": "link: fix the netlink answer leak",
        "body": "The answer buffer was never freed.",
        "files": ["net/link.c"],
        "date": "2026-01-02T03:04:05Z",
    }
    session.import_commits([commit])
    hits = session.recall("netlink answer leak", ["net/link.c"])
    assert [hit.memory.id for hit in hits] == [session.id_of_sha[sha]]
