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

from demo import sample_repo

BOLD = "\033[1m" if sys.stdout.isatty() else ""
DIM = "\033[2m" if sys.stdout.isatty() else ""
RESET = "\033[0m" if sys.stdout.isatty() else ""

CROWD = (
    "store: keep the public save() signature stable",
    "store: writes are batched every 200 ms",
    "store: the cache is per tab, never shared",
    "store: errors are reported through log(), not thrown",
    "store: quota errors mean the user must clear data",
    "store: keys are namespaced by account id",
    "store: migrations run before the first read",
    "store: save() may be called before hydrate() finishes",
)

TRACEBACK = """Traceback (most recent call last):
  File "/srv/shop/jobs/flush.py", line 88, in run
    store.flush(batch)
  File "/srv/shop/store/store.py", line 214, in flush
    self._write(path, payload)
  File "/srv/shop/store/store.py", line 240, in _write
    with open(tmp, "w") as handle:
OSError: [Errno 28] No space left on device
During handling of the above exception, another exception occurred:
Traceback (most recent call last):
  File "/srv/shop/jobs/flush.py", line 91, in run
    log.error("flush failed", exc_info=True)
ValueError: I/O operation on closed file.
why does a crash while saving leave a half-written session file?"""


def say(text: str) -> None:
    """A narration line between commands."""
    print(f"\n{DIM}# {text}{RESET}")


def run(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> None:
    """Print a command as a user would type it, run it for real and print what it printed."""
    shown = shlex.join(args) if stdin is None else f"{shlex.join(args)} < paste.txt"
    print(f"{BOLD}$ tether {shown}{RESET}")
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


def remember(repo: Path, env: dict[str, str], summary: str, category: str, *files: str) -> None:
    """Write a memory quietly (the walkthrough shows one write in full)."""
    args = ["remember", summary, "--category", category, "--json"]
    for name in files:
        args += ["--file", name]
    subprocess.run(
        [sys.executable, "-m", "recall", *args], cwd=repo, env=env, check=True, capture_output=True
    )


def main(argv: list[str] | None = None) -> int:
    """Build the sample repository and walk through remembering and recall."""
    parser = argparse.ArgumentParser(prog="python -m demo")
    parser.add_argument("--keep", type=Path, help="build the sample repository here and keep it")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="tether-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **sample_repo.IDENTITY}
    env.update(TETHER_HOME=str(root / "global"), COLUMNS="110", TETHER_NOW="2026-11-30T12:00:00Z")
    try:
        repo = sample_repo.build(root)
        print(f"Sample repository with real git history: {repo}\n")
        run(repo, env, "init")
        say("a memory is born tied to the files it is about:")
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
            "A plain write leaves a half-written session file when the process dies mid-save.",
        )
        for summary in CROWD:
            remember(repo, env, summary, "context", "src/store/store.ts")
        remember(
            repo, env, "lock.ts: release the lock in finally, always", "gotcha", "src/store/lock.ts"
        )
        remember(
            repo,
            env,
            "middleware must run before the routes are registered",
            "decision",
            "src/auth/middleware.ts",
        )
        remember(
            repo, env, "the API client retries are not idempotent", "gotcha", "src/api/client.ts"
        )
        remember(
            repo,
            env,
            "log() must never throw: it runs inside error handlers",
            "gotcha",
            "src/util/log.ts",
        )
        sample_repo.rename_client(repo)
        run(repo, env, "index")

        say(
            "1. editing the hot file with its lock: nine memories name store.ts, one names "
            "lock.ts; the rare one comes first"
        )
        run(
            repo,
            env,
            "recall",
            "--file",
            "src/store/store.ts",
            "--file",
            "src/store/lock.ts",
            "--limit",
            "4",
            "--no-record",
        )
        say(
            "2. editing routes.ts: no memory names it, but git says middleware.ts changes with "
            "it in every commit"
        )
        run(repo, env, "recall", "--file", "src/auth/routes.ts", "--no-record")
        say(
            "3. an agent pastes a 700-character traceback with the question on the last line; "
            "the paste is stripped before text search, and at most three lines are injected"
        )
        run(repo, env, "inject", "--no-record", stdin=TRACEBACK)
        say("4. client.ts became http.ts after its memory was written; the memory follows the file")
        run(repo, env, "recall", "--file", "src/api/http.ts", "--no-record")
        say("5. a memory on a file most of the code imports carries a little more weight")
        run(repo, env, "recall", "--file", "src/util/log.ts", "--no-record", "--explain")
        say("the full card, on demand (this counts as acting on the memory):")
        gotcha = next(
            path.stem
            for path in sorted((repo / ".tether" / "memories").glob("*.md"))
            if "safeRename" in path.read_text()
        )
        run(repo, env, "show", gotcha)
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
