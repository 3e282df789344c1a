"""Language-server benchmark: Tether over stdio against a bare pygls server in the same run.

At ``--memories`` memories (10,000 by default) on generated files:

- spawn → initialize result (goal ≤ 1.1 s), and spawn → first diagnostics on a cold store;
- didChange → publishDiagnostics p50/p99 (goal p50 ≤ 10 ms), changes spaced as an agent's are;
- hover p50/p99 on a memory's range;
- a 1,000-change burst sent back to back: publishes sent and the time until the last state is
  published (coalesced, no backlog).

The floor is ``bench/bare_lsp.py``: pygls publishing a fixed diagnostic, measured the same way.

Then the real-history part (``bench.lsp_hub``): a shared history imported at its cut
(networkmanager, 25.7k memories; iproute2 with ``--quick``), didOpen and didChange →
publishDiagnostics on its hub files, and the server's memory, beside the same floor.
``--part synthetic`` or ``--part real`` runs one of the two; ``--profile-server FILE`` runs the
server of the real part under cProfile and writes its stats to FILE.

Run with ``python -m bench.lsp_bench``; it prints markdown tables and the command.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import lsp_hub, real_bench, synth
from bench.lsp_wire import Wire, is_publish
from bench.table import median, percentile, print_command, print_table
from recall.genome import Genome
from recall.locations import project_location
from recall.store import MemoryStore

TETHER = [sys.executable, "-m", "recall", "lsp"]
FLOOR = [sys.executable, "-m", "bench.bare_lsp"]
GAP_SECONDS = 0.03  # between measured changes: slower than a burst, far faster than an agent


def build_repo(root: Path, count: int) -> tuple[Path, str]:
    """A git repository with the generated files and ``count`` memories; returns the root and
    the hottest file (the one most memories name)."""
    records = list(synth.memories(count))
    paths = sorted({p for r in records for p in r["files"]})
    root.mkdir(parents=True)
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def handler_{i}(request):\n    return request\n\n" for i in range(40))
        target.write_text(f"# {path}\n" + body, encoding="utf-8")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "files"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    store = MemoryStore(project_location(root, create_at_cwd=True), notice=lambda m: None)
    drafts = [
        (
            store.prepare_memory(
                summary=r["summary"],
                category=r["category"],
                files=r["files"],
                details=r["details"],
                created=r["created"],
            ),
            None,
        )
        for r in records
    ]
    store.import_many(drafts)
    Genome.load(root, store.conn, refresh=True)  # indexed beforehand: no refresh races the run
    store.close()
    gotchas = collections.Counter(
        p for r in records if r["category"] == "gotcha" for p in r["files"]
    )
    return root, gotchas.most_common(1)[0][0]


def initialize(wire: Wire, root: Path) -> float:
    """initialize + initialized; return seconds from spawn to the initialize result."""
    params = {
        "processId": None,
        "rootUri": root.as_uri(),
        "capabilities": {"textDocument": {"hover": {"contentFormat": ["markdown"]}}},
        "clientInfo": {"name": "lsp-bench"},
        "initializationOptions": {"hintSessionBudget": 1_000_000},
    }
    wire.request("initialize", params)
    arrived = time.perf_counter()
    wire.notify("initialized", {})
    return arrived - wire.started


def open_document(wire: Wire, path: Path, text: str) -> tuple[float, list[Any]]:
    """didOpen; return (seconds to its publish, the diagnostics)."""
    uri = path.as_uri()
    item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    sent = wire.notify("textDocument/didOpen", {"textDocument": item})
    arrived, message = wire.wait(is_publish(uri))
    return arrived - sent, message["params"]["diagnostics"]


def change(wire: Wire, uri: str, version: int, text: str) -> float:
    """didChange with the whole text; return when it was written."""
    return wire.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}],
        },
    )


def measure(command: list[str], root: Path, target: Path, args: argparse.Namespace) -> dict:
    """Every figure for one server."""
    env = {**os.environ, "TETHER_HOME": str(root.parent / "home")}
    spawns = []
    for _ in range(args.spawns):
        wire = Wire(command, env)
        spawns.append(initialize(wire, root))
        wire.close()

    wire = Wire(command, env)
    initialize(wire, root)
    text = target.read_text(encoding="utf-8")
    _, found = open_document(wire, target, text)
    cold = time.perf_counter() - wire.started
    uri = target.as_uri()

    changes = []
    for version in range(2, args.changes + 2):
        time.sleep(GAP_SECONDS)
        sent = change(wire, uri, version, text + f"# edit {version}\n")
        arrived, _ = wire.wait(is_publish(uri))
        changes.append(arrived - sent)

    hovers = []
    where = found[0]["range"]["start"] if found else {"line": 0, "character": 0}
    for _ in range(args.hovers):
        taken, _ = wire.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": where}
        )
        hovers.append(taken)

    time.sleep(GAP_SECONDS)
    base = args.changes + 2
    before = wire.published[uri]
    start = time.perf_counter()
    for step in range(args.burst):
        change(wire, uri, base + step, f"# burst {step}\n" + text)
    sent_all = time.perf_counter()
    taken, _ = wire.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": where})
    drained = time.perf_counter()
    publishes = wire.published[uri] - before
    wire.close()
    return {
        "spawn": spawns,
        "cold": cold,
        "diagnostics": len(found),
        "changes": changes,
        "hovers": hovers,
        "burst_send": sent_all - start,
        "burst_drain": drained - sent_all,
        "burst_publishes": publishes,
    }


def ms(seconds: float) -> str:
    """Seconds as milliseconds for a table cell."""
    return f"{seconds * 1000:.2f} ms"


def report(tether: dict, floor: dict, args: argparse.Namespace, hot: str) -> None:
    """Print the tables."""
    print_table(
        f"Start-up ({args.spawns} spawns each)",
        ("server", "spawn → initialize p50", "max", "spawn → first diagnostics (cold store)"),
        [
            ("tether", ms(median(tether["spawn"])), ms(max(tether["spawn"])), ms(tether["cold"])),
            (
                "bare pygls (floor)",
                ms(median(floor["spawn"])),
                ms(max(floor["spawn"])),
                ms(floor["cold"]),
            ),
        ],
    )
    rows = []
    for name, data in (("tether", tether), ("bare pygls (floor)", floor)):
        rows.append(
            (
                name,
                ms(percentile(data["changes"], 50)),
                ms(percentile(data["changes"], 99)),
                ms(percentile(data["hovers"], 50)),
                ms(percentile(data["hovers"], 99)),
            )
        )
    print_table(
        f"didChange → publishDiagnostics ({args.changes} changes) and hover ({args.hovers}) "
        f"on {hot} ({tether['diagnostics']} memory diagnostics), {args.memories:,} memories",
        ("server", "change p50", "change p99", "hover p50", "hover p99"),
        rows,
    )
    print_table(
        f"Burst: {args.burst:,} changes sent back to back",
        ("server", "sending took", "publishes", "answered after the last change"),
        [
            (name, ms(d["burst_send"]), f"{d['burst_publishes']:,}", ms(d["burst_drain"]))
            for name, d in (("tether", tether), ("bare pygls (floor)", floor))
        ],
    )


def main(argv: list[str] | None = None) -> int:
    """Build the repository, measure both servers, print the tables."""
    parser = argparse.ArgumentParser(prog="python -m bench.lsp_bench", description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=300)
    parser.add_argument("--hovers", type=int, default=200)
    parser.add_argument("--burst", type=int, default=1_000)
    parser.add_argument("--spawns", type=int, default=5)
    parser.add_argument(
        "--quick", action="store_true", help="2,000 memories and fewer samples (for make bench)"
    )
    parser.add_argument("--part", choices=("both", "synthetic", "real"), default="both")
    parser.add_argument(
        "--history", default=None, help="real part: history (networkmanager; --quick: iproute2)"
    )
    parser.add_argument(
        "--data", type=Path, default=real_bench._default_data(), help="dataset folder"
    )
    parser.add_argument("--runs", type=int, default=5, help="real part: fresh servers")
    parser.add_argument("--keystrokes", type=int, default=40, help="real part: per hub file")
    parser.add_argument("--hub-files", type=int, default=lsp_hub.HUB_FILES)
    parser.add_argument("--profile-server", type=Path, metavar="FILE", help="real part")
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="real part: build in DIR, reuse it next time"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.memories, args.changes, args.hovers = 2_000, 100, 100
        args.burst, args.spawns, args.runs, args.keystrokes = 300, 3, 3, 20
    history = args.history or ("iproute2" if args.quick else "networkmanager")
    if args.part != "synthetic" and not (args.data / history / "commits.jsonl").is_file():
        print(f"no history {history} under {args.data}; pass --data", file=sys.stderr)
        return 2
    if args.part != "real":
        with tempfile.TemporaryDirectory(prefix="tether-lsp-bench-") as work:
            start = time.perf_counter()
            root, hot = build_repo(Path(work) / "repo", args.memories)
            print(f"built {args.memories:,} memories in {time.perf_counter() - start:.1f} s")
            target = root / hot
            tether = measure(TETHER, root, target, args)
            floor = measure(FLOOR, root, target, args)
        report(tether, floor, args, hot)
    if args.part != "synthetic":
        server = TETHER
        if args.profile_server:
            profile = str(args.profile_server.resolve())
            server = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "recall", "lsp"]
        with tempfile.TemporaryDirectory(prefix="tether-lsp-hub-") as tmp:
            work = args.keep.resolve() if args.keep else Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            lsp_hub.run(
                args.data,
                history,
                runs=args.runs,
                keystrokes=args.keystrokes,
                files=args.hub_files,
                tether=server,
                floor=FLOOR,
                work=work,
            )
    print_command()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
