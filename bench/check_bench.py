"""`tether check` on a pull request's diff, as CI runs it: a whole process against a base branch.

A repository of ``--files`` source files with ``--memories`` memories on them (a tenth guarded,
a tenth pinned) gets a branch changing ``--changed`` files; ``tether check --base main --json``
is timed as a whole process, beside a floor measured in the same run: the two ``git diff`` calls
the check makes, and a bare Python start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.table import median, print_command, print_table

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def _run(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    """Run ``cmd``; its wall time in ms (the exit code is the caller's to judge)."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False)
    return (time.perf_counter() - start) * 1000


def build(root: Path, files: int, memories: int, changed: int, env: dict[str, str]) -> None:
    """The repository, its memories (committed on ``main``) and the branch with the change."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    for i in range(files):
        path = root / f"src/mod{i // 50:02d}/file{i:04d}.c"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"int f{i}_{j}(void) {{ return {j}; }}\n" for j in range(40))
        path.write_text(body, encoding="utf-8")
    lines = []
    for i in range(memories):
        target = f"src/mod{(i % files) // 50:02d}/file{i % files:04d}.c"
        category = ("decision", "gotcha", "context", "context", "context")[i % 5]
        lines.append(
            json.dumps(
                {
                    "summary": f"memory {i} about file {i % files}",
                    "category": category,
                    "files": [target],
                    "created": "2026-01-01T00:00:00+00:00",
                }
            )
        )
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "code"], cwd=root, check=True, env=env)
    tether = [sys.executable, "-m", "recall"]
    batch = root.parent / "memories.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    subprocess.run(
        [*tether, "import", str(batch)], cwd=root, check=True, env=env, capture_output=True
    )
    listed = subprocess.run(
        [*tether, "list", "--json", "--limit", str(memories)],
        cwd=root,
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    ids = [m["id"] for m in json.loads(listed.stdout)]
    for n, memory_id in enumerate(ids[: memories // 10]):
        subprocess.run(
            [*tether, "pin" if n % 2 else "guard", memory_id],
            cwd=root,
            env=env,
            capture_output=True,
            check=False,
        )
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "memories"], cwd=root, check=True, env=env)
    subprocess.run(["git", "checkout", "-q", "-b", "change"], cwd=root, check=True, env=env)
    for i in range(changed):
        path = root / f"src/mod{(i * 7 % files) // 50:02d}/file{i * 7 % files:04d}.c"
        text = path.read_text(encoding="utf-8").replace("return 3;", "return 33;")
        path.write_text(text + "int added(void) { return 0; }\n", encoding="utf-8")
    subprocess.run(["git", "commit", "-qam", "change"], cwd=root, check=True, env=env)


def main(argv: list[str] | None = None) -> int:
    """Build the repository, time the check and its floor, print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.check_bench")
    parser.add_argument("--quick", action="store_true", help="3 runs instead of 7")
    parser.add_argument("--files", type=int, default=700)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--changed", type=int, default=50)
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 7
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, **GIT_ENV, "TETHER_HOME": str(Path(tmp) / "home")}
        root = Path(tmp) / "repo"
        build(root, args.files, args.memories, args.changed, env)
        check = [sys.executable, "-m", "recall", "check", "--base", "main", "--json"]
        done = subprocess.run(check, cwd=root, env=env, capture_output=True, text=True, check=False)
        report = json.loads(done.stdout)
        checks = [_run(check, root, env) for _ in range(runs)]
        diffs = [
            _run(["git", "diff", "--name-status", "-M", "-z", "main...HEAD"], root, env)
            + _run(["git", "diff", "-U0", "--no-color", "-M", "main...HEAD"], root, env)
            for _ in range(runs)
        ]
        python = [_run([sys.executable, "-c", "pass"], root, env) for _ in range(runs)]
    floor = median(diffs) + median(python)
    print_table(
        f"tether check --base main: {args.changed} changed files of {args.files}, "
        f"{args.memories} memories (median of {runs}, whole process)",
        ["what", "ms", "vs floor"],
        [
            ["tether check", f"{median(checks):.0f}", f"{median(checks) / floor:.1f}x"],
            ["floor: git diff x2", f"{median(diffs):.0f}", ""],
            ["floor: python start-up", f"{median(python):.0f}", ""],
            [
                "found",
                f"{len(report['memories'])} memories, "
                f"{sum(1 for m in report['memories'] if m['failures'])} failing "
                f"(exit {done.returncode})",
                "",
            ],
        ],
    )
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
