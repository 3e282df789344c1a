"""Benchmark: what locating an edit and a symbol costs the hooks and the language server.

Builds a repository with one large C file (``--functions`` functions, 10 lines each) and a
small one, a memory guarded on one function of the large file and one guarded on the whole
small file, indexed. Then, alternately in each run, as whole processes (CPU time, user +
system, of the finished child):

* ``python -c pass``: the interpreter's floor;
* ``tether hook pre-edit`` of the small file (a whole-file guard: no parse, it asks);
* ``tether hook pre-edit`` of the large file, an Edit inside the guarded function (it parses
  the file, then asks) and one in another function (it parses, then says nothing);
* ``tether hook prompt`` on a fresh genome; then, after a commit that edits one function of
  the large file and adds ``--new-files`` C files, ``tether hook prompt`` (its refresh reads
  history and the tree but no symbols), then ``tether index`` (which parses what changed).

And in this process: the parse a diagnostic publish makes of an open document whose text
changed (the large file with one line more each time), by ``time.process_time``.

    python -m bench.guard_bench [--functions 400] [--runs 7] [--new-files 50]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bench import options
from bench.table import median, print_command, print_table

PYTHON = sys.executable
TETHER = [PYTHON, "-m", "recall"]


def _c_file(functions: int) -> str:
    parts = ["#include <stdio.h>\n"]
    for n in range(functions):
        parts.append(
            f"static int fn_{n}(int arg)\n{{\n\tint ret = arg;\n\tif (ret > {n})\n"
            f"\t\tret -= {n};\n\telse\n\t\tret += {n};\n\treturn ret;\n}}\n"
        )
    return "\n".join(parts)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _cpu_ms(command: list[str], root: Path, stdin: str = "") -> tuple[float, str]:
    """Run ``command`` in ``root``; its CPU time (ms) and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        command, cwd=root, input=stdin, capture_output=True, text=True, check=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used * 1000, done.stdout


def _edit(root: Path, path: str, old: str, event: str = "PreToolUse") -> str:
    return json.dumps(
        {
            "session_id": str(uuid.uuid4()),
            "cwd": str(root),
            "hook_event_name": event,
            "tool_name": "Edit",
            "tool_input": {"file_path": str(root / path), "old_string": old, "new_string": "x"},
        }
    )


def _build(root: Path, functions: int) -> None:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
        _git(root, "config", key, value)
    (root / "src").mkdir()
    (root / "src/big.c").write_text(_c_file(functions))
    (root / "src/small.c").write_text(_c_file(3))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "initial")
    guarded = f"src/big.c::fn_{functions // 2}"
    for summary, where in (
        ("keep the sign rule", ["--anchor", guarded]),
        ("small.c is generated", ["-f", "src/small.c"]),
    ):
        subprocess.run(
            [*TETHER, "remember", summary, "-c", "decision", "--guard", *where],
            cwd=root,
            check=True,
            capture_output=True,
        )
    subprocess.run([*TETHER, "index"], cwd=root, check=True, capture_output=True)


