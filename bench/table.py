"""Printing benchmark results as markdown tables with the command that produced them."""

from __future__ import annotations

import platform
import shlex
import statistics
import sys
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    """Median of a non-empty sequence."""
    return statistics.median(values)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a markdown table under a heading."""
    print(f"\n### {title}\n")
    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join("---" for _ in headers) + "|")
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")


def print_command() -> None:
    """Print how this run was invoked and on what."""
    args = shlex.join(sys.argv[1:])  # quoted: a variant's value may hold braces or spaces
    module = sys.argv[0].rsplit("/", 1)[-1].removesuffix(".py")
    print(f"\ncommand: python -m bench.{module} {args}".rstrip())
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}")
