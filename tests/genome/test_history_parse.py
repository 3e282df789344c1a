"""The streamed log parser, on crafted streams and on a real git's output."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall.genome.history import (
    Commit,
    MalformedLog,
    log_args,
    parse_log,
    read_tokens,
)
from recall.genome.lineage import Lineage

from .gitrepo import GitRepo

SHA1 = "1" * 40
SHA2 = "2" * 40
ODD_NAME = "we\x01ird\nname.txt"

STREAM = (
    b"\x01" + SHA1.encode() + b" 1700000000 \0"
    b"\nM\0src/a file.py\0R087\0old.py\0new.py\0D\0gone.py\0"
    b"A\0" + ODD_NAME.encode() + b"\0A\0caf\xc3\xa9.py\0M\0bad\xffname\0"
    b"\x01" + SHA2.encode() + b" 1700003600 " + SHA1.encode() + b"\0"
    b"\x01" + b"3" * 40 + b" 1700007200 " + SHA1.encode() + b" " + SHA2.encode() + b"\0"
    b"\nC075\0src/a file.py\0copy.py\0T\0link\0"
)

EXPECTED = [
    Commit(
        SHA1,
        1700000000,
        [
            ("M", "src/a file.py", None),
            ("R", "new.py", "old.py"),
            ("D", "gone.py", None),
            ("A", ODD_NAME, None),
            ("A", "café.py", None),
            ("M", b"bad\xffname".decode("utf-8", "surrogateescape"), None),
        ],
        "",
    ),
    Commit(SHA2, 1700003600, [], SHA1),
    Commit(
        "3" * 40,
        1700007200,
        [("C", "copy.py", "src/a file.py"), ("T", "link", None)],
        f"{SHA1} {SHA2}",
    ),
]


def _parse(data: bytes, read_size: int = 1 << 16) -> list[Commit]:
    return list(parse_log(read_tokens(io.BytesIO(data), read_size)))


def test_parses_every_status_and_any_file_name() -> None:
    assert _parse(STREAM) == EXPECTED


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=len(STREAM)))
def test_any_read_size_gives_the_same_commits(read_size: int) -> None:
    assert _parse(STREAM, read_size) == EXPECTED


def test_empty_stream() -> None:
    assert _parse(b"") == []


@pytest.mark.parametrize(
    "data",
    [
        b"\nM\0a.py\0",
        b"\x01" + SHA1.encode() + b" notanumber\0",
        b"\x01" + SHA1.encode() + b" 1\0\nR100\0only-one.py\0",
        b"\x01" + SHA1.encode() + b" 1\0\n??\0a.py\0",
    ],
)
def test_malformed_streams_raise(data: bytes) -> None:
    with pytest.raises(MalformedLog):
        _parse(data)


def test_matches_real_git_output(make_repo: Callable[[str], GitRepo]) -> None:
    repo = make_repo("repo")
    first = repo.commit("one", "a b.py", "café.py")
    repo.move("a b.py", "dir/a b.py")
    second = repo.commit("two", "café.py")
    repo.remove("café.py")
    third = repo.commit("three")
    out = repo.git("log", *log_args(["HEAD"], subdir=False)[1:])
    commits = _parse(out.encode() + b"\0")
    assert [(c.sha, sorted(c.changes, key=str)) for c in commits] == [
        (first, [("A", "a b.py", None), ("A", "café.py", None)]),
        (second, [("M", "café.py", None), ("R", "dir/a b.py", "a b.py")]),
        (third, [("D", "café.py", None)]),
    ]


def test_lineage_follows_renames_swaps_and_merges() -> None:
    lineage = Lineage({}, 1)
    assert lineage.apply(1, [("A", "a", None), ("A", "b", None)]) == [1, 2]
    assert lineage.apply(2, [("R", "c", "a")]) == [1]
    assert lineage.names == {"c": 1, "b": 2}
    # A swap moves both identities at once.
    assert lineage.apply(3, [("R", "c", "b"), ("R", "b", "c")]) == [1, 2]
    assert lineage.names == {"c": 2, "b": 1}
    # A new file at a vacated name gets a new identity; renames are applied first.
    assert lineage.apply(4, [("A", "b", None), ("R", "d", "b")]) == [1, 3]
    assert lineage.names == {"c": 2, "d": 1, "b": 3}
    # A delete keeps the name bound, so re-creating it continues the same identity.
    lineage.apply(5, [("D", "c", None)])
    assert lineage.apply(6, [("A", "c", None)]) == [2]
    # Renaming onto a name with an identity merges that identity into the moved one.
    assert lineage.apply(7, [("R", "c", "d")]) == [1]
    assert lineage.merged == {2: 1}
    assert lineage.find(2) == 1
    assert lineage.renames == [
        (2, "a", "c"),
        (3, "b", "c"),
        (3, "c", "b"),
        (4, "b", "d"),
        (7, "d", "c"),
    ]
    # A rename whose source was never seen (history cut short) just adds the new name.
    assert lineage.apply(8, [("R", "e", "unknown")]) == [4]
