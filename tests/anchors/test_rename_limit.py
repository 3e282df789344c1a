"""``tether check`` reads a change renaming more files than the repository's
``diff.renameLimit`` lets git pair as renames, not as deletions and additions."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo

from recall.anchors.diff import changes
from recall.genome.gitcmd import GitRunner

MOVED = 4


def test_a_change_past_a_low_rename_limit_is_read_as_renames(tmp_path: Path) -> None:
    files = {f"src/m{i}.py": "".join(f"value_{i}_{j} = {j}\n" for j in range(12)) for i in range(4)}
    repo = make_repo(tmp_path / "repo", files)
    git(repo, "config", "diff.renameLimit", "1")  # git alone would pair none of them
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "lib").mkdir()
    for i in range(MOVED):
        (repo / f"src/m{i}.py").unlink()
        # edited on the way: only git's exhaustive pass pairs them
        (repo / f"lib/n{i}.py").write_text(files[f"src/m{i}.py"] + "# moved\n", encoding="utf-8")
    git(repo, "add", "-A")
    found = {(c.status, c.old, c.new) for c in changes(GitRunner(repo), base)}
    assert found == {("R", f"src/m{i}.py", f"lib/n{i}.py") for i in range(MOVED)}
