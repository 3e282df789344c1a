"""Replay a benchmark history (``commits.jsonl``) into a real git repository.

Only commit metadata is published, so file contents are made up: each file gets a few
lines unique to it plus a revision line, rewritten whenever a commit lists the file. A
renamed file keeps its lines, so git's rename detection (``-M``) finds the rename again,
while unrelated files never look alike. The commits go in through one ``git fast-import``
stream, which builds thousands of commits in seconds.

The n-th record (counting from 0, which is its ``idx`` in the published files) becomes
fast-import mark ``n + 1``; the marks are exported to ``.git/replay.marks``, which maps them
to commit ids and lets a later run continue the same repository.

    python -m bench.replay ../shared/bench/data/rdma-core/commits.jsonl /tmp/rdma --upto 6700
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

MARKS_FILE = "replay.marks"
BRANCH = "refs/heads/main"
AUTHOR = "Replay <replay@tether.invalid>"

# Lines of made-up content per file: enough that rewriting the revision line keeps a renamed
# file well above git's 50% similarity threshold for rename detection.
BODY_LINES = 6


def _quote(path: str) -> bytes:
    """A path in fast-import's C-style quoted form, safe for any character."""
    out = bytearray(b'"')
    for byte in path.encode("utf-8", "surrogateescape"):
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes([byte])
        elif byte < 0x20 or byte == 0x7F:
            out += f"\\{byte:03o}".encode()
        else:
            out.append(byte)
    out += b'"'
    return bytes(out)


def _content(seed: str, idx: int) -> bytes:
    lines = [f"{seed} line {n}: replayed content of this file" for n in range(BODY_LINES)]
    lines.append(f"revision {idx}")
    return ("\n".join(lines) + "\n").encode()


def _seed(path: str) -> str:
    return hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def read_commits(commits_jsonl: Path) -> Iterator[dict[str, Any]]:
    """The records of a ``commits.jsonl`` file, in file order (parents before children)."""
    with open(commits_jsonl, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


class _Files:
    """Which replayed files exist, and the content seed each one carries across renames."""

    def __init__(self) -> None:
        self.seeds: dict[str, str] = {}

    def apply(self, record: dict[str, Any]) -> list[bytes]:
        """Advance the state by one commit and return its fast-import file commands."""
        commands: list[bytes] = []
        deleted = set(record.get("deleted") or ())
        for old, new in record.get("renames") or ():
            seed = self.seeds.pop(old, None)
            if seed is None:
                continue
            if new in self.seeds:
                commands.append(b"D " + _quote(new) + b"\n")
            commands.append(b"R " + _quote(old) + b" " + _quote(new) + b"\n")
            self.seeds[new] = seed
        for path in record.get("files") or ():
            if path in deleted:
                if self.seeds.pop(path, None) is not None:
                    commands.append(b"D " + _quote(path) + b"\n")
                continue
            seed = self.seeds.setdefault(path, _seed(path))
            commands.append(
                b"M 100644 inline " + _quote(path) + b"\n" + _data(_content(seed, record["idx"]))
            )
        return commands


def _commit_block(record: dict[str, Any], mark: int, parent: str | None, files: _Files) -> bytes:
    subject = record.get("subject") or f"commit {record['idx']}"
    body = record.get("body") or ""
    message = (subject + ("\n\n" + body if body else "") + "\n").encode("utf-8", "replace")
    stamp = f"{int(record['ts'])} +0000"
    head = [
        f"commit {BRANCH}\n".encode(),
        b"mark :%d\n" % mark,
        f"author {AUTHOR} {stamp}\n".encode(),
        f"committer {AUTHOR} {stamp}\n".encode(),
        _data(message),
    ]
    if parent is not None:
        head.append(f"from {parent}\n".encode())
    return b"".join(head) + b"".join(files.apply(record)) + b"\n"


def _git(dest: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(dest), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def _imported_count(dest: Path) -> int:
    marks = dest / ".git" / MARKS_FILE
    if not marks.exists():
        return 0
    with open(marks, encoding="ascii") as handle:
        return max((int(line.split()[0][1:]) for line in handle if line.strip()), default=0)


def replay_records(
    records: Iterable[dict[str, Any]], dest: Path, upto_idx: int | None = None
) -> Path:
    """Replay ``records`` (commits.jsonl rows, in order) into the git repository ``dest``.

    Commits with ``idx < upto_idx`` are replayed (all when None). A repository this function
    built before is continued from its last replayed commit; otherwise ``dest`` must be
    absent or empty. The working tree is checked out at the end. Returns ``dest``.
    """
    dest = Path(dest)
    if not (dest / ".git").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        if any(dest.iterdir()):
            raise RuntimeError(f"{dest} is not empty and is not a replayed repository")
        _git(dest, "init", "-q", "-b", "main")
    done = _imported_count(dest)
    files = _Files()
    parent = _git(dest, "rev-parse", "--verify", "-q", BRANCH) if done else None
    marks = dest / ".git" / MARKS_FILE
    command = ["git", "-C", str(dest), "fast-import", "--quiet", f"--export-marks={marks}"]
    if done:
        command.append(f"--import-marks={marks}")
    process = subprocess.Popen(command, stdin=subprocess.PIPE)
    stream: IO[bytes] = process.stdin  # type: ignore[assignment]
    try:
        for position, record in enumerate(records):
            if upto_idx is not None and record["idx"] >= upto_idx:
                break
            if position < done:
                files.apply(record)
                continue
            stream.write(_commit_block(record, position + 1, parent, files))
            parent = None
    finally:
        stream.close()
        status = process.wait()
    if status != 0:
        raise RuntimeError(f"git fast-import failed with status {status}")
    if _git(dest, "rev-parse", "--verify", "-q", BRANCH + "^{commit}"):
        _git(dest, "reset", "-q", "--hard", BRANCH)
    return dest


def commit_ids(dest: Path) -> dict[int, str]:
    """Commit id of every replayed record of ``dest``, by the record's ``idx``."""
    ids: dict[int, str] = {}
    marks = dest / ".git" / MARKS_FILE
    if marks.exists():
        with open(marks, encoding="ascii") as handle:
            for line in handle:
                if line.strip():
                    mark, sha = line.split()
                    ids[int(mark[1:]) - 1] = sha
    return ids


def check_out(dest: Path, commit: str, branch: str = "bench") -> None:
    """Put the working tree of ``dest`` at ``commit`` on ``branch`` (moved there), leaving the
    replay's own branch where it is and untracked files (a memory store) alone."""
    _git(dest, "checkout", "-q", "-f", "-B", branch, commit)


def replay(commits_jsonl: Path, dest: Path, upto_idx: int | None = None) -> Path:
    """Replay ``commits_jsonl`` into a git repository at ``dest``; see :func:`replay_records`."""
    return replay_records(read_commits(commits_jsonl), dest, upto_idx)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m bench.replay COMMITS_JSONL DEST [--upto IDX]``."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.replay",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("commits", type=Path, help="a commits.jsonl file")
    parser.add_argument("dest", type=Path, help="repository to create or continue")
    parser.add_argument("--upto", type=int, default=None, help="replay commits with idx < UPTO")
    args = parser.parse_args(argv)
    if not args.commits.is_file():
        print(f"no such file: {args.commits}", file=sys.stderr)
        return 2
    dest = replay(args.commits, args.dest, args.upto)
    print(f"{dest}: {_git(dest, 'rev-list', '--count', 'HEAD')} commits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
