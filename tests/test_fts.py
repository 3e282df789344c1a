"""Full-text search with hostile input: user text never reaches FTS5 MATCH as syntax.

Every string here once broke some FTS5 front end: operators, unbalanced quotes and brackets,
column filters, prefix stars, NEAR, emoji, a 3 KB stack trace, nothing at all, and tokens too
short for the trigram index.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import remember
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall.index import fts
from recall.locations import project_location
from recall.search import search
from recall.store import MemoryStore

STACK_TRACE = "\n".join(
    [
        "Traceback (most recent call last):",
        *(
            f'  File "/srv/app/module_{i}.py", line {10 + i}, in handler_{i}\n'
            f"    result = dispatch(request, context={{'attempt': {i}}})"
            for i in range(30)
        ),
        "sqlite3.OperationalError: database is locked (while flushing the session cache)",
    ]
)

HOSTILE = [
    "foo AND (bar",
    '"',
    '""',
    '"unbalanced',
    "-x:y*",
    "NEAR(",
    "NEAR(a b, 2)",
    "summary:pool",
    "details : x",
    "^start",
    "a OR b NOT c",
    "AND",
    "OR OR OR",
    "*",
    "(",
    ")",
    "{summary details}:x",
    "x + y",
    "col:",
    "'single'",
    "back\\slash",
    "\x00nul",
    "🚀",
    "🚀🚀🚀",
    "deploy 🔥 fails",
    "ünïcödé straße",
    "日本語のテキスト",
    "",
    "   ",
    "\n\t",
    "a",
    "ab",
    "a b c",
    STACK_TRACE,
    "x" * 10_000,
]


CORPUS = {
    "pool": ("Pool the DB connections", "Never open a raw sqlite3 connection per request."),
    "boolean": ("foo AND (bar in a query string", "Seen in the search box."),
    "flags": ("CLI flag -x:y* is a glob", ""),
    "near": ("NEAR( breaks naive FTS", "Quote every token."),
    "emoji": ("deploy 🚀🚀🚀 fails on Fridays", "Do not 🔥 prod."),
    "trace": ("Locked database during flush", STACK_TRACE),
    "db": ("db migrations run at boot", "The db is migrated before serving."),
    "german": ("Straße names need NFC", "ünïcödé everywhere"),
    "archived": ("Pool the DB connections (old advice)", "Archived copy."),
}


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    """One store, shared by the read-only tests, holding memories with the hostile strings."""
    root = tmp_path_factory.mktemp("fts-corpus")
    (root / ".tether").mkdir()
    store = MemoryStore(project_location(root), notice=lambda message: None)
    drafts = [
        (store.prepare_memory(summary=summary, category="gotcha", files=[], details=details), None)
        for summary, details in CORPUS.values()
    ]
    results = store.import_many(drafts)
    store.ids = {name: r.id for name, r in zip(CORPUS, results, strict=True)}  # type: ignore[attr-defined]
    store.set_status(store.ids["archived"], "archived", allowed_from=("active",))  # type: ignore[attr-defined]
    yield store
    store.close()


@pytest.fixture
def corpus(corpus_store: MemoryStore) -> dict[str, str]:
    """Name -> id of the shared corpus memories."""
    return corpus_store.ids  # type: ignore[attr-defined, no-any-return]


def found(store: MemoryStore, text: str, **kwargs: object) -> list[str]:
    """Ids of the memories a search returns, best first."""
    return [hit.memory.id for hit in search(store.conn, text, **kwargs)]  # type: ignore[arg-type]


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t[:20]))
def test_hostile_text_never_raises(
    corpus_store: MemoryStore, corpus: dict[str, str], text: str
) -> None:
    hits = search(corpus_store.conn, text, limit=5)
    assert len(hits) <= 5
    assert all(hit.memory.status == "active" for hit in hits)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("foo AND (bar", "boolean"),
        ("-x:y*", "flags"),
        ("NEAR(", "near"),
        ("🚀🚀🚀", "emoji"),
        ("deploy 🚀🚀🚀", "emoji"),
        ("straße", "german"),
        ("strasse", None),
        ("unicode", "german"),
        ("POOL connections", "pool"),
        ("connect", "pool"),
        ("sqlite3.OperationalError", "trace"),
    ],
)
def test_hostile_text_finds_the_memory_that_holds_it(
    corpus_store: MemoryStore, corpus: dict[str, str], text: str, expected: str | None
) -> None:
    hits = found(corpus_store, text)
    if expected is None:
        assert hits == []
    else:
        assert hits[0] == corpus[expected]


def test_stack_trace_as_query_finds_the_memory_holding_it(
    corpus_store: MemoryStore, corpus: dict[str, str]
) -> None:
    assert len(STACK_TRACE) > 3000
    assert found(corpus_store, STACK_TRACE) == [corpus["trace"]]


def test_empty_and_symbol_only_queries_find_nothing(
    corpus_store: MemoryStore, corpus: dict[str, str]
) -> None:
    for text in ("", "   ", '"', "()", "*", "-"):
        assert found(corpus_store, text) == []
    # a symbol is no punctuation: one emoji, too short for the trigrams, is found as a substring
    assert found(corpus_store, "🚀") == [corpus["emoji"]]


def test_short_tokens_match_whole_words(corpus_store: MemoryStore, corpus: dict[str, str]) -> None:
    # "db" is a word in two memories; "DB" in "DBA" or "sqlite3" would not be a word match
    assert set(found(corpus_store, "db")) == {corpus["db"], corpus["pool"]}
    assert [h.matched_by for h in search(corpus_store.conn, "db")] == ["words", "words"]
    assert set(found(corpus_store, "DB migrations")) == {corpus["db"]}


def test_every_token_is_required_even_when_too_short_for_trigrams(
    corpus_store: MemoryStore, corpus: dict[str, str]
) -> None:
    # "zq" is absent everywhere: dropping it from the trigram query must not widen the search.
    assert found(corpus_store, "zq migrations") == []
    assert found(corpus_store, "migrations zq") == []
    assert found(corpus_store, "z migrat") == []
    assert found(corpus_store, "db migrat") == [corpus["db"]]


def test_archived_memories_are_not_found_unless_asked(
    corpus_store: MemoryStore, corpus: dict[str, str]
) -> None:
    assert corpus["archived"] not in found(corpus_store, "pool")
    assert corpus["archived"] in found(corpus_store, "pool", status="all")


def test_limit_is_honoured(store: MemoryStore) -> None:
    for i in range(12):
        remember(store, f"retry budget number {i}", files=[])
    assert len(found(store, "retry", limit=5)) == 5
    assert len(found(store, "retry", limit=50)) == 12


def test_many_inactive_matches_do_not_hide_the_active_one(store: MemoryStore) -> None:
    for i in range(30):
        memory_id = remember(store, f"cache cache cache {i}", details="cache", files=[])
        store.set_status(memory_id, "archived", allowed_from=("active",))
    active = remember(
        store, "A long note", details="cache " + "filler words " * 200, files=["src/app.py"]
    )
    assert found(store, "cache", limit=1) == [active]
    assert found(store, "cac", limit=1) == [active]


def test_quote_token_and_expressions() -> None:
    assert fts.quote_token('a"b') == '"a""b"'
    assert fts.match_expression(["a", 'b"'], "OR") == '"a" OR "b"""'
    assert fts.match_expression([]) is None
    assert fts.match_expression([""]) is None
    with pytest.raises(ValueError):
        fts.match_expression(["a"], "NEAR")


