"""A walkthrough of Tether on a generated repository, printing each real command and its output."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BOLD = "\033[1m" if sys.stdout.isatty() else ""
DIM = "\033[2m" if sys.stdout.isatty() else ""
RESET = "\033[0m" if sys.stdout.isatty() else ""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(root: Path) -> Path:
    """A small repository with real history: a hot file, a neighbour, a rename."""
    repo = root / "shop"
    (repo / "src" / "auth").mkdir(parents=True)
    (repo / "src" / "store").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.name", "Dana Demo")
    _git(repo, "config", "user.email", "dana@example.invalid")
    files = {
        "src/store/store.ts": "export function save() {}\n",
        "src/auth/routes.ts": "import { check } from './middleware'\n",
        "src/auth/middleware.ts": "export function check() {}\n",
        "src/api/client.ts": "export const client = {}\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "initial layout")
    return repo


def run(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> None:
    """Print a command as a user would type it, run it for real and print what it printed."""
    print(f"\n{BOLD}$ tether {shlex.join(args)}{RESET}")
    result = subprocess.run(
        [sys.executable, "-m", "recall", *args],
        cwd=repo,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stdout.write(result.stdout)
    if result.stderr:
        sys.stdout.write(f"{DIM}{result.stderr}{RESET}")
    if result.returncode:
        print(f"{DIM}(exit {result.returncode}){RESET}")


def main(argv: list[str] | None = None) -> int:
    """Build the sample repository and walk through the CLI."""
    parser = argparse.ArgumentParser(prog="python -m demo")
    parser.add_argument("--keep", type=Path, help="build the sample repository here and keep it")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="tether-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["TETHER_HOME"] = str(root / "global")
    env["COLUMNS"] = "110"
    env["TETHER_NOW"] = "2026-11-30T12:00:00+00:00"
    try:
        repo = make_repo(root)
        print(f"Sample repository: {repo}")
        run(repo, env, "init")
        run(
            repo,
            env,
            "remember",
            "session save must go through safeRename",
            "--category",
            "gotcha",
            "--file",
            "src/store/store.ts",
            "--details",
            "A plain write can leave a half-written session file if the process dies.",
        )
        run(
            repo,
            env,
            "remember",
            "always use bun here, not npm",
            "--category",
            "pref",
            "--file",
            "src/store/store.ts",
            "--pin",
        )
        run(
            repo,
            env,
            "remember",
            "auth middleware must run before the routes",
            "--category",
            "decision",
            "--file",
            "src/auth/middleware.ts",
        )
        print(f"\n{DIM}# the same knowledge again, with different spacing and case:{RESET}")
        run(
            repo,
            env,
            "remember",
            "Session save must go through  safeRename",
            "--category",
            "gotcha",
            "--file",
            "src/store/store.ts",
            "--details",
            "A plain write can leave a half-written session file if the process dies.",
        )
        run(repo, env, "list")
        run(repo, env, "search", "safeRename")
        run(repo, env, "list", "--file", "src/store/store.ts", "--json")
        print(f"\n{DIM}# a memory file is plain text, reviewable in a pull request:{RESET}")
        memory_files = sorted((repo / ".tether" / "memories").glob("*.md"))
        print(memory_files[0].read_text())
        print(f"{DIM}# a hand-written file with a typo is reported, never rewritten:{RESET}")
        (repo / ".tether" / "memories" / "handmade.md").write_text(
            "---\ncategory: gotch\nfiles: [src/api/client.ts]\n---\n"
            "client retries are not idempotent\n"
        )
        run(repo, env, "doctor")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
