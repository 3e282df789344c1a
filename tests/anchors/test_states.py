"""Anchor states read from a real genome: the choice of a new home among several, a name too
common to follow, and the pinned limits behind those choices."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo

from recall.anchors.states import GONE, RELOCATED, UNKNOWN, resolve
from recall.anchors.symbols import SymbolAnchor
from recall.genome import Genome, limits
from recall.genome.symbols.model import body_hash
from recall.index.db import connect


def genome_of(root: Path, tmp_path: Path) -> Genome:
    genome = Genome(root, connect(tmp_path / "genome.db"))
    genome.refresh()
    return genome


def test_the_limits_are_pinned() -> None:
    assert limits.MAX_RELOCATION_CANDIDATES == 8
    assert limits.PARSE_THREADS == 2
    assert limits.PARALLEL_PARSE_MIN == 64


def test_a_moved_symbol_goes_to_the_file_with_its_body_else_the_nearest(tmp_path: Path) -> None:
    body = "def tick():\n    return 1\n"
    root = make_repo(
        tmp_path / "repo",
        {
            "app/clock.py": "def other():\n    pass\n",
            "app/timer.py": "def tick():\n    return 2\n",  # same name, another body
            "lib/far/clock.py": body,  # the same body, farther away
        },
    )
    genome = genome_of(root, tmp_path)
    recorded = SymbolAnchor("app/clock.py", "tick", body_hash(body.encode()))
    state = resolve(genome.conn, recorded, genome.renamed_to)
    assert (state.state, state.found and state.found.path, state.changed) == (
        RELOCATED,
        "lib/far/clock.py",
        False,
    )
    unrecorded = SymbolAnchor("app/clock.py", "tick")  # no body known: the nearest file
    state = resolve(genome.conn, unrecorded, genome.renamed_to)
    assert state.found is not None and state.found.path == "lib/far/clock.py"  # same file name
    nearest = resolve(genome.conn, SymbolAnchor("app/x.py", "tick"), genome.renamed_to)
    assert nearest.found is not None and nearest.found.path == "app/timer.py"  # same folder


def test_a_name_defined_everywhere_is_not_followed(tmp_path: Path) -> None:
    files = {
        f"m{n}/setup.py": f"def setup():\n    return {n}\n"
        for n in range(limits.MAX_RELOCATION_CANDIDATES + 1)
    }
    root = make_repo(tmp_path / "repo", {**files, "main.py": "def setup():\n    pass\n"})
    git(root, "rm", "-q", "main.py")
    git(root, "commit", "-q", "-m", "drop main")
    genome = genome_of(root, tmp_path)
    assert resolve(genome.conn, SymbolAnchor("main.py", "setup"), genome.renamed_to).state == GONE
    assert (
        resolve(genome.conn, SymbolAnchor("README.md", "setup"), genome.renamed_to).state == UNKNOWN
    )