def test_expressions_from_any_token_are_valid_match_strings(store: MemoryStore) -> None:
    # The recall engine builds MATCH strings from these helpers directly, not through search().
    remember(store, "seed", files=[])
    for text in HOSTILE:
        for table, tokens in (
            ("fts_words", fts.word_tokens(text)),
            ("fts_trigram", fts.trigram_tokens(text)),
        ):
            for operator in ("AND", "OR"):
                expression = fts.match_expression(tokens, operator)
                if expression is not None:
                    store.conn.execute(
                        f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (expression,)
                    ).fetchone()


def test_tokenizers() -> None:
    # unicode61 splits on "_", so the query does too: BAR_baz is two words
    assert fts.word_tokens("Foo foo BAR_baz 42 -x:y*") == ["foo", "bar", "baz", "42", "x", "y"]
    assert fts.trigram_tokens("ab abc  ABC abcd 🚀 🚀🚀🚀") == ["abc", "abcd", "🚀🚀🚀"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=200))
def test_any_text_is_safe_to_search(store: MemoryStore, text: str) -> None:
    if not hasattr(store, "_seeded"):
        remember(store, "seed memory for hypothesis", files=[])
        store._seeded = True  # type: ignore[attr-defined]
    hits = search(store.conn, text, limit=3)
    assert len(hits) <= 3


def test_the_word_index_uses_the_tokenizer_fts_emulates(store: MemoryStore) -> None:
    (sql,) = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'fts_words'").fetchone()
    assert f"tokenize = '{fts.WORD_TOKENIZER}'" in sql


# Latin loses its accents, Greek and kana keep theirs, micro sign and long s fold, CJK
# compatibility ideographs are not normalised: what no Python normalisation gets right.
TRICKY = ["Café", "σφάλμα", "ガベージが遅い", "µs", "ſtate", "ÆSIR", "Ǽ", "舘", "naïve_déjà"]


@pytest.mark.parametrize("text", TRICKY)
def test_indexed_words_are_the_terms_the_index_stores(store: MemoryStore, text: str) -> None:
    memory_id = remember(store, f"note {text}", files=["src/app.py"])
    rowid = store.conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()
    store.conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.instances "
        "USING fts5vocab(main, fts_words, instance)"
    )
    stored = [
        term
        for term, _offset in store.conn.execute(
            "SELECT term, offset FROM temp.instances WHERE doc = ? AND col = 'summary' "
            "ORDER BY offset",
            rowid,
        )
    ]
    assert fts.indexed_words(f"note {text}") == stored
    assert fts.indexed_words_many(["plain ascii", f"note {text}"]) == [["plain", "ascii"], stored]


def test_a_huge_text_is_tokenized_whole_in_pieces() -> None:
    words = [f"σφάλμα{n}" for n in range(30_000)]  # ~270k characters, not ASCII
    assert fts.indexed_words(" ".join(words)) == words
