"""FTS5's docsize records decoded for many rows at once, as the one-by-one reader does."""

from __future__ import annotations

import random

from recall.index.fts_stats import sizes_of
from recall.ranking.postings import column_sizes, integers


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
