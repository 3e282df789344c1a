"""A small repository with real git history, shaped to show what recall does.

- ``src/store/store.ts`` is the hot file: many memories name it.
- ``src/store/lock.ts`` is named by one memory only (the rare one).
- ``src/auth/routes.ts`` and ``src/auth/middleware.ts`` change together in every commit.
- ``src/api/client.ts`` is renamed to ``src/api/http.ts`` after its memory was written.
- ``src/util/log.ts`` is imported by many files.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "Dana Demo",
    "GIT_AUTHOR_EMAIL": "dana@example.invalid",
    "GIT_COMMITTER_NAME": "Dana Demo",
    "GIT_COMMITTER_EMAIL": "dana@example.invalid",
}

IMPORTERS = ("store/store", "store/lock", "auth/routes", "auth/middleware", "api/client")
EXTRA_IMPORTERS = tuple(f"jobs/job{n}" for n in range(1, 5))


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, **IDENTITY}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def _write(repo: Path, name: str, text: str) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _module(name: str, body: str) -> str:
    depth = name.count("/")
    prefix = "../" * depth if depth else "./"
    return f"import {{ log }} from '{prefix}util/log'\n{body}\n"


def build(root: Path) -> Path:
    """Create the sample repository under ``root`` and return its path."""
    repo = root / "shop"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", IDENTITY["GIT_AUTHOR_NAME"])
    _git(repo, "config", "user.email", IDENTITY["GIT_AUTHOR_EMAIL"])
    _write(repo, "src/util/log.ts", "export function log(message: string) {}\n")
    for name in IMPORTERS + EXTRA_IMPORTERS:
        _write(repo, f"src/{name}.ts", _module(name, f"export const {name.split('/')[-1]} = 1"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "initial layout")
    for step in range(1, 7):
        for name in ("auth/routes", "auth/middleware"):
            _write(repo, f"src/{name}.ts", _module(name, f"export const version = {step}"))
        _git(repo, "commit", "-qam", f"auth: tighten checks, step {step}")
    _write(repo, "src/store/store.ts", _module("store/store", "export function save() {}"))
    _git(repo, "commit", "-qam", "store: add save")
    return repo


def rename_client(repo: Path) -> None:
    """Move the API client, as a refactor would, after its memory was written."""
    _git(repo, "mv", "src/api/client.ts", "src/api/http.ts")
    _git(repo, "commit", "-qm", "api: rename client to http")
