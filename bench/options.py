"""What the benchmarks' command lines share: the parser, the ranking options, the work folder."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's argument parser, its module docstring as the description (layout kept)."""
    return argparse.ArgumentParser(
        prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def ranking_options(parser: argparse.ArgumentParser) -> None:
    """``--ranking-out`` and ``--ranking-check`` (see :mod:`bench.rankings`)."""
    parser.add_argument("--ranking-out", type=Path, metavar="FILE", help="save ranked ids")
    parser.add_argument("--ranking-check", type=Path, metavar="FILE", help="compare ranked ids")


@contextmanager
def work_folder(keep: Path | None, prefix: str) -> Iterator[Path | None]:
    """The folder a benchmark builds in: ``keep`` (created if need be, kept after) or a
    temporary one, with ``TETHER_HOME`` inside it for the block (never the user's global
    store). None when ``keep`` is not empty, said on stderr: the caller exits with 2."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = keep.resolve() if keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if any(work.iterdir()):
            print(f"{work} is not empty", file=sys.stderr)
            yield None
            return
        home = os.environ.get("TETHER_HOME")
        os.environ["TETHER_HOME"] = str(work / "home")
        try:
            yield work
        finally:
            if home is None:
                os.environ.pop("TETHER_HOME", None)
            else:
                os.environ["TETHER_HOME"] = home
