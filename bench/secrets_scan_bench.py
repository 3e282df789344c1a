"""Scan every commit of the shared histories with the secret scanner, as ``tether import`` would.

Each commit becomes the memory ``tether import`` would store (summary = subject, details = body)
and goes through :func:`recall.secrets_scan.refusal`, the check every write makes. Prints how
the labelled corpus of the tests (tests/fixtures/secrets) fares, how long one long hostile line
takes, and per history how many commits were scanned and refused, every refusal with its
commit, and the scan time per commit (median and 99th percentile). ``--compare REV`` runs the
scanner as it was at a git revision too (the hand-written one before detect-secrets, for
instance) in the same run, so the two are measured on the same loaded machine. ``--full`` runs
the full scan too (every detector on every line, no prefilter), and counts the commits where its
refusal differs from the prefiltered scan's: there must be none.

    python -m bench.secrets_scan_bench [--data ../shared/bench/data] [--compare REV] [--full]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.table import median, percentile, print_command, print_table
from recall import secrets_scan

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "bench" / "data"
CORPUS = REPO_ROOT / "tests" / "fixtures" / "secrets"
HISTORIES = ("iproute2", "rdma-core", "optee", "networkmanager")
FULL = "full (no prefilter)"

Refuse = Callable[[dict[str, str | None]], "str | None"]


def commit_fields(commit: dict) -> dict[str, str | None]:
    """The fields ``tether import`` scans for one commit line (as bench.quality writes it)."""
    return {"summary": commit["subject"] or "(no subject)", "details": commit["body"] or None}


def read_commits(path: Path) -> Iterator[dict]:
    """Each commit of a history's commits.jsonl."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def corpus_rows(scanners: dict[str, Refuse]) -> list[tuple[object, ...]]:
    """Per scanner: credentials of the labelled corpus refused, harmless texts refused."""

    def load(name: str) -> list[dict]:
        return list(read_commits(CORPUS / name))

    credentials, harmless = load("credentials.jsonl"), load("harmless.jsonl")
    rows: list[tuple[object, ...]] = []
    for name, refuse in scanners.items():
        caught = sum(bool(refuse({"text": c["text"].replace("§", "")})) for c in credentials)
        false = [h["name"] for h in harmless if refuse({"text": h["text"]})]
        rows.append(
            (
                name,
                f"{caught} of {len(credentials)}",
                f"{len(false)} of {len(harmless)}",
                ", ".join(false) or "—",
            )
        )
    return rows


# Long one-line texts shaped to make a backtracking pattern retry from every character.
LONG_LINES = {
    "dotted words": "ab.cd-",
    "scheme-like runs": "a://:",
    "empty URL users": "://a:",
    "JWT-like dots": "eyJa.",
    "keywords": "password token = ",
    "npm config lines": "//a/:_authToken=",
}
LONG_LINE_CHARS = 160_000


