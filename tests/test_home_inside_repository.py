"""A ``TETHER_HOME`` inside the repository a command runs in (its own ``.tether`` store, or any
folder of its work tree, also through a link) cannot be the user-wide store's folder: the
user's private memories would be written into the work tree, to be committed with it, and its
``config.toml`` would be the repository's to write. A write to the user-wide store is refused,
exit 2, naming the variable; a read serves the project's memories without the user-wide ones,
saying why; nothing is written, and the repository's store keeps its permissions. No setting
is read from such a home. A hook says so in its log and goes on."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from conftest import run_tether


@pytest.mark.parametrize("where", [".tether", "notes/tether", "link-to-store"])
def test_a_home_inside_the_repository_is_refused_for_writes_and_left_out_of_reads(
    repo: Path, tmp_path: Path, where: str
) -> None:
    assert (
        run_tether("remember", "team note", "-c", "gotcha", "-f", "src/app.py", cwd=repo).code == 0
    )
    store = repo / ".tether"
    (tmp_path / "link-to-store").symlink_to(store)  # outside the tree, leading into it
    home = tmp_path / where if where == "link-to-store" else repo / where
    mode = stat.S_IMODE(store.stat().st_mode)
    files = sorted(store.rglob("*.md"))
    env = {"TETHER_HOME": str(home)}
    what = "the store of the repository" if where != "notes/tether" else "inside the repository"
    for command, code in (
        (["remember", "my private preference", "-c", "pref", "--global"], 2),
        (["list", "--scope", "all"], 0),
        (["doctor", "--scope", "all"], 0),
    ):
        done = run_tether(*command, cwd=repo, env=env)
        assert done.code == code, (command, done)
        assert f"TETHER_HOME={str(home)!r} is {what} {repo}" in done.stderr, done.stderr
        assert "point it at a folder outside any repository" in done.stderr
    assert sorted(store.rglob("*.md")) == files
    assert stat.S_IMODE(store.stat().st_mode) == mode
    assert not (repo / "notes").exists()
    outside = run_tether("list", "--scope", "all", cwd=tmp_path, env=env)
    assert outside.code != 2 or "TETHER_HOME" not in outside.stderr  # elsewhere it is a folder


def test_no_setting_is_read_from_a_home_inside_the_repository(repo: Path, tmp_path: Path) -> None:
    """Its ``config.toml`` is a file of the repository: were it read as the user's own, a
    cloned repository would choose the code an embedder runs (only the user may)."""
    marker = tmp_path / "ran"
    module = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nclass Thing: pass\n"
    (repo / "planted.py").write_text(module, encoding="utf-8")
    store = repo / ".tether"
    store.mkdir()
    (store / "config.toml").write_text('embedder = "planted:Thing"\n', encoding="utf-8")
    env = {"TETHER_HOME": str(store)}
    done = run_tether("remember", "flush the pool", "-c", "gotcha", "-f", "src/app.py",
                      cwd=repo, env=env)  # fmt: skip
    assert done.code == 0, done
    assert not marker.exists(), "the repository's config.toml was read as the user's own"


def test_a_hook_says_so_and_leaves_the_global_store_out(repo: Path) -> None:
    assert (
        run_tether("remember", "flush the pool", "-c", "gotcha", "-f", "src/app.py", cwd=repo).code
        == 0
    )
    record = json.dumps({"session_id": "s-1", "cwd": str(repo), "prompt": "flush the pool"})
    env = {"TETHER_HOME": str(repo / ".tether")}
    done = run_tether("hook", "prompt", cwd=repo, stdin=record, env=env)
    assert done.code == 0, done
    assert "flush the pool" in done.stdout  # the project's memories still answer
    log = (repo / ".tether" / "hooks.log").read_text(encoding="utf-8")
    assert "TETHER_HOME=" in log and "this hook leaves the global store out" in log


def test_a_home_on_another_drive_is_not_inside(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Windows two paths on two drives have no common path (``ValueError``): such a home
    is outside the repository, not a traceback."""
    import os

    from recall.locations import global_location

    def two_drives(paths: list[str]) -> str:
        raise ValueError("Paths don't have the same drive")

    monkeypatch.setenv("TETHER_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(os.path, "commonpath", two_drives)
    assert global_location(repo).base == tmp_path / "home"
