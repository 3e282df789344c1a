"""`make bench`: every benchmark in turn, each printing its own tables and command."""

from __future__ import annotations

import argparse
import importlib
import sys
import time

# Module name and whether it understands --quick.
BENCHMARKS = (
    ("bench.foundation_bench", True),
    ("bench.genome_bench", True),
    ("bench.recall_bench", True),
    ("bench.real_bench", True),
    ("bench.crowded_bench", True),
    ("bench.search_bench", True),
    ("bench.quality", False),
    ("bench.lsp_bench", True),
    ("bench.hook_bench", True),
)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks that exist; a failing one is reported and the others still run."""
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--quick", action="store_true", help="smaller sizes where supported")
    parser.add_argument("only", nargs="*", help="run only these (e.g. quality genome_bench)")
    args = parser.parse_args(argv)
    failed = []
    for name, quick in BENCHMARKS:
        if args.only and not any(part in name for part in args.only):
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue
            raise
        print(f"\n## {name}\n", flush=True)
        started = time.perf_counter()
        code = module.main(["--quick"] if quick and args.quick else [])
        print(f"\n({name} took {time.perf_counter() - started:.0f} s)", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
