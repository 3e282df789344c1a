"""One CLI writer for the all-writers test, run as its own process so its loop runs there.

``python cli_loop.py REPO TAG SECONDS OUT`` loops ``tether remember`` / ``pin`` / ``supersede``
/ ``recall`` (each a real ``python -m recall`` subprocess in REPO) for SECONDS, then writes
what it was told to OUT as JSON (the fields of :class:`Log`). Standard library only, so it runs
by path without the project on ``sys.path``; the test imports :class:`Log` from here too.
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
"""A bound on one CLI call, far above its run time even on a loaded machine: a hung call
fails the writer instead of hanging the test."""


@dataclass
class Log:
    """What one writer was told: created ids, pinned ids, (old, new) supersessions, errors.

    ``texts`` keeps every message a user of that surface would have seen besides results
    (stderr, log and error messages), to be searched for "locked" afterwards.
    """

    created: list[str] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)
    superseded: list[list[str]] = field(default_factory=list)
    attempts: int = 0
    recalls: int = 0
    errors: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def own_active(self) -> list[str]:
        """The memories this writer created and has not superseded yet, oldest first."""
        replaced = {old for old, _new in self.superseded}
        return [c for c in self.created if c not in replaced]


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recall", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=dict(os.environ),
        timeout=CALL_TIMEOUT_S,
        check=False,
    )


def next_call(i: int, log: Log) -> tuple[str, str]:
    """The ``i``-th call of the cycle remember, pin, supersede, recall, and the memory it acts
    on: pin the writer's newest active memory, supersede its oldest (a remember until it has
    one). Every writer kind follows this plan, so the figures compare like with like."""
    active = log.own_active()
    kind = ("recall", "remember", "pin", "supersede")[i % 4]
    if kind in ("pin", "supersede") and not active:
        kind = "remember"
    target = active[-1] if kind == "pin" else active[0] if kind == "supersede" else ""
    return kind, target


def step(repo: Path, tag: str, i: int, log: Log) -> None:
    """Run the ``i``-th call of the plan through the CLI; record what it reported."""
    kind, target = next_call(i, log)
    if kind == "pin":
        done = _cli(repo, "pin", "--json", target)
    elif kind == "supersede":
        summary = f"{tag} replaces {target} at {i}"
        done = _cli(
            repo, "supersede", "--json", target, "-c", "decision", "-f", "src/util.py", summary
        )
    elif kind == "recall":
        done = _cli(repo, "recall", "--json", "--file", "src/app.py")
    else:
        done = _cli(repo, "remember", "--json", "-c", "gotcha", "-f", "src/app.py", f"{tag} {i}")
    log.attempts += kind != "recall"
    log.texts.append(done.stderr)
    if done.returncode != 0:
        log.errors.append(f"{kind} exit {done.returncode}: {done.stderr.strip()}")
        return
    out = json.loads(done.stdout)
    if kind == "remember":
        log.created.append(out["id"])
    elif kind == "pin":
        log.pinned.append(target)
    elif kind == "supersede":
        log.created.append(out["id"])
        log.superseded.append([target, out["id"]])
    else:
        log.recalls += 1


def main(argv: list[str]) -> int:
    """Loop until the time is up; always write the log, even after an unexpected error."""
    repo, tag, seconds, out = Path(argv[0]), argv[1], float(argv[2]), Path(argv[3])
    deadline = time.monotonic() + seconds
    log = Log()
    i = 0
    try:
        while time.monotonic() < deadline:
            i += 1
            step(repo, tag, i, log)
    except Exception as error:  # reported to the test, which fails on it
        log.errors.append(f"driver: {type(error).__name__}: {error}")
    out.write_text(json.dumps(asdict(log)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
