"""Everything a genome stores, in terms of paths and commit ids (never internal numbers),
so two genomes built differently can be compared for equality."""

from __future__ import annotations

from typing import Any

from recall.genome import Genome
from recall.genome.packing import unpack, unpack_near


def dump(genome: Genome) -> dict[str, Any]:
    """The genome's stored content, independent of identity and row order."""
    conn = genome.conn
    shas = {row[0]: row[1] for row in conn.execute("SELECT seq, sha FROM genome_commits")}
    names = {row[0]: row[1] for row in conn.execute("SELECT id, path FROM genome_files")}
    files = {}
    for ident, path, commits, seqs, near in conn.execute(
        "SELECT id, path, commits, seqs, near FROM genome_files"
    ):
        assert ident in names
        files[path] = (
            commits,
            [shas[s] for s in unpack(seqs)],
            sorted((names[other], n) for other, n in unpack_near(near)),
        )
    return {
        "commits": [
            tuple(row)
            for row in conn.execute("SELECT sha, ts, nfiles FROM genome_commits ORDER BY seq")
        ],
        "files": files,
        "renames": [
            (shas[row[0]], row[1], row[2])
            for row in conn.execute("SELECT seq, old, new FROM genome_renames ORDER BY seq, old")
        ],
        "tree": {
            row[0]: tuple(row[1:])
            for row in conn.execute("SELECT path, key, specs, skip, fan_in FROM genome_tree")
        },
    }
