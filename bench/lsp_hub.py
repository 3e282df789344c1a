"""The language server on the hub files of a real history, over raw stdio, beside the bare floor.

A shared history (``../shared/bench/data/<name>``) is replayed and imported up to its cut
(``bench.real_bench.build``: the commits before ``cut_idx`` as memories, the genome indexed, the
clock pinned to the cut). The files most memories name are its hub files. Each run spawns a
fresh server, opens one other file first (the session's first recall: stores, genome and
vectors loaded), waits for the end of its start-up indexing (the work-done progress an editor
shows; the time from spawn to that end is reported), then on each hub file times:

- didOpen → publishDiagnostics (the file's first publish in the session);
- didChange → publishDiagnostics, one keystroke at a time (an incremental one-character
  insert), spaced as typing is; and until a request sent behind it is answered (everything
  the keystroke set off is done, a ranking finished after its first publish included).

A request follows every open and keystroke, so no work spills into the next timing.

The document is the replayed file padded with made-up C to a hub file's size, so the text a
publish reads is as long as a real one; it is written to the working tree before any server
starts, since an editor opens a file as it is on disk (and the warm-up parses that). Imported
commits carry no anchor, so each hub file also
gets two gotchas written with ``tether remember --anchor``: one on a function defined near the
end of the document, one on a line range; every publish places them in the current text.

The server ranks the files most memories name ahead, after its start-up indexing (its warm-up),
and the timed phase begins once it is idle: so the same server is measured again with nothing
ranked ahead (``warmFiles`` 0), which is what an open meets before the warm-up has ended, and the
server's CPU from the end of its indexing until it is idle is reported (the warm-up's cost).

The server's resident memory (VmRSS, and its peak VmHWM) is read from ``/proc`` at the end of
each run, and its CPU time (once it is idle after start-up) over the timed phase, per open
and per keystroke (each with the request behind it). The bare pygls server (``bench.bare_lsp``)
gets the same messages in the same run.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.lsp_wire import Wire, is_publish
from bench.real_bench import History, build, read_commits
from bench.real_bench import _tether as tether_cli
from bench.table import median, percentile, print_table

TYPING_GAP = 0.03
"""Seconds between measured keystrokes: faster than people type, slower than the server's
burst window, so each one is published on its own."""
SETTLE_SECONDS = 1.0
"""Pause after the server's start-up indexing reported its end, so the rest of its start-up
work (the session-start pass, which reports no progress) is done before anything is timed;
then the server is watched until it uses no CPU."""
IDLE_SAMPLE = 0.3
IDLE_WAIT_MAX = 60.0
HUB_FILES = 5
DOC_LINES = 6_000
"""Lines of the document a hub file is opened with (``src/nm-manager.c`` has about 8,000)."""
GOAL_OPEN_MS = 30.0
GOAL_CHANGE_MS = 15.0
GOAL_RSS_MIB = 150.0


@dataclass
class Measured:
    """What one server did over every run."""

    opens: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    changes: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    settled: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    """Per keystroke: until a request behind it was answered (all of its work done)."""
    first_open: list[float] = field(default_factory=list)
    ready: list[float] = field(default_factory=list)
    """Per run: spawn → the end of the server's start-up work-done progress (indexing)."""
    diagnostics: dict[str, int] = field(default_factory=dict)
    rss_mib: list[float] = field(default_factory=list)
    peak_mib: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    after_ready_s: list[float] = field(default_factory=list)
    """Per run: server CPU from the end of its indexing until it was idle (the files ranked
    ahead, the session-start pass)."""
    open_cpu_s: float = 0.0
    """Server CPU time over every timed open (its request behind it included)."""
    key_cpu_s: float = 0.0
    """Server CPU time over every timed keystroke (its request behind it included)."""


def hub_files(commits: list[dict[str, Any]], repo: Path, count: int) -> list[tuple[str, int]]:
    """The ``count`` files of the working tree that the most memories name, with that number."""
    named = collections.Counter(path for c in commits for path in c["files"])
    found = [(p, n) for p, n in named.most_common() if (repo / p).is_file()]
    return found[:count]