def long_line_rows(scanners: dict[str, Refuse]) -> list[tuple[object, ...]]:
    """Per shape of a long hostile line and per scanner: the seconds of one scan."""
    rows: list[tuple[object, ...]] = []
    for shape, unit in LONG_LINES.items():
        text = unit * (LONG_LINE_CHARS // len(unit))
        for name, refuse in scanners.items():
            started = time.perf_counter()
            refuse({"details": text})
            rows.append((shape, name, f"{len(text):,}", f"{time.perf_counter() - started:.2f} s"))
    return rows


def scanner_at(revision: str) -> Refuse:
    """``refusal`` of ``recall`` as it was at ``revision``: the package exported from git into a
    temporary folder and imported under its own name, then today's modules put back (the old
    functions keep the old modules they were imported with)."""
    archive = subprocess.run(
        ["git", "archive", revision, "recall"], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    today = {name: sys.modules.pop(name) for name in list(sys.modules) if _in_recall(name)}
    with tempfile.TemporaryDirectory(prefix="secrets-scan-at-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        sys.path.insert(0, folder)
        try:
            refuse = importlib.import_module("recall.secrets_scan").refusal
            refuse({"text": "warm up: password = 'x'", "details": "token"})  # lazy imports too
        finally:
            sys.path.remove(folder)
            for name in [name for name in sys.modules if _in_recall(name)]:
                del sys.modules[name]
            sys.modules.update(today)
    return refuse


def _in_recall(module_name: str) -> bool:
    return module_name == "recall" or module_name.startswith("recall.")


def run_history(
    path: Path, scanners: dict[str, Refuse]
) -> tuple[
    dict[str, list[float]], dict[str, list[tuple[dict, str]]], int, list[dict[str, str | None]]
]:
    """Per scanner: the seconds of each scan and the refused commits; the commit count; and
    per commit, each scanner's message."""
    seconds: dict[str, list[float]] = {name: [] for name in scanners}
    refused: dict[str, list[tuple[dict, str]]] = {name: [] for name in scanners}
    messages: list[dict[str, str | None]] = []
    count = 0
    for commit in read_commits(path):
        count += 1
        fields = commit_fields(commit)
        messages.append({})
        for name, refuse in scanners.items():
            started = time.perf_counter()
            message = refuse(fields)
            seconds[name].append(time.perf_counter() - started)
            messages[-1][name] = message
            if message:
                refused[name].append((commit, message))
    return seconds, refused, count, messages


def main(argv: list[str] | None = None) -> int:
    """Scan the four histories and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="datasets folder")
    parser.add_argument("--compare", metavar="REV", help="also run the scanner at this revision")
    parser.add_argument("--only", choices=HISTORIES, action="append", help="histories to scan")
    parser.add_argument(
        "--full", action="store_true", help="also run the full scan and compare every refusal"
    )
    args = parser.parse_args(argv)
    scanners: dict[str, Refuse] = {"current": secrets_scan.refusal}
    if args.compare:
        scanners[args.compare] = scanner_at(args.compare)
    if args.full:
        scanners[FULL] = functools.partial(secrets_scan.refusal, prefilter=False)
    secrets_scan.scan("warm up: import detect-secrets before timing")

    rows, refusal_rows, differ_rows = [], [], []
    for name in args.only or HISTORIES:
        path = args.data / name / "commits.jsonl"
        if not path.is_file():
            print(f"{path}: no such file; pass --data", file=sys.stderr)
            return 2
        seconds, refused, count, messages = run_history(path, scanners)
        if args.full:
            differ = sum(m["current"] != m[FULL] for m in messages)
            differ_rows.append((name, f"{count:,}", differ))
        for scanner in scanners:
            times = seconds[scanner]
            rows.append(
                (
                    name,
                    scanner,
                    f"{count:,}",
                    len(refused[scanner]),
                    f"{median(times) * 1e6:.0f} µs",
                    f"{percentile(times, 99) * 1e6:.0f} µs",
                    f"{sum(times):.1f} s",
                )
            )
            for commit, message in refused[scanner]:
                what = message.split(": ", 1)[1].split(". Remove it", 1)[0]
                refusal_rows.append((name, scanner, commit["sha"][:12], commit["idx"], what))
    print_table(
        "Labelled corpus (tests/fixtures/secrets)",
        ("scanner", "credentials refused", "harmless refused", "which harmless"),
        corpus_rows(scanners),
    )
    print_table(
        "One long hostile line",
        ("shape", "scanner", "characters", "scan time"),
        long_line_rows(scanners),
    )
    headers = ("history", "scanner", "commits", "refused", "median", "p99", "total")
    print_table("Secret scan of every commit (subject + body)", headers, rows)
    if differ_rows:
        print_table(
            "Prefiltered scan against the full scan (every detector on every line)",
            ("history", "commits", "commits whose refusal differs"),
            differ_rows,
        )
    print_table(
        "Refused commits",
        ("history", "scanner", "commit", "line", "what was found"),
        refusal_rows or [("—", "—", "—", "—", "none")],
    )
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
