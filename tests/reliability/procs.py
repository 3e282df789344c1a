"""Helpers for the fault tests: the real CLI run with less privilege, mounts, folder snapshots.

Root ignores file modes, and CI runs as root. Rather than skip there, a command is started
through ``setpriv`` with the capabilities that bypass permission checks (``CAP_DAC_OVERRIDE``,
``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``) removed from its bounding set, so the kernel checks
modes for it as for anyone else. Running as ``nobody`` instead would also need every temp
folder above the repository opened up to that user; dropping the capabilities needs nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SETPRIV = shutil.which("setpriv")
MOUNT = shutil.which("mount")
UMOUNT = shutil.which("umount")
DROP_CAPS = "-dac_override,-dac_read_search,-fowner"


def unprivileged() -> list[str]:
    """The command prefix under which file modes apply (empty when not root)."""
    if os.geteuid() != 0:
        return []
    if SETPRIV is None:
        pytest.skip("running as root, and no setpriv to drop the permission-bypass capabilities")
    return [SETPRIV, f"--bounding-set={DROP_CAPS}", "--"]


def run_cli(
    repo: Path,
    *args: str,
    prefix: list[str] | None = None,
    preexec: Callable[[], None] | None = None,
    stdin: str = "",
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m recall ARGS`` in ``repo`` (under ``prefix``), capturing its output."""
    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "recall", *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=timeout,
        check=False,
        preexec_fn=preexec,
    )


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (hidden ones too) by relative path, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def make_read_only(paths: list[Path]) -> None:
    """Remove every write bit from ``paths``."""
    for path in paths:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def make_writable(folder: Path) -> None:
    """Give the owner write permission on ``folder`` and everything below it again."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    assert MOUNT is not None
    return subprocess.run([MOUNT, *args], capture_output=True, text=True, check=False)


def can_mount() -> str | None:
    """Why this process cannot mount file systems (None when it can)."""
    if os.geteuid() != 0:
        return "mounting needs root"
    if MOUNT is None or UMOUNT is None:
        return "no mount/umount command"
    return None


@contextlib.contextmanager
def mounted(target: Path, *args: str) -> Iterator[None]:
    """Mount something on ``target`` (``mount ARGS target``) for the block; skip if we cannot."""
    why = can_mount()
    if why is not None:
        pytest.skip(why)
    done = _mount(*args, str(target))
    if done.returncode != 0:
        pytest.skip(f"mount {' '.join(args)} failed: {done.stderr.strip()}")
    try:
        yield
    finally:
        assert UMOUNT is not None
        subprocess.run([UMOUNT, "-l", str(target)], capture_output=True, check=False)


@contextlib.contextmanager
def read_only_mount(folder: Path) -> Iterator[None]:
    """Make ``folder`` a read-only bind mount of itself (EROFS, for root too)."""
    with mounted(folder, "--bind", str(folder)):
        done = _mount("-o", "remount,ro,bind", str(folder))
        if done.returncode != 0:
            pytest.skip(f"read-only remount failed: {done.stderr.strip()}")
        yield