def document(repo: Path, path: str, lines: int) -> str:
    """The replayed file's text padded with made-up C functions to ``lines`` lines."""
    text = (repo / path).read_text(encoding="utf-8")
    body = []
    number = 0
    while text.count("\n") + len(body) < lines:
        body += [
            "",
            "static int",
            f"{helper_name(path, number)} (int value, const char *name)",
            "{",
            "\tif (!name)",
            "\t\treturn -1;",
            f"\treturn value + {number};",
            "}",
        ]
        number += 1
    return text + "\n".join(body) + "\n" if body else text  # written back: padded once


def helper_name(path: str, number: int) -> str:
    """The name of the ``number``-th made-up function of :func:`document`."""
    return f"{Path(path).stem.replace('-', '_')}_helper_{number}"


ANCHORED_MARK = "lsp-hub-anchored"
"""A file in the replayed repository's ``.git`` saying the anchored gotchas were written."""


def write_anchored(h: History, paths: list[str]) -> None:
    """Two anchored gotchas per hub file (once per built repository)."""
    mark = h.repo / ".git" / ANCHORED_MARK
    if mark.exists():
        return
    last = (DOC_LINES // 8) - 10  # a function near the end of the padded document
    for path in paths:
        for summary, anchor in (
            (f"{helper_name(path, last)} must keep its lock order", helper_name(path, last)),
            (f"the block at the middle of {path} is order-sensitive", "L3000-3010"),
        ):
            tether_cli(h, "remember", summary, "-c", "gotcha", "--file", path, "--anchor", anchor)
    mark.write_text("yes\n", encoding="utf-8")


def _proc_status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of a process, in MiB."""
    found = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
    return found


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_idle(pid: int) -> None:
    """Until the process used no CPU over a sample (its background start-up work is done)."""
    deadline = time.perf_counter() + IDLE_WAIT_MAX
    used = _cpu_seconds(pid)
    while time.perf_counter() < deadline:
        time.sleep(IDLE_SAMPLE)
        now = _cpu_seconds(pid)
        if now == used:
            return
        used = now


def _initialize(wire: Wire, root: Path, options: dict[str, Any]) -> None:
    params = {
        "processId": None,
        "rootUri": root.as_uri(),
        "capabilities": {
            "textDocument": {"hover": {"contentFormat": ["markdown"]}},
            # as editors declare it: the server reports its start-up indexing, and the timed
            # phase begins once that has ended, where a user's editing meets a ready server
            "window": {"workDoneProgress": True},
        },
        "clientInfo": {"name": "lsp-bench"},
        # Every commit is imported as a context memory, which the server does not show by
        # default (gotchas only): shown here, so each hub file publishes its top memories.
        "initializationOptions": {
            "hintSessionBudget": 1_000_000,
            "diagnosticCategories": ["gotcha", "decision", "pref", "context"],
            **options,
        },
    }
    wire.request("initialize", params)
    wire.notify("initialized", {})


BARRIER = "file:///lsp-hub-barrier"
"""A document no server knows: a hover on it is answered after everything sent before it."""


def _barrier(wire: Wire) -> float:
    """Wait until the server has handled everything sent so far; drop what it sent meanwhile
    (the inbox is empty afterwards); return when the answer arrived."""
    wire.request(
        "textDocument/hover",
        {"textDocument": {"uri": BARRIER}, "position": {"line": 0, "character": 0}},
    )
    arrived = time.perf_counter()
    while not wire.inbox.empty():
        wire.inbox.get_nowait()
    return arrived


def _open(wire: Wire, path: Path, text: str) -> tuple[float, int]:
    uri = path.as_uri()
    item = {"uri": uri, "languageId": "c", "version": 1, "text": text}
    # The clock starts before the write: the reader thread may stamp a fast answer before
    # the writing thread gets the interpreter back. The inbox is empty (a barrier came last).
    sent = time.perf_counter()
    wire.notify("textDocument/didOpen", {"textDocument": item})
    arrived, message = wire.wait(is_publish(uri))
    _barrier(wire)
    return arrived - sent, len(message["params"]["diagnostics"])


def _keystroke(wire: Wire, uri: str, version: int, line: int) -> tuple[float, float]:
    """One keystroke: (seconds to its first publish, seconds until all its work was done)."""
    change = {
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
        "text": "x",
    }
    sent = time.perf_counter()  # before the write, as in _open
    wire.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
    )
    arrived, _ = wire.wait(is_publish(uri))
    done = _barrier(wire)
    return arrived - sent, done - sent


def measure(
    command: list[str],
    repo: Path,
    env: dict[str, str],
    warmup: str,
    hubs: list[str],
    texts: dict[str, str],
    runs: int,
    keystrokes: int,
    *,
    reports_progress: bool,
    options: dict[str, Any] | None = None,
) -> Measured:
    """Every run of one server: a fresh process, a first open, its start-up indexing ended
    (with ``reports_progress``; the floor reports none), then each hub file."""
    out = Measured()
    for _ in range(runs):
        wire = Wire(command, env)
        _initialize(wire, repo, options or {})
        taken, _ = _open(wire, repo / warmup, texts[warmup])
        out.first_open.append(taken)
        ready = wire.ready(expect=reports_progress, timeout=IDLE_WAIT_MAX)
        if ready is not None:
            out.ready.append(ready - wire.started)
        pid = wire.process.pid
        settling = _cpu_seconds(pid)
        time.sleep(SETTLE_SECONDS)
        _wait_idle(pid)
        out.after_ready_s.append(_cpu_seconds(pid) - settling)
        _barrier(wire)  # anything the start-up work published is dropped
        cpu = _cpu_seconds(pid)
        for path in hubs:
            target = repo / path
            before = _cpu_seconds(pid)
            taken, shown = _open(wire, target, texts[path])
            out.open_cpu_s += _cpu_seconds(pid) - before
            out.opens[path].append(taken)
            out.diagnostics[path] = shown
            middle = texts[path].count("\n") // 2
            for version in range(2, keystrokes + 2):
                time.sleep(TYPING_GAP)
                before = _cpu_seconds(pid)
                first, done = _keystroke(wire, target.as_uri(), version, middle)
                out.key_cpu_s += _cpu_seconds(pid) - before
                out.changes[path].append(first)
                out.settled[path].append(done)
            wire.notify("textDocument/didClose", {"textDocument": {"uri": target.as_uri()}})
        out.cpu_s.append(_cpu_seconds(pid) - cpu)
        status = _proc_status(pid)
        out.rss_mib.append(status["VmRSS"])
        out.peak_mib.append(status["VmHWM"])
        print(
            f"{command[-1]} run {len(out.first_open)}: first open {_ms(out.first_open[-1])}, "
            f"spawn → indexing ended {_ms(ready - wire.started) if ready else '—'}, "
            f"CPU over the timed phase {_ms(out.cpu_s[-1])}, RSS {status['VmRSS']:.0f} MiB",
            file=sys.stderr,
            flush=True,
        )
        wire.close()
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _all(values: dict[str, list[float]]) -> list[float]:
    return [v for vs in values.values() for v in vs]


def report(
    name: str,
    memories: int,
    hubs: list[tuple[str, int]],
    tether: Measured,
    cold: Measured,
    floor: Measured,
    runs: int,
    keystrokes: int,
) -> None:
    """Print the tables (``cold``: the server with no file ranked ahead, as an open before
    its warm-up ended meets it)."""
    rows = []
    for path, named in hubs:
        t_open, f_open = median(tether.opens[path]), median(floor.opens[path])
        c_open = median(cold.opens[path])
        t_change, f_change = median(tether.changes[path]), median(floor.changes[path])
        rows.append(
            (
                f"`{path}`",
                str(named),
                str(tether.diagnostics[path]),
                _ms(t_open),
                _ms(c_open),
                _ms(f_open),
                f"{t_open / f_open:.1f}×",
                _ms(t_change),
                _ms(f_change),
                f"{t_change / f_change:.1f}×",
            )
        )
    print_table(
        f"Hub files of {name} at its cut ({memories:,} memories): median of {runs} runs "
        f"(open) and of {runs}×{keystrokes} keystrokes (change)",
        (
            "file",
            "memories naming it",
            "diagnostics",
            "didOpen → publish",
            "before the warm-up",
            "floor",
            "ratio",
            "didChange → publish",
            "floor",
            "ratio",
        ),
        rows,
    )
    rows = []
    for label, data in (
        ("tether", tether),
        ("tether, before the warm-up", cold),
        ("bare pygls (floor)", floor),
    ):
        opens, changes, settled = _all(data.opens), _all(data.changes), _all(data.settled)
        rows.append(
            (
                label,
                _ms(percentile(opens, 50)),
                _ms(percentile(opens, 99)),
                _ms(percentile(changes, 50)),
                _ms(percentile(changes, 99)),
                f"{_ms(percentile(settled, 50))} / {_ms(percentile(settled, 99))}",
                _ms(median(data.first_open)),
                _ms(median(data.ready)) if data.ready else "—",
                f"{data.open_cpu_s * 1000 / len(opens):.1f} ms",
                f"{data.key_cpu_s * 1000 / len(changes):.2f} ms",
                f"{median(data.cpu_s) * 1000:.0f} ms",
                f"{median(data.after_ready_s) * 1000:.0f} ms",
                f"{max(data.rss_mib):.0f} MiB / {max(data.peak_mib):.0f} MiB",
            )
        )
    print_table(
        f"All hub files together ({len(hubs)} files × {runs} runs; goals: open p50 ≤ "
        f"{GOAL_OPEN_MS:.0f} ms, change p50 ≤ {GOAL_CHANGE_MS:.0f} ms, RSS ≤ "
        f"{GOAL_RSS_MIB:.0f} MiB)",
        (
            "server",
            "open p50",
            "open p99",
            "change p50",
            "change p99",
            "change, all its work done p50 / p99",
            "first open of the session",
            "spawn → indexing ended",
            "CPU per open",
            "CPU per keystroke",
            "CPU over the timed phase (median run)",
            "CPU from indexing ended to idle (median run)",
            "RSS / peak (max of runs)",
        ),
        rows,
    )


def run(
    data: Path,
    history: str,
    *,
    runs: int,
    keystrokes: int,
    files: int,
    tether: list[str],
    floor: list[str],
    work: Path,
) -> None:
    """Build the history at its cut (or reuse the one an earlier run built in ``work``),
    measure both servers on its hub files, print tables."""
    load_before = _load()
    folder = data / history
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    cut = int(meta["cut_idx"])

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    reuse = (work / history / ".tether").is_dir()
    h = build(folder, work, log, upto=cut, reuse=reuse)
    commits = list(read_commits(folder / "commits.jsonl"))[:cut]
    ranked = hub_files(commits, h.repo, files + 1)
    hubs, warmup = ranked[:files], ranked[files][0]
    write_anchored(h, [p for p, _ in hubs])
    texts = {p: document(h.repo, p, DOC_LINES) for p, _ in ranked}
    for path, text in texts.items():  # as the editor opens it (a kept history has it already)
        (h.repo / path).write_bytes(text.encode("utf-8"))
    log(f"{history}: hub files {', '.join(p for p, _ in hubs)}; first open on {warmup}")
    paths = [p for p, _ in hubs]
    measured_tether = measure(
        tether, h.repo, h.env, warmup, paths, texts, runs, keystrokes, reports_progress=True
    )
    # the same server with nothing ranked ahead: what an open meets before the warm-up ends
    measured_cold = measure(
        tether,
        h.repo,
        h.env,
        warmup,
        paths,
        texts,
        runs,
        keystrokes,
        reports_progress=True,
        options={"warmFiles": 0},
    )
    measured_floor = measure(
        floor, h.repo, h.env, warmup, paths, texts, runs, keystrokes, reports_progress=False
    )
    report(
        history, h.memories, hubs, measured_tether, measured_cold, measured_floor, runs, keystrokes
    )
    print(
        f"\nload average (1, 5, 15 min) before: {load_before}, after: {_load()}; "
        f"each hub file opened with {DOC_LINES:,} lines; "
        f"keystrokes {TYPING_GAP * 1000:.0f} ms apart"
    )


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())
