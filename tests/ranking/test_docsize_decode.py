"""FTS5's docsize records decoded for many rows at once, as the one-by-one reader does."""

from __future__ import annotations

import random

import numpy as np
import pytest

from recall.index.fts_stats import row_sizes, sizes_of
from recall.ranking.postings import Postings, column_sizes, integers

from .world import World


def _varint(value: int) -> bytes:
    """``value`` as an SQLite varint of at most eight bytes (7 bits each, high bit: more)."""
    groups = [value & 0x7F]
    value >>= 7
    while value:
        groups.append(value & 0x7F)
        value >>= 7
    groups.reverse()
    return bytes([g | 0x80 for g in groups[:-1]] + [groups[-1]])


def _one_by_one(records: list[bytes]) -> list[tuple[int, int]]:
    return [(s, d) for _, s, d in sizes_of(enumerate(records))]


def test_two_varints_each_decoded_as_the_reader_does() -> None:
    chance = random.Random(7)
    for _ in range(500):
        records = [
            _varint(chance.choice([0, 1, 127, 128, 16_383, 16_384, 2**21, 2**40]))
            + _varint(chance.randrange(2 ** chance.randint(1, 48)))
            for _ in range(chance.randint(1, 30))
        ]
        decoded = column_sizes(records)
        assert decoded is not None
        assert list(zip(decoded[0].tolist(), decoded[1].tolist(), strict=True)) == _one_by_one(
            records
        )


def test_anything_else_left_to_the_reader() -> None:
    assert column_sizes([]) is None
    assert column_sizes([b"\x03\x04", b""]) is None  # no record: the reader says 0, 0
    assert column_sizes([b"\x03"]) is None  # one column
    assert column_sizes([b"\x03\x04\x05"]) is None  # three
    assert column_sizes([b"\x03\x04", None]) is None  # type: ignore[list-item]
    assert column_sizes([b"\xff" * 8 + b"\x01" + b"\x02"]) is None  # a nine-byte varint


def test_integers_of_group_concat() -> None:
    assert integers("3,1,40000000000").tolist() == [3, 1, 40_000_000_000]
    assert integers("7").tolist() == [7]


def test_a_real_stores_sizes_decoded_at_once_as_the_reader_reads_them(world: World) -> None:
    # token counts on each side of a varint's byte boundaries (128, 16,384), and none
    world.history([["a.c"]])
    for n, tokens in enumerate((0, 1, 127, 128, 300, 16_383, 16_384, 16_500)):
        details = " ".join(f"w{(n * 7 + i) % 50}" for i in range(tokens)) or None
        world.remember(f"note {n} on the parser", "a.c", details=details)
    conn = world.project.conn
    held = [row[0] for row in conn.execute("SELECT id FROM fts_words_docsize ORDER BY id")]
    records = [row[1] for row in conn.execute("SELECT id, sz FROM fts_words_docsize")]
    assert column_sizes(records) is not None  # real records take the decode at once

    expected = {rowid: (summary, details) for rowid, summary, details in row_sizes(conn, held)}
    assert {details for _, details in expected.values()} >= {0, 128, 16_384}
    absent = max(held) + 5
    postings = Postings(conn)
    asked = np.array([*held, absent, held[0]], dtype=np.int64)
    found = postings.lengths(asked)
    assert found is not None
    summary, details = (values.tolist() for values in found)
    assert summary == [*(expected[r][0] for r in held), -1, expected[held[0]][0]]
    assert details == [*(expected[r][1] for r in held), -1, expected[held[0]][1]]


def test_rows_the_index_does_not_hold_stay_unknown(world: World) -> None:
    world.history([["a.c"]])
    conn = world.project.conn  # an empty store: no docsize record at all
    found = Postings(conn).lengths(np.array([1, 2, 3], dtype=np.int64))
    assert found is not None
    assert [values.tolist() for values in found] == [[-1, -1, -1], [-1, -1, -1]]


def test_integers_of_group_concat_as_split_reads_them() -> None:
    chance = random.Random(5)
    for _ in range(300):
        values = [
            chance.randrange(2 ** chance.randint(1, 62)) for _ in range(chance.randint(1, 40))
        ]
        joined = ",".join(map(str, values))
        assert integers(joined).tolist() == values
    for malformed in ("4,5,", "4,,5", "4,x", "4.5,6"):  # refused, as the plain reader does
        with pytest.raises(ValueError):
            integers(malformed)
