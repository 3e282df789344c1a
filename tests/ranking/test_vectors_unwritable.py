"""Semantic vectors when the index cannot take them: computed in memory, nothing written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from conftest import OpenStore, remember

from recall.ranking import vectors
from recall.ranking.embedding import load_embedder


def test_an_index_that_refuses_writes_still_gets_every_vector(
    open_store: Callable[..., OpenStore], tmp_path: Path
) -> None:
    store = open_store().store
    for n in range(5):
        remember(store, f"memory number {n} about the session cache", files=[f"src/m{n}.py"])
    embedder = load_embedder(None)
    conn = store.conn
    rowids, matrix = vectors.load(conn, embedder, None)  # the usual path: backfilled, stored

    with conn:
        conn.execute("DELETE FROM vectors")
        conn.execute("DELETE FROM meta WHERE key = 'vectors_complete'")
    conn.execute("PRAGMA query_only = ON")  # every write now fails as on a read-only index
    try:
        again_ids, again = vectors.load(conn, embedder, tmp_path / "cache")
    finally:
        conn.execute("PRAGMA query_only = OFF")

    assert again_ids.tolist() == rowids.tolist()
    assert np.allclose(again, matrix)
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0  # nothing written
    assert not (tmp_path / "cache").exists()  # nor cached
