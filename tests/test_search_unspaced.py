"""A two-character word of a script written without spaces (Chinese, Japanese, Thai) sits
inside a longer token: the word index holds "日本語" whole and the trigram index cannot match
two characters, so `tether search 日本` would find nothing. Such chunks are looked for as
substrings of the stored text, every chunk still required; other short chunks are not."""

from __future__ import annotations

from conftest import remember

from recall.search import UNSPACED_SCRIPT, search
from recall.store import MemoryStore


def _found(store: MemoryStore, text: str, **kwargs: object) -> set[str]:
    return {hit.memory.id for hit in search(store.conn, text, **kwargs)}  # type: ignore[arg-type]


def test_a_two_character_word_inside_a_longer_token_is_found(store: MemoryStore) -> None:
    japanese = remember(store, "日本語の設定ファイルは UTF-8 で保存する", files=[])
    chinese = remember(store, "中文注释", details="数据库连接池的大小", files=[])
    thai = remember(store, "ภาษาไทย ไม่มีช่องว่าง", files=[])
    remember(store, "plain English note about the pool", files=[])
    assert _found(store, "日本") == {japanese}
    assert _found(store, "本語") == {japanese}
    assert _found(store, "本") == {japanese}
    assert _found(store, "连接") == {chinese}  # in the details
    assert _found(store, "ไท") == {thai}
    assert [h.matched_by for h in search(store.conn, "日本")] == ["substring"]


def test_every_chunk_is_still_required(store: MemoryStore) -> None:
    both = remember(store, "日本語 pool sizes", files=[])
    remember(store, "日本語 only", files=[])
    assert _found(store, "日本 pool") == {both}
    assert _found(store, "日本 zq") == set()
    assert _found(store, "中国") == set()


def test_the_scan_keeps_to_the_status_asked(store: MemoryStore) -> None:
    gone = remember(store, "古い設定", files=[])
    store.set_status(gone, "archived", allowed_from=("active",))
    assert _found(store, "設定") == set()
    assert _found(store, "設定", status="all") == {gone}


def test_like_wildcards_in_the_query_are_literal(store: MemoryStore) -> None:
    remember(store, "日本語", files=[])
    assert _found(store, "日%") == set()
    assert _found(store, "_本") == set()


def test_only_unspaced_scripts_and_symbols_are_scanned(store: MemoryStore) -> None:
    # "ab" is a whole word or nothing: a substring of "about" must not match it
    memory = remember(store, "about the cache 🚀", files=[])
    assert _found(store, "ab") == set()
    assert _found(store, "🚀") == {memory}  # no word, too short: a symbol is scanned for
    assert [bool(UNSPACED_SCRIPT.search(c)) for c in ("日", "カ", "ひ", "ก", "ab", "é", "한")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,  # Korean is written with spaces between words
    ]
