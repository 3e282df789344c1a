"""Shared fixtures: an isolated environment, a temp git repository, stores and the real CLI.

Every test runs with ``TETHER_HOME`` inside its own ``tmp_path`` so the user's global store is
never touched, and with a git identity in the environment so no global git config is needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from recall.locations import global_location, project_location
from recall.store import MemoryStore

AUTHOR = "Test Author"
GIT_ENV = {
    "GIT_AUTHOR_NAME": AUTHOR,
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": AUTHOR,
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}
REPO_FILES = {
    "README.md": "# demo\n",
    "src/app.py": "print('app')\n",
    "src/util.py": "def helper():\n    return 1\n",
    "docs/guide.md": "guide\n",
}


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` and return its stdout (raises on failure)."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=os.environ
    )
    return done.stdout


def make_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """Create a git repository at ``path`` with a few committed files; return its real path."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", AUTHOR)
    git(path, "config", "user.email", "author@example.com")
    for name, text in (files if files is not None else REPO_FILES).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path.resolve()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point TETHER_HOME into tmp_path and give git an identity; return the TETHER_HOME path."""
    home = tmp_path / "tether-home"
    monkeypatch.setenv("TETHER_HOME", str(home))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("TETHER_NOW", "COLUMNS", "LINES", "TETHER_WARM_IDLE", "TETHER_MCP_END_WAIT"):
        monkeypatch.delenv(key, raising=False)
    # No warm engine is started or used (a session-start hook would leave one running past the
    # test); tests/test_warm.py turns it back on and stops what it started.
    monkeypatch.setenv("TETHER_WARM", "0")
    return home


@pytest.fixture
def tether_home(isolated_env: Path) -> Path:
    """The isolated global store folder (TETHER_HOME)."""
    return isolated_env


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository with README.md, src/app.py, src/util.py and docs/guide.md."""
    return make_repo(tmp_path / "repo")


class Notices(list[str]):
    """Collects the one-line notices a store gives (instead of printing them)."""

    def __call__(self, message: str) -> None:
        self.append(message)


class OpenStore(NamedTuple):
    """A store plus the notices it gave."""

    store: MemoryStore
    notices: Notices


@pytest.fixture
def open_store(repo: Path) -> Iterator[Callable[..., OpenStore]]:
    """Factory: open a (project or global) store in-process; every store is closed at teardown."""
    opened: list[MemoryStore] = []

    def factory(root: Path | None = None, *, scope: str = "project") -> OpenStore:
        notices = Notices()
        cwd = root or repo
        location = global_location(cwd) if scope == "global" else project_location(cwd)
        store = MemoryStore(location, notice=notices)
        opened.append(store)
        return OpenStore(store, notices)

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[..., OpenStore]) -> MemoryStore:
    """The project store of ``repo`` (not yet created on disk)."""
    return open_store().store


def remember(store: MemoryStore, summary: str, *, category: str = "gotcha", **kwargs: Any) -> str:
    """Write a memory through the store API and return its id."""
    files = kwargs.pop("files", ["src/app.py"])
    draft = store.prepare_memory(summary=summary, category=category, files=files, **kwargs)
    return store.remember(draft).id


class CliResult(NamedTuple):
    """What one CLI run gave back."""

    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout parsed as one JSON document."""
        return json.loads(self.stdout)

    def json_lines(self) -> list[Any]:
        """stdout parsed as JSON Lines."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


def run_tether(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> CliResult:
    """Run ``python -m recall ARGS`` as a subprocess in ``cwd``; return (code, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run(
        [sys.executable, "-m", "recall", *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=full_env,
        timeout=120,
        check=False,
    )
    return CliResult(done.returncode, done.stdout, done.stderr)


def remember_guarded(root: Path, summary: str, *where: str) -> str:
    """A guarded gotcha on ``where`` (``-f PATH``, ``--anchor PATH::NAME``), written with the
    CLI in ``root`` and committed: its id."""
    written = run_tether("--json", "remember", summary, "-c", "gotcha", *where, "--guard", cwd=root)
    assert written.code == 0, written.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"memory: {summary}")
    return written.json()["id"]


def commit_rename(root: Path, old: str, new: str) -> None:
    """Rename ``old`` to ``new`` in ``root`` with ``git mv``, and commit it."""
    git(root, "mv", old, new)
    git(root, "commit", "-q", "-m", f"{old} becomes {new}")


def run_on_pty(*args: str, cwd: Path, env: dict[str, str]) -> str:
    """Run ``python -m recall ARGS`` in ``cwd`` with stdout on a pseudo-terminal (``env`` on top
    of this environment); return what it printed there, line ends as written."""
    return pty_run(*args, cwd=cwd, env=env)[1]


def pty_run(
    *args: str, cwd: Path, env: dict[str, str], columns: int | None = None
) -> tuple[int, str, str]:
    """:func:`run_on_pty` with the terminal ``columns`` wide when given: the exit code, what the
    command printed on the terminal and its stderr."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    if columns is not None:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    with subprocess.Popen(
        [sys.executable, "-m", "recall", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    ) as proc:
        os.close(follower)
        chunks = []
        with contextlib.suppress(OSError):  # the child closed the terminal
            while chunk := os.read(leader, 65536):
                chunks.append(chunk)
        err = proc.stderr.read() if proc.stderr else b""
        code = proc.wait(timeout=120)
    os.close(leader)
    return code, b"".join(chunks).decode("utf-8", "replace"), err.decode("utf-8", "replace")


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids that forked from here on, counted in the parent before the child exists."""
    counted: list[int] = []
    real_fork = os.fork

    def counted_fork() -> int:
        counted.append(os.getpid())
        return real_fork()

    monkeypatch.setattr(os, "fork", counted_fork)
    return counted


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work spread among the cores goes to two children, as on the 2-core machines the spread
    was measured on, whatever this machine has."""
    import recall.forked

    monkeypatch.setattr(recall.forked, "spread_width", lambda: 2)


@pytest.fixture
def file_stats(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names this process stats inside a folder (by descriptor) from here on."""
    seen: list[str] = []
    real_lstat, real_stat = os.lstat, os.stat

    def counted_lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if kwargs.get("dir_fd") is not None:
            seen.append(os.fsdecode(path))
        return real_lstat(path, *args, **kwargs)

    def counted_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if kwargs.get("dir_fd") is not None:
            seen.append(os.fsdecode(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counted_lstat)
    monkeypatch.setattr(os, "stat", counted_stat)
    return seen


@pytest.fixture
def genome_opens(monkeypatch: pytest.MonkeyPatch) -> list[Path | None]:
    """The repository of each genome this process opens from here on, one entry per opening,
    counted as it is opened (the real constructor runs)."""
    from recall.genome.genome import Genome

    opened: list[Path | None] = []
    real_init = Genome.__init__

    def counted_init(self: Genome, repo_root: Path | None, *args: Any, **kwargs: Any) -> None:
        opened.append(repo_root)
        real_init(self, repo_root, *args, **kwargs)

    monkeypatch.setattr(Genome, "__init__", counted_init)
    return opened


@pytest.fixture
def cli(repo: Path) -> Callable[..., CliResult]:
    """Run the real CLI; ``cwd`` defaults to the temp repository."""

    def run(
        *args: str,
        cwd: Path | None = None,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
    ) -> CliResult:
        return run_tether(*args, cwd=cwd or repo, stdin=stdin, env=env)

    return run