def _refresh_copy_ms(root: Path, copy: Path, symbols: bool) -> float:
    """CPU ms (this process and its git children) of refreshing a copy of the project index's
    genome, with or without the symbol index."""
    import sqlite3

    from recall.genome import Genome
    from recall.locations import project_location

    with sqlite3.connect(project_location(root).index_path) as source, sqlite3.connect(copy) as to:
        source.backup(to)
    conn = sqlite3.connect(copy)
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.process_time()
        Genome(root, conn, symbols=symbols).refresh()
        used = time.process_time() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        conn.close()
    return (used + after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def run(functions: int, runs: int, new_files: int, work: Path) -> None:
    """Build, measure, print the tables."""
    root = work / "repo"
    _build(root, functions)
    middle = functions // 2
    inside = f"\t\tret -= {middle};"
    outside = "\t\tret -= 1;"
    cases = {
        "python -c pass": ([PYTHON, "-c", "pass"], ""),
        "pre-edit, whole-file guard (asks)": (
            [*TETHER, "hook", "pre-edit"],
            _edit(root, "src/small.c", "\t\tret -= 1;"),
        ),
        "pre-edit, inside the guarded function (asks)": (
            [*TETHER, "hook", "pre-edit"],
            _edit(root, "src/big.c", inside),
        ),
        "pre-edit, another function of that file (silent)": (
            [*TETHER, "hook", "pre-edit"],
            _edit(root, "src/big.c", outside),
        ),
    }
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    spoke: dict[str, bool] = {}
    after_commit = f"hook prompt after a commit (the file edited, {new_files} new files)"
    refresh: dict[str, list[float]] = {"hook prompt, genome fresh": [], after_commit: []}
    refresh["tether index after the hook"] = []
    without = "the same refresh in process, without symbols (as a hook)"
    with_symbols = "the same refresh in process, with symbols (as before)"
    refresh[without] = []
    refresh[with_symbols] = []
    prompt = json.dumps(
        {"session_id": str(uuid.uuid4()), "cwd": str(root), "prompt": "why the sign rule?"}
    )
    for number in range(runs):
        for name, (command, stdin) in cases.items():
            used, out = _cpu_ms(command, root, stdin)
            cpu[name].append(used)
            spoke[name] = '"ask"' in out
        text = (root / "src/big.c").read_text()
        used, _ = _cpu_ms([*TETHER, "hook", "prompt"], root, prompt)
        refresh["hook prompt, genome fresh"].append(used)
        edited = text.replace("\treturn ret;\n}", f"\treturn ret + {number};\n}}", 1)
        (root / "src/big.c").write_text(edited)  # the next function's return, each run
        for k in range(new_files):
            (root / f"src/gen_{number}_{k}.c").write_text(_c_file(40))
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"edit {number}")
        for symbols, name in ((False, without), (True, with_symbols)):
            refresh[name].append(
                _refresh_copy_ms(root, work / f"copy-{number}-{symbols}.db", symbols)
            )
        used, _ = _cpu_ms([*TETHER, "hook", "prompt"], root, prompt)
        refresh[after_commit].append(used)
        used, _ = _cpu_ms([*TETHER, "index"], root)
        refresh["tether index after the hook"].append(used)
    rows = [(n, f"{median(v):.0f}", "ask" if spoke[n] else "—") for n, v in cpu.items()]
    print_table(
        f"pre-edit with a guard on a symbol of a {functions}-function C file (CPU ms, median "
        f"of {runs})",
        ["process", "CPU ms", "answer"],
        rows,
    )
    print_table(
        "after a commit editing that file (CPU ms, median)",
        ["process", "CPU ms"],
        [(n, f"{median(v):.0f}") for n, v in refresh.items()],
    )
    _publish_parse(root, runs)
    print(f"\nload average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print_command()


def _publish_parse(root: Path, runs: int) -> None:
    """The parse a publish makes of a changed open document, in this process."""
    from lsp_server.placement import span_of
    from recall.anchors.symbols import SymbolAnchor
    from recall.model import Memory

    text = (root / "src/big.c").read_text()
    memory = Memory(
        id="0000beef",
        category="decision",
        summary="keep the sign rule",
        files=("src/big.c",),
        anchors=(SymbolAnchor("src/big.c", "fn_1"),),
    )
    span_of(memory, "src/big.c", text, lambda anchors: [])  # the grammar loaded once
    times = []
    for n in range(runs * 3):
        changed = text + f"\n/* {n} */\n"
        start = time.process_time()
        span_of(memory, "src/big.c", changed, lambda anchors: [])
        times.append((time.process_time() - start) * 1000)
    print_table(
        "a publish's parse of the changed open document (CPU ms, this process)",
        ["document", "lines", "CPU ms, median"],
        [("src/big.c", text.count("\n") + 1, f"{median(times):.1f}")],
    )


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run."""
    parser = options.parser("bench.guard_bench", __doc__)
    parser.add_argument("--functions", type=int, default=400)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--new-files", type=int, default=50)
    args = parser.parse_args(argv)
    with options.work_folder(None, "tether-guard-bench-") as work:
        if work is None:
            return 2
        run(args.functions, args.runs, args.new_files, work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
