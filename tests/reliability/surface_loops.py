"""One looping CLI surface for the reindex tests, run as its own process.

``python surface_loops.py REPO KIND SECONDS OUT [ARG]`` runs, for SECONDS, one real
``python -m recall`` subprocess after another in REPO, then writes a :class:`Tally` to OUT as
JSON. KIND is one of:

- ``show`` (ARG: a memory id): ``tether show --json ARG``; each success counts one action on
  the memory;
- ``hook`` (ARG: a session id): ``tether hook prompt`` with that session; each run counts one
  turn of the session (hooks exit 0 whatever happens, so the turns are what tells);
- ``reindex``: ``tether reindex --json``.

Standard library only, so it runs by path without the project on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

CALL_TIMEOUT_S = 120.0
"""A bound on one call, far above its run time even on a loaded machine: a hung call fails the
loop instead of hanging the test."""

KINDS = ("show", "hook", "reindex")


@dataclass
class Tally:
    """What one loop did: calls made, calls that succeeded (exit 0), every failure seen, and
    what the succeeding calls said on stderr (notices; searched for tracebacks afterwards)."""

    calls: int = 0
    ok: int = 0
    errors: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def _argv(kind: str, arg: str) -> tuple[list[str], str]:
    """The command line and standard input of one call of ``kind``."""
    if kind == "show":
        return ["show", "--json", arg], ""
    if kind == "hook":
        return ["hook", "prompt"], json.dumps(
            {"session_id": arg, "cwd": os.getcwd(), "prompt": "what about src/app.py?"}
        )
    return ["reindex", "--json"], ""


def step(repo: Path, kind: str, arg: str, tally: Tally) -> None:
    """Run one call; count it, and record any failure with its stderr."""
    argv, stdin = _argv(kind, arg)
    done = subprocess.run(
        [sys.executable, "-m", "recall", *argv],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=CALL_TIMEOUT_S,
        check=False,
    )
    tally.calls += 1
    if done.returncode != 0:
        tally.errors.append(f"{kind} exit {done.returncode}: {done.stderr.strip()[-2000:]}")
        return
    tally.ok += 1
    if done.stderr.strip():
        tally.texts.append(done.stderr.strip()[-2000:])


def main(argv: list[str]) -> int:
    """Loop until the time is up; always write the tally, even after an unexpected error."""
    repo, kind, seconds, out = Path(argv[0]), argv[1], float(argv[2]), Path(argv[3])
    arg = argv[4] if len(argv) > 4 else ""
    if kind not in KINDS:
        print(f"surface_loops.py: KIND must be one of {', '.join(KINDS)}", file=sys.stderr)
        return 2
    os.chdir(repo)
    deadline = time.monotonic() + seconds
    tally = Tally()
    try:
        while time.monotonic() < deadline:
            step(repo, kind, arg, tally)
    except Exception as error:  # reported to the test, which fails on it
        tally.errors.append(f"driver: {type(error).__name__}: {error}")
    out.write_text(json.dumps(asdict(tally)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
